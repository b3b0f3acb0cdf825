/**
 * Start-up: time from spawning a server process to its first answer. nosh serve (skipped
 * until it exists) against the MCP filesystem server (initialize + one list_directory).
 * Also the one-shot CLI, `nosh exec 'cat small.txt'` (the whole process), against `node -e 0`
 * (Node's own start: #27 asks for at most 1.5x of it) and spawning GNU cat.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { P } from '../data.js';
import { NOSH_CLI, loadMcpSdk, mcpFilesystemServer } from '../deps.js';
import { summarise } from '../measure.js';
import { NoshServe } from '../systems.js';
import type { Cell, Ctx, Scenario } from './common.js';

async function repeat(n: number, fn: () => Promise<number | null>): Promise<number[] | null> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const ms = await fn();
    if (ms === null) return null;
    out.push(ms * 1e6);
  }
  return out;
}

async function mcpStart(root: string): Promise<number | null> {
  const sdk = loadMcpSdk();
  const server = mcpFilesystemServer();
  if (!sdk || !server) return null;
  const t0 = process.hrtime.bigint();
  const client = new sdk.Client({ name: 'nosh-bench', version: '0' });
  const transport = new sdk.StdioClientTransport({ command: process.execPath, args: [server, root], stderr: 'ignore' });
  await client.connect(transport);
  await client.callTool({ name: 'list_directory', arguments: { path: join(root, 'lat') } });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  await client.close();
  return ms;
}

/**
 * Spawn to exit, stdin from /dev/null: `nosh exec` reads a piped stdin to its end (as cat
 * would), so a pipe left open (execFile's default) would make it wait forever.
 */
function spawnMs(file: string, args: string[], cwd: string): Promise<number | null> {
  const t0 = process.hrtime.bigint();
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', () => resolve(null));
    child.on('close', (code) => resolve(code === 0 ? Number(process.hrtime.bigint() - t0) / 1e6 : null));
  });
}

/** A process that starts one worker thread and exits when it answers (startup/cli's floor column). */
const ONE_WORKER = "const { Worker } = require('node:worker_threads'); const w = new Worker('require(\\'node:worker_threads\\').parentPort.postMessage(1)', { eval: true }); w.once('message', () => w.terminate());";

export const startupScenarios: Scenario[] = [
  {
    id: 'startup/server',
    group: 'startup',
    title: 'server spawn to first answer',
    async run(ctx: Ctx) {
      const root = ctx.data.root;
      const cells: Cell[] = [];
      ctx.progress('startup/server: nosh serve');
      const serve = await repeat(ctx.profile.startupRuns, async () => {
        const s = new NoshServe(root);
        const ms = await s.start();
        await s.close();
        return ms;
      });
      cells.push(serve ? { system: 'serve', label: 'nosh serve', status: 'ok', stats: summarise(serve) }
        : { system: 'serve', label: 'nosh serve', status: 'skipped', note: 'skipped: nosh serve missing' });
      ctx.progress('startup/server: MCP filesystem server');
      const mcp = await repeat(ctx.profile.startupRuns, () => mcpStart(root).catch(() => null));
      cells.push(mcp ? { system: 'mcp-fs', label: 'MCP server-filesystem', status: 'ok', stats: summarise(mcp) }
        : { system: 'mcp-fs', label: 'MCP server-filesystem', status: 'absent', note: 'absent (MCP SDK or server not installed)' });
      return { id: 'startup/server', group: 'startup', title: this.title, better: 'lower', cells };
    },
  },
  {
    id: 'startup/cli',
    group: 'startup',
    title: "one-shot CLI: nosh exec 'cat small.txt'",
    async run(ctx: Ctx) {
      const cwd = join(ctx.data.root, P.lat);
      const cells: Cell[] = [];
      ctx.progress('startup/cli: nosh exec, node -e 0, node with one worker thread and GNU cat in turns');
      // In turns (one of each per round), so that a burst of load on the shared machine falls
      // on all three and the ratios hold better than the absolute figures.
      const runs: Record<'nosh' | 'node0' | 'node1w' | 'gnu', number[] | null> = { nosh: [], node0: [], node1w: [], gnu: [] };
      const take = async (k: keyof typeof runs, file: string, args: string[]) => {
        if (runs[k] === null) return;
        const ms = await spawnMs(file, args, cwd);
        if (ms === null) runs[k] = null;
        else runs[k]!.push(ms * 1e6);
      };
      // at least 5 rounds: a median of two process starts on a shared machine says little
      for (let i = 0; i < Math.max(5, ctx.profile.startupRuns); i++) {
        await take('nosh', process.execPath, [NOSH_CLI, 'exec', '--root', cwd, `cat ${P.small}`]);
        await take('node0', process.execPath, ['-e', '0']);
        // the floor of any design that runs the command in a worker thread (the contract's): Node
        // starting, one worker booting and answering, nothing of nosh loaded
        await take('node1w', process.execPath, ['-e', ONE_WORKER]);
        for (let j = 0; j < 3; j++) await take('gnu', 'cat', [P.small]);
      }
      const { nosh, node0, node1w, gnu } = runs;
      cells.push(nosh ? { system: 'nosh', label: 'nosh exec', status: 'ok', stats: summarise(nosh) }
        : { system: 'nosh', label: 'nosh exec', status: 'error', note: 'error: nosh exec failed' });
      cells.push(node0 ? { system: 'node0', label: 'node -e 0', status: 'ok', stats: summarise(node0) }
        : { system: 'node0', label: 'node -e 0', status: 'error', note: 'error' });
      cells.push(node1w ? { system: 'node1w', label: 'node + 1 worker', status: 'ok', stats: summarise(node1w) }
        : { system: 'node1w', label: 'node + 1 worker', status: 'error', note: 'error' });
      cells.push(gnu ? { system: 'gnu', label: 'GNU spawn', status: 'ok', stats: summarise(gnu) }
        : { system: 'gnu', label: 'GNU spawn', status: 'error', note: 'error' });
      return { id: 'startup/cli', group: 'startup', title: this.title, better: 'lower', cells };
    },
  },
];
