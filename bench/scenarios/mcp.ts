/**
 * MCP: a client over stdio calling read_text_file / list_directory on
 * @modelcontextprotocol/server-filesystem, against nosh's read / list tools over `nosh mcp`
 * and over `nosh serve` (JSON-RPC). Sequential calls, latency per call, the systems in turns.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import { P } from '../data.js';
import { NOSH_CLI, loadMcpSdk, mcpFilesystemServer } from '../deps.js';
import { measureInterleaved } from '../measure.js';
import { NoshServe } from '../systems.js';
import type { Cell, Ctx, Scenario, ScenarioResult } from './common.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
interface Conn { client: any; tools: Set<string> }

const conns = new Map<string, Promise<Conn | string>>();

/** Connect once per server and keep the connection for every scenario. Returns a reason on failure. */
function connect(key: 'mcp-fs' | 'nosh-mcp', root: string): Promise<Conn | string> {
  let p = conns.get(key);
  if (!p) {
    p = (async () => {
      const sdk = loadMcpSdk();
      if (!sdk) return 'absent (MCP SDK not installed)';
      let args: string[];
      if (key === 'mcp-fs') {
        const server = mcpFilesystemServer();
        if (!server) return 'absent (server-filesystem not installed)';
        args = [server, root];
      } else {
        args = [NOSH_CLI, 'mcp', '--root', root];
      }
      const client = new sdk.Client({ name: 'nosh-bench', version: '0' });
      const transport = new sdk.StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' });
      try {
        await withTimeout(client.connect(transport), 10_000);
        const list = await withTimeout(client.listTools(), 10_000) as { tools: { name: string }[] };
        return { client, tools: new Set(list.tools.map((t) => t.name)) };
      } catch {
        await client.close().catch(() => undefined);
        return key === 'nosh-mcp' ? 'skipped: nosh mcp missing' : 'error: MCP filesystem server did not start';
      }
    })();
    conns.set(key, p);
  }
  return p;
}

export async function closeMcp(): Promise<void> {
  for (const p of conns.values()) {
    const c = await p;
    if (typeof c !== 'string') await c.client.close().catch(() => undefined);
  }
  conns.clear();
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('timeout')), ms);
    p.then((v) => { clearTimeout(t); resolve(v); }, (e) => { clearTimeout(t); reject(e); });
  });
}

/** The text of a tool result; nosh may answer with an envelope in JSON. */
function textOf(res: any): string {
  const t = (res?.content ?? []).filter((c: any) => c.type === 'text').map((c: any) => c.text).join('\n');
  try {
    const env = JSON.parse(t);
    if (typeof env?.data?.content === 'string') return env.data.content;
    if (env?.data !== undefined) return JSON.stringify(env.data);
  } catch { /* plain text */ }
  return t;
}

/** args: fixed, or made for each call (an edit that undoes the previous one, so that every call changes the file). */
interface Call { tool: string; args: Record<string, unknown> | (() => Record<string, unknown>); check: (text: string) => boolean }

const argsOf = (call: Call) => (typeof call.args === 'function' ? call.args() : call.args);

/** One system of a scenario, ready to be measured (or its cell saying why not). */
type Prepared = { cell: Cell } | { key: string; label: string; invoke: () => Promise<unknown> };

/** nosh's own protocol for the same call: a JSON-RPC request to `nosh serve` (issue #5's comparison). */
async function prepareRpc(serve: NoshServe, call: Call): Promise<Prepared> {
  const label = 'nosh serve (JSON-RPC)';
  if ((await serve.start()) === null) return { cell: { system: 'nosh-rpc', label, status: 'skipped', note: serve.unavailable ?? 'skipped' } };
  const invoke = async () => {
    const msg = await serve.call(call.tool, argsOf(call));
    const env = msg.result as { success: boolean; data?: { content?: string } } | undefined;
    return env?.success ? (env.data?.content ?? JSON.stringify(env.data)) : `error: ${JSON.stringify(msg.error ?? env)}`;
  };
  const first = await invoke();
  if (!call.check(first)) return { cell: { system: 'nosh-rpc', label, status: 'wrong', note: `WRONG: ${first.slice(0, 100)}` } };
  return { key: 'nosh-rpc', label, invoke };
}

async function prepareMcp(key: 'nosh-mcp' | 'mcp-fs', label: string, root: string, call: Call): Promise<Prepared> {
  const conn = await connect(key, root);
  if (typeof conn === 'string') {
    return { cell: { system: key, label, status: conn.startsWith('absent') ? 'absent' : conn.startsWith('skipped') ? 'skipped' : 'error', note: conn } };
  }
  if (!conn.tools.has(call.tool)) return { cell: { system: key, label, status: 'skipped', note: `skipped: tool ${call.tool} missing` } };
  const invoke = () => conn.client.callTool({ name: call.tool, arguments: argsOf(call) });
  try {
    const first = await invoke();
    if (first.isError || !call.check(textOf(first))) return { cell: { system: key, label, status: 'wrong', note: `WRONG: ${textOf(first).slice(0, 100)}` } };
  } catch (e) {
    return { cell: { system: key, label, status: 'error', note: `error: ${(e as Error).message}` } };
  }
  return { key, label, invoke };
}

/**
 * nosh serve, nosh mcp and the MCP filesystem server, measured in turns (measureInterleaved):
 * on a shared machine a burst of load then falls on all three, not on whichever ran then, so
 * the ratio between them holds better than their absolute figures.
 */
