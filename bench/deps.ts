/**
 * The alternatives nosh is measured against are dependencies of the harness only
 * (bench/package.json, its own lock file). They are installed into bench/node_modules when
 * missing; if that cannot be done the harness still runs and marks them absent.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository root (this file runs as dist/bench/deps.js). */
export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const BENCH_DIR = join(REPO, 'bench');
export const NOSH_CLI = join(REPO, 'dist', 'src', 'cli', 'main.js');

const ALTERNATIVES = ['just-bash', 'rust-bash', '@modelcontextprotocol/server-filesystem', '@modelcontextprotocol/sdk', 'sirv'];

const benchRequire = createRequire(join(BENCH_DIR, 'package.json'));
const rootRequire = createRequire(join(REPO, 'package.json'));

function installed(name: string): boolean {
  return fs.existsSync(join(BENCH_DIR, 'node_modules', name, 'package.json'));
}

/** Install bench/package.json's dependencies when any is missing. Returns a note for the log. */
export function ensureAlternatives(allowInstall: boolean, log: (s: string) => void): string {
  const missing = ALTERNATIVES.filter((n) => !installed(n));
  if (missing.length === 0) return 'alternatives installed';
  if (!allowInstall) return `alternatives missing (${missing.join(', ')}); --no-install given`;
  log(`installing the alternatives into bench/node_modules (npm install --prefix bench): ${missing.join(', ')}`);
  const r = spawnSync('npm', ['install', '--prefix', BENCH_DIR, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', timeout: 300_000,
  });
  const still = ALTERNATIVES.filter((n) => !installed(n));
  if (still.length === 0) return 'alternatives installed now';
  return `could not install ${still.join(', ')} (npm exit ${r.status ?? r.signal}); they are marked absent`;
}

/** Load a bench-only package (CommonJS build), or null when absent. */
export function loadAlternative<T = any>(name: string): T | null { // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    return benchRequire(name) as T;
  } catch {
    return null;
  }
}

/** Load a bench-only package that is an ES module only (rust-bash), or null when absent. */
export async function importAlternative<T = any>(name: string): Promise<T | null> { // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    return await import(pathToFileURL(benchRequire.resolve(name)).href) as T;
  } catch {
    return null;
  }
}

/** The MCP SDK client: from the root package's dependencies once added, else from bench/. */
export function loadMcpSdk(): { Client: any; StdioClientTransport: any; from: string } | null { // eslint-disable-line @typescript-eslint/no-explicit-any
  for (const [req, from] of [[rootRequire, 'root'], [benchRequire, 'bench']] as const) {
    try {
      const { Client } = req('@modelcontextprotocol/sdk/client/index.js');
      const { StdioClientTransport } = req('@modelcontextprotocol/sdk/client/stdio.js');
      return { Client, StdioClientTransport, from };
    } catch { /* try the next */ }
  }
  return null;
}

export function mcpFilesystemServer(): string | null {
  const p = join(BENCH_DIR, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
  return fs.existsSync(p) ? p : null;
}

/** Does nosh have this command? (a folder commands/<name>/ in the tree). */
export function noshHasCommand(name: string): boolean {
  return fs.existsSync(join(REPO, 'commands', name, 'index.ts'));
}
