// Clients for the trust tests: `nosh mcp` through the SDK client, `nosh serve` over real pipes.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const MAIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

export interface McpSession {
  client: Client;
  /** A tool call: its envelope (structured content) and isError. */
  call(name: string, args: Record<string, unknown>): Promise<{ isError: boolean; env: any }>;
  close(): Promise<void>;
}

export async function startMcp(args: string[]): Promise<McpSession> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [MAIN, 'mcp', ...args], stderr: 'pipe' });
  const client = new Client({ name: 'nosh-trust-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    async call(name, a) {
      const r = await client.callTool({ name, arguments: a });
      return { isError: !!r.isError, env: r.structuredContent };
    },
    close: () => client.close(),
  };
}

export interface RpcSession {
  call(method: string, params: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

export function startServe(args: string[]): RpcSession {
  const child: ChildProcess = spawn(process.execPath, [MAIN, 'serve', ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const pending = new Map<number, (m: unknown) => void>();
  let next = 1;
  createInterface({ input: child.stdout! }).on('line', (l) => {
    const m = JSON.parse(l) as { id: number };
    pending.get(m.id)?.(m);
    pending.delete(m.id);
  });
  return {
    call(method, params) {
      const id = next++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
      });
    },
    async close() {
      child.stdin!.end();
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    },
  };
}