function scenario(id: string, title: string, calls: (root: string, system: 'nosh-rpc' | 'nosh-mcp') => { fs: Call; nosh: Call }): Scenario {
  return {
    id, group: 'mcp', title,
    async run(ctx: Ctx): Promise<ScenarioResult> {
      const root = ctx.data.root;
      const c = calls(root, 'nosh-rpc');
      const m = calls(root, 'nosh-mcp');
      const serve = new NoshServe(root);
      try {
        const prepared = [
          await prepareRpc(serve, c.nosh),
          await prepareMcp('nosh-mcp', 'nosh mcp', root, m.nosh),
          await prepareMcp('mcp-fs', 'MCP server-filesystem', root, c.fs),
        ];
        const ready = prepared.filter((p): p is Exclude<Prepared, { cell: Cell }> => !('cell' in p));
        ctx.progress(`${id}: ${ready.map((p) => p.label).join(', ')} in turns`);
        const stats = await measureInterleaved(ready.map((p) => p.invoke), ready.map(() => ctx.profile.lib));
        const cells = prepared.map((p): Cell => 'cell' in p ? p.cell
          : { system: p.key, label: p.label, status: 'ok', stats: stats[ready.indexOf(p)]! });
        return { id, group: 'mcp', title, better: 'lower', cells };
      } finally {
        await serve.close();
      }
    },
  };
}

export const mcpScenarios: Scenario[] = [
  scenario('mcp/read', 'MCP read small.txt', (root) => {
    const content = fs.readFileSync(join(root, P.lat, P.small), 'utf8');
    const check = (t: string) => t.includes(content.trimEnd());
    return {
      fs: { tool: 'read_text_file', args: { path: join(root, P.lat, P.small) }, check },
      nosh: { tool: 'read', args: { path: `${P.lat}/${P.small}` }, check },
    };
  }),
  scenario('mcp/list', 'MCP list dir (40 files)', (root) => {
    const names = fs.readdirSync(join(root, P.lat, P.dir));
    const check = (t: string) => names.every((n) => t.includes(n));
    return {
      fs: { tool: 'list_directory', args: { path: join(root, P.lat, P.dir) }, check },
      nosh: { tool: 'list', args: { path: `${P.lat}/${P.dir}` }, check },
    };
  }),
  scenario('mcp/tree', 'MCP tree of lat/ (2 levels, 43 entries)', (root) => {
    const names = fs.readdirSync(join(root, P.lat, P.dir));
    const check = (t: string) => names.every((n) => t.includes(n));
    return {
      fs: { tool: 'directory_tree', args: { path: join(root, P.lat) }, check },
      nosh: { tool: 'tree', args: { path: P.lat }, check },
    };
  }),
  scenario('mcp/find', "MCP find '*.txt' below lat/ (42 files)", (root) => {
    const names = fs.readdirSync(join(root, P.lat, P.dir));
    const check = (t: string) => names.every((n) => t.includes(n)) && t.includes(P.small);
    return {
      fs: { tool: 'search_files', args: { path: join(root, P.lat), pattern: '**/*.txt' }, check },
      nosh: { tool: 'find', args: { path: P.lat, pattern: '*.txt', type: 'file' }, check },
    };
  }),
  scenario('mcp/stat', 'MCP stat small.txt', (root) => {
    const size = String(fs.statSync(join(root, P.lat, P.small)).size);
    const check = (t: string) => t.includes(size);
    return {
      fs: { tool: 'get_file_info', args: { path: join(root, P.lat, P.small) }, check },
      nosh: { tool: 'stat', args: { path: `${P.lat}/${P.small}` }, check },
    };
  }),
  scenario('mcp/write', 'MCP write a 1 KiB file', (root, system) => {
    const content = fs.readFileSync(join(root, P.lat, P.small), 'utf8');
    const check = (t: string) => t.length > 0;
    return {
      fs: { tool: 'write_file', args: { path: join(root, P.out, 'mcp-fs-write.txt'), content }, check },
      nosh: { tool: 'write', args: { path: `${P.out}/${system}-write.txt`, content }, check },
    };
  }),
  scenario('mcp/edit', 'MCP edit one line of a 1 KiB file', (root, system) => {
    const text = fs.readFileSync(join(root, P.lat, P.small), 'utf8');
    const lines = text.split('\n');
    const line = lines[3]!;
    // each call swaps the line for its marked form and back: every call finds its text once
    const toggle = (file: string, args: (from: string, to: string) => Record<string, unknown>) => {
      fs.mkdirSync(join(root, P.out), { recursive: true });
      fs.writeFileSync(join(root, P.out, file), text);
      let marked = false;
      return () => {
        const [from, to] = marked ? [`${line} EDITED`, line] : [line, `${line} EDITED`];
        marked = !marked;
        return args(from, to);
      };
    };
    const check = (t: string) => t.includes('EDITED');
    return {
      fs: { tool: 'edit_file', args: toggle('mcp-fs-edit.txt', (from, to) => ({ path: join(root, P.out, 'mcp-fs-edit.txt'), edits: [{ oldText: from, newText: to }] })), check },
      nosh: { tool: 'edit', args: toggle(`${system}-edit.txt`, (from, to) => ({ path: `${P.out}/${system}-edit.txt`, edits: [{ old_text: from, new_text: to }] })), check },
    };
  }),
];
