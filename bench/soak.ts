/**
 * Soak test (`npm run soak`, not part of npm test): one `nosh serve --base TMP` on stdio, N
 * concurrent clients for S seconds issuing mixed calls, each client on its own files, with a
 * model of every file's expected content. At the end every file on disk is checked against
 * the model and every request must have had exactly one reply. Prints calls/s, latency
 * percentiles, errors by code and mismatches; exits 1 on a lost or duplicated reply, a content
 * mismatch or an unexpected error.
 *
 *   node dist/bench/soak.js [--seconds 60] [--clients 32] [--files 4] [--seed 1] [--keep]
 *   (or SOAK_SECONDS / SOAK_CLIENTS / SOAK_FILES)
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));

function flag(name: string, env: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const raw = i >= 0 ? process.argv[i + 1] : process.env[env];
  const n = raw === undefined ? dflt : Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name}: a positive number, not ${raw}`);
  return n;
}

const SECONDS = flag('seconds', 'SOAK_SECONDS', 60);
const CLIENTS = flag('clients', 'SOAK_CLIENTS', 32);
const FILES = flag('files', 'SOAK_FILES', 4);
let seed = flag('seed', 'SOAK_SEED', 1) >>> 0;
const KEEP = process.argv.includes('--keep');

/** mulberry32: the same run for the same seed. */
function rand(): number {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

// ---- the server and the wire ----

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'nosh-soak-'));
const server = spawn(process.execPath, [MAIN, 'serve', '--base', base], { stdio: ['pipe', 'pipe', 'inherit'] });
const pending = new Map<number, { resolve: (msg: any) => void; sent: bigint }>();
/** Replies per id: exactly one is expected. */
const replies = new Map<number, number>();
let strayReplies = 0;
let nextId = 1;
const latencies: number[] = [];
/** Requests sent by the clients (the warm-up call not counted). */
let calls = -1;

let buf = '';
server.stdout.setEncoding('utf8');
server.stdout.on('data', (d: string) => {
  buf += d;
  for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    let msg: any;
    try {
      msg = JSON.parse(line);
    } catch {
      strayReplies++;
      continue;
    }
    const id = msg.id as number;
    replies.set(id, (replies.get(id) ?? 0) + 1);
    const p = pending.get(id);
    if (!p) {
      strayReplies++;
      continue;
    }
    pending.delete(id);
    latencies.push(Number(process.hrtime.bigint() - p.sent) / 1e6);
    p.resolve(msg);
  }
});

function call(method: string, params: Record<string, unknown>): Promise<any> {
  const id = nextId++;
  calls++;
  return new Promise((resolve) => {
    pending.set(id, { resolve, sent: process.hrtime.bigint() });
    server.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });
}

// ---- the model and the mix of calls ----

/** Expected content of every file (undefined: deleted), by path inside the storage zone. */
const model = new Map<string, string | undefined>();
const errors = new Map<string, number>();
const mismatches: string[] = [];
const ops = new Map<string, number>();

function countError(what: string): void {
  errors.set(what, (errors.get(what) ?? 0) + 1);
}

function mismatch(text: string): void {
  if (mismatches.length < 20) mismatches.push(text);
  else mismatches.length++;
}

/** The envelope of a reply, or null (counted) when it failed. */
function envelope(op: string, msg: any): any {
  if (msg.error) {
    countError(`${op}:rpc ${msg.error.code}`);
    return null;
  }
  if (!msg.result?.success) {
    countError(`${op}:${msg.result?.error?.code ?? 'unknown'}`);
    return null;
  }
  return msg.result;
}

let tokens = 0;
const lineOf = (c: number) => `c${c} t${tokens++} ${Math.floor(rand() * 1e9).toString(36)}`;
const freshText = (c: number) => Array.from({ length: 1 + Math.floor(rand() * 6) }, () => lineOf(c) + '\n').join('');

