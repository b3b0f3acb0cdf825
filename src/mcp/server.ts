import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Nosh } from '../index.js';
import { fail, type Envelope } from '../errors.js';

const PROGRESS_EVERY_MS = 1000;

/**
 * The MCP server: every method of the registry as a tool, with its JSON Schema, its
 * annotations, and the envelope as structured content (isError when it failed).
 */
export function createMcpServer(nosh: Nosh, version: string): Server {
  const server = new Server({ name: 'nosh', version }, { capabilities: { tools: {} } });
  const methods = nosh.methods();

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: methods.map((m) => ({
      name: m.name,
      description: m.description,
      inputSchema: z.toJSONSchema(m.input) as { type: 'object'; properties?: Record<string, unknown> },
      annotations: m.annotations,
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const { name, arguments: args } = req.params;
    if (!methods.some((m) => m.name === name)) {
      return result(fail('INVALID_ARGUMENT', `unknown tool '${name}'`, `Tools: ${methods.map((m) => m.name).join(', ')}.`, { tool: name }));
    }
    // Long calls send progress notifications when the client asked for them.
    const token = req.params._meta?.progressToken;
    let ticks = 0;
    const timer = token === undefined ? undefined : setInterval(() => {
      ticks++;
      void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ticks, message: `${name} running` } }).catch(() => {});
    }, PROGRESS_EVERY_MS);
    try {
      return result(await nosh.call(name, args ?? {}, { signal: extra.signal }));
    } finally {
      if (timer) clearInterval(timer);
    }
  });
  return server;
}

/** A tool result carrying the envelope, as text and as structured content. */
function result(env: Envelope<unknown>) {
  return {
    isError: !env.success,
    content: [{ type: 'text' as const, text: JSON.stringify(env) }],
    structuredContent: env as unknown as Record<string, unknown>,
  };
}

/** Serve MCP over stdio until the client disconnects. */
export async function serveMcpStdio(nosh: Nosh, version: string): Promise<void> {
  const server = createMcpServer(nosh, version);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => { server.onclose = () => resolve(); });
  await server.connect(transport);
  process.stdin.once('end', () => void server.close());
  await closed;
}