async function step(c: number): Promise<void> {
  const file = `c${c}/f${Math.floor(rand() * FILES)}.txt`;
  const have = model.get(file);
  // A missing file, or one grown past 60 lines, is written afresh.
  const op = have === undefined || have.split('\n').length > 60 ? 'write'
    : pick(['write', 'append', 'edit', 'read', 'cat', 'grep', 'sed', 'list', 'delete', 'read', 'cat', 'append'] as const);
  ops.set(op, (ops.get(op) ?? 0) + 1);
  switch (op) {
    case 'write': {
      const text = freshText(c);
      if (envelope(op, await call('write', { path: file, content: text, create_dirs: true }))) model.set(file, text);
      return;
    }
    case 'append': {
      const text = freshText(c);
      if (envelope(op, await call('write', { path: file, content: text, mode: 'append' }))) model.set(file, have + text);
      return;
    }
    case 'edit': {
      const lines = have!.split('\n').filter((l) => l !== '');
      const old = pick(lines);
      const neu = lineOf(c);
      if (envelope(op, await call('edit', { path: file, edits: [{ old_text: old, new_text: neu }] }))) model.set(file, have!.replace(old, neu));
      return;
    }
    case 'sed': {
      // every token is unique: t123 -> s123 changes its line
      const withToken = have!.split('\n').filter((l) => /\bt\d+\b/.test(l));
      const m = withToken.length > 0 ? /\bt(\d+)\b/.exec(pick(withToken)) : null;
      if (!m) {
        ops.set(op, ops.get(op)! - 1);
        return;
      }
      const r = envelope(op, await call('exec', { command: `sed -i 's/\\bt${m[1]}\\b/s${m[1]}/' ${file}` }));
      // as sed does: the first match on each line
      const re = new RegExp(`\\bt${m[1]}\\b`);
      if (r && r.data.exit_code === 0) model.set(file, have!.split('\n').map((l) => l.replace(re, `s${m[1]}`)).join('\n'));
      else if (r) countError(`${op}:exit ${r.data.exit_code}`);
      return;
    }
    case 'read': {
      const r = envelope(op, await call('read', { path: file }));
      if (r && r.data.content !== model.get(file)) mismatch(`read ${file}`);
      return;
    }
    case 'cat': {
      const r = envelope(op, await call('exec', { command: `cat ${file}` }));
      if (r && (r.data.exit_code !== 0 || r.data.stdout !== model.get(file))) mismatch(`cat ${file}`);
      return;
    }
    case 'grep': {
      const r = envelope(op, await call('exec', { command: `grep -c ^c${c} ${file}` }));
      const want = model.get(file)!.split('\n').filter((l) => l.startsWith(`c${c}`)).length;
      if (r && r.data.stdout !== `${want}\n`) mismatch(`grep ${file}: ${JSON.stringify(r.data.stdout)} for ${want}`);
      return;
    }
    case 'list': {
      const r = envelope(op, await call('list', { path: `c${c}` }));
      const want = [...model].filter(([p, v]) => v !== undefined && p.startsWith(`c${c}/`)).map(([p]) => p.slice(p.indexOf('/') + 1)).sort();
      const got = r?.data.entries.map((e: { name: string }) => e.name).sort();
      if (r && JSON.stringify(got) !== JSON.stringify(want)) mismatch(`list c${c}: ${got} for ${want}`);
      return;
    }
    case 'delete': {
      if (envelope(op, await call('delete', { path: file }))) model.set(file, undefined);
      return;
    }
  }
}

async function client(c: number, until: number): Promise<void> {
  while (Date.now() < until) await step(c);
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

async function main(): Promise<void> {
  // one call first: the server is up and the storage zone made
  envelope('warmup', await call('exec', { command: 'true' }));
  const t0 = Date.now();
  const until = t0 + SECONDS * 1000;
  await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c, until)));
  const elapsed = (Date.now() - t0) / 1000;
  server.stdin.end();
  await new Promise((r) => server.once('exit', r));

  // Every request answered exactly once.
  const sent = nextId - 1;
  let lost = 0;
  let duplicated = 0;
  for (let id = 1; id <= sent; id++) {
    const n = replies.get(id) ?? 0;
    if (n === 0) lost++;
    else if (n > 1) duplicated++;
  }
  // Every file on disk as the model says.
  const storage = path.join(base, 'users', 'default', 'Storage');
  let checked = 0;
  for (const [file, want] of model) {
    let got: string | undefined;
    try { got = fs.readFileSync(path.join(storage, file), 'utf8'); } catch { got = undefined; }
    checked++;
    if (got !== want) mismatch(`disk ${file}: ${JSON.stringify(got?.slice(0, 60))} for ${JSON.stringify(want?.slice(0, 60))}`);
  }
  const leftovers = fs.readdirSync(storage, { recursive: true }).map(String).filter((n) => n.includes('.nosh-tmp-'));

  const sorted = latencies.sort((a, b) => a - b);
  const out = {
    seconds: Number(elapsed.toFixed(1)), clients: CLIENTS, files: model.size, calls, requests: sent,
    calls_per_s: Math.round(calls / elapsed),
    latency_ms: { p50: +percentile(sorted, 0.5).toFixed(2), p90: +percentile(sorted, 0.9).toFixed(2), p99: +percentile(sorted, 0.99).toFixed(2), max: +(sorted.at(-1) ?? 0).toFixed(2) },
    ops: Object.fromEntries([...ops].sort()), errors: Object.fromEntries(errors), lost, duplicated, stray_replies: strayReplies,
    files_checked: checked, mismatches: mismatches.length, temp_files_left: leftovers.length,
  };
  console.log(JSON.stringify(out, null, 1));
  for (const m of mismatches.filter(Boolean)) console.error('mismatch:', m);
  if (!KEEP) fs.rmSync(base, { recursive: true, force: true });
  const failed = lost + duplicated + strayReplies + mismatches.length + errors.size + leftovers.length > 0;
  if (failed) console.error('soak: FAILED');
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  server.kill();
  process.exit(2);
});
