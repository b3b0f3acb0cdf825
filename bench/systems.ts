/**
 * The systems under test, behind one interface: run a command line in a folder of the data
 * set and return its stdout and exit code. Paths are the same for every system: the data
 * root is `/` (nosh's zone root, just-bash's file system root), cwd is inside it.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { createNosh, type Nosh } from '../src/index.js';
import { LineSplitter } from '../src/rpc/lines.js';
import { NOSH_CLI, importAlternative, loadAlternative } from './deps.js';

export interface Cmd {
  argv: string[];
  /** Virtual working directory, e.g. /lat. */
  cwd: string;
  /** Write stdout to this virtual path instead of returning it (big outputs). */
  outFile?: string;
}

export interface Outcome {
  stdout: string;
  exitCode: number;
  /** The command does not exist in this system. */
  missing?: boolean;
}

export interface System {
  id: string;
  label: string;
  /** null when usable, else why not (shown as the cell text). */
  unavailable: string | null;
  run(cmd: Cmd): Promise<Outcome>;
  /** stdout for a command that wrote to cmd.outFile: the file's sha256 and size. */
  readOut(path: string): Promise<string>;
  close(): Promise<void>;
}

/** Quote a word for a command line (nosh's tokenizer and bash agree on single quotes). */
export function quote(w: string): string {
  return /^[A-Za-z0-9_./=,:+-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}
export function line(argv: string[]): string {
  return argv.map(quote).join(' ');
}

export function digest(buf: Buffer | string): string {
  const b = typeof buf === 'string' ? Buffer.from(buf) : buf;
  return `sha256:${createHash('sha256').update(b).digest('hex').slice(0, 16)} (${b.length} bytes)`;
}

function hostOut(root: string) {
  return async (path: string) => digest(await fs.promises.readFile(join(root, path)));
}

export function isMissing(exitCode: number, stderr: string): boolean {
  return exitCode === 127 && /command not found/.test(stderr);
}

// ---------------------------------------------------------------- nosh, library API

export class NoshLib implements System {
  id = 'nosh';
  label = 'nosh (library)';
  unavailable: string | null = null;
  readOut: (p: string) => Promise<string>;
  private constructor(readonly nosh: Nosh, root: string) {
    this.readOut = hostOut(root);
  }
  static async create(root: string): Promise<NoshLib> {
    return new NoshLib(await createNosh({ root }), root);
  }
  /** The library with the content cache of repeated searches (limits.contentCacheMb). */
  static async cached(root: string): Promise<NoshLib> {
    const s = new NoshLib(await createNosh({ root, limits: { contentCacheMb: 64 } }), root);
    s.id = 'nosh-cache';
    s.label = 'nosh (content cache)';
    return s;
  }
  async run(cmd: Cmd): Promise<Outcome> {
    const res = await this.nosh.exec({ command: line(cmd.argv), cwd: cmd.cwd },
      cmd.outFile ? { stdoutFile: cmd.outFile, timeoutMs: 300_000 } : { timeoutMs: 300_000 });
    if (!res.success) throw new Error(`${res.error.code}: ${res.error.message}`);
    const d = res.data;
    return { stdout: d.stdout, exitCode: d.exit_code, missing: isMissing(d.exit_code, d.stderr) };
  }
  async close(): Promise<void> {
    await this.nosh.close();
  }
}

// ---------------------------------------------------------------- GNU tools, spawned

export class Gnu implements System {
  id = 'gnu';
  label = 'GNU spawn';
  unavailable: string | null = null;
  readOut: (p: string) => Promise<string>;
  /** /opt/ref-bin first when present: the reference builds the issues name (jq 1.7 there; the machine's jq is 1.6). */
  private readonly env = { PATH: [...(fs.existsSync('/opt/ref-bin') ? ['/opt/ref-bin'] : []), process.env.PATH ?? '/usr/bin:/bin'].join(':'), LC_ALL: 'C', TZ: 'UTC' };
  constructor(private readonly root: string) {
    this.readOut = hostOut(root);
  }
  run(cmd: Cmd): Promise<Outcome> {
    const cwd = join(this.root, cmd.cwd);
    const [file, ...args] = cmd.argv;
    if (cmd.outFile) {
      return new Promise((resolve, reject) => {
        const fd = fs.openSync(join(this.root, cmd.outFile!), 'w');
        const child = spawn(file!, args, { cwd, env: this.env, stdio: ['ignore', fd, 'ignore'] });
        child.on('error', (e) => { fs.closeSync(fd); reject(e); });
        child.on('close', (code) => { fs.closeSync(fd); resolve({ stdout: '', exitCode: code ?? -1 }); });
      });
    }
    return new Promise((resolve) => {
      execFile(file!, args, { cwd, env: this.env, maxBuffer: 1 << 30, encoding: 'utf8' }, (err, stdout) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 127) : 0;
        resolve({ stdout, exitCode: code, missing: (err as { code?: unknown } | null)?.code === 'ENOENT' });
      });
    });
  }
  async close(): Promise<void> { /* nothing kept */ }
}

// ---------------------------------------------------------------- just-bash

interface JustBash {
  Bash: new (o: Record<string, unknown>) => { exec(script: string, o?: Record<string, unknown>): Promise<{ stdout: string; stderr: string; exitCode: number }>; fs: { readFile(p: string): Promise<string> } };
  ReadWriteFs: new (o: Record<string, unknown>) => unknown;
}

const JB_LIMITS = {
  maxOutputSize: 1 << 30, maxFileSystemBytes: 4 * (1 << 30), maxExecutionTimeMs: 300_000,
  maxCommandCount: 1_000_000, maxSourceBytes: 1 << 20,
};

export class JustBashSystem implements System {
  unavailable: string | null = null;
  private bash: InstanceType<JustBash['Bash']> | null = null;
  private constructor(readonly id: string, readonly label: string, private readonly make: (() => InstanceType<JustBash['Bash']>) | null, private readonly root: string) {
    if (!make) this.unavailable = 'absent (just-bash not installed)';
  }
  /** just-bash over its in-memory file system, holding the given folders of the data set. */
  static memory(root: string, folders: string[]): JustBashSystem {
    const jb = loadAlternative<JustBash>('just-bash');
    const make = jb && (() => {
      const files: Record<string, () => Uint8Array> = {};
      for (const f of folders) addLazy(files, root, f, (h) => fs.readFileSync(h));
      files['/out/.keep'] = () => new Uint8Array(0);
      return new jb.Bash({ files, cwd: '/', executionLimits: JB_LIMITS });
    });
    return new JustBashSystem('jb-mem', 'just-bash mem', make, root);
  }
  /** just-bash over its real-disk file system (ReadWriteFs) rooted at the data set. */
  static disk(root: string): JustBashSystem {
    const jb = loadAlternative<JustBash>('just-bash');
    const make = jb && (() => new jb.Bash({
      fs: new jb.ReadWriteFs({ root, maxFileReadSize: 1 << 30 }), cwd: '/', executionLimits: JB_LIMITS,
    }));
    return new JustBashSystem('jb-disk', 'just-bash disk', make, root);
  }
  private get b() {
    this.bash ??= this.make!();
    return this.bash;
  }
  async run(cmd: Cmd): Promise<Outcome> {
    const script = line(cmd.argv) + (cmd.outFile ? ` > ${quote(cmd.outFile)}` : '');
    const r = await this.b.exec(script, { cwd: cmd.cwd });
    return { stdout: r.stdout, exitCode: r.exitCode, missing: isMissing(r.exitCode, r.stderr) };
  }
  async readOut(path: string): Promise<string> {
    if (this.id === 'jb-disk') return hostOut(this.root)(path);
    return digest(await this.b.fs.readFile(path));
  }
  async close(): Promise<void> {
    this.bash = null;
  }
}

/** Files of a host folder as lazy entries: read from disk on first access, then kept in memory. */
function addLazy<T>(files: Record<string, () => T>, root: string, vdir: string, read: (host: string) => T): void {
  const walk = (host: string, v: string) => {
    for (const e of fs.readdirSync(host, { withFileTypes: true })) {
      const h = join(host, e.name);
      if (e.isDirectory()) walk(h, `${v}/${e.name}`);
      else if (e.isFile()) files[`${v}/${e.name}`] = () => read(h);
    }
  };
  walk(join(root, vdir), vdir === '/' ? '' : vdir);
}

// ---------------------------------------------------------------- rust-bash

interface RustBashBash {
  exec(script: string, o?: Record<string, unknown>): Promise<{ stdout: string; stderr: string; exitCode: number }>;
  readFile(path: string): string;
}
interface RustBash {
  Bash: { create(backend: unknown, o: Record<string, unknown>): Promise<RustBashBash> };
  tryLoadNative(): Promise<boolean>;
  initWasm(): Promise<void>;
  createNativeBackend: unknown;
  createWasmBackend: unknown;
}

const RB_LIMITS = {
  maxCommandCount: 1_000_000, maxExecutionTimeSecs: 300, maxOutputSize: 1 << 30, maxStringLength: 1 << 30,
  maxHeredocSize: 1 << 20, maxGlobResults: 1_000_000,
};

/**
 * npm `rust-bash` (Rust, a prebuilt native addon; WASM where the addon does not load) over
 * its in-memory file system holding the given folders of the data set, as text. It runs in
 * the caller's thread: a speed anchor for in-memory work (issue #27), not a model.
 */
export class RustBashSystem implements System {
  id = 'rb-mem';
  label = 'rust-bash mem';
  unavailable: string | null = null;
  private bash: Promise<RustBashBash> | null = null;
  private constructor(private readonly mod: RustBash | null, private readonly root: string, private readonly folders: string[]) {
    if (!mod) this.unavailable = 'absent (rust-bash not installed)';
  }
  static async memory(root: string, folders: string[]): Promise<RustBashSystem> {
    return new RustBashSystem(await importAlternative<RustBash>('rust-bash'), root, folders);
  }
  private b(): Promise<RustBashBash> {
    this.bash ??= (async () => {
      const m = this.mod!;
      const native = await m.tryLoadNative();
      if (!native) await m.initWasm();
      if (!native) this.label = 'rust-bash mem (wasm)';
      const files: Record<string, () => string> = {};
      for (const f of this.folders) addLazy(files, this.root, f, (h) => fs.readFileSync(h, 'latin1'));
      files['/out/.keep'] = () => '';
      return m.Bash.create(native ? m.createNativeBackend : m.createWasmBackend, { files, cwd: '/', executionLimits: RB_LIMITS });
    })();
    return this.bash;
  }
  async run(cmd: Cmd): Promise<Outcome> {
    const script = line(cmd.argv) + (cmd.outFile ? ` > ${quote(cmd.outFile)}` : '');
    const r = await (await this.b()).exec(script, { cwd: cmd.cwd });
    return { stdout: r.stdout, exitCode: r.exitCode, missing: isMissing(r.exitCode, r.stderr) };
  }
  async readOut(path: string): Promise<string> {
    return digest(Buffer.from((await this.b()).readFile(path), 'latin1'));
  }
  async close(): Promise<void> {
    this.bash = null;
  }
}

// ---------------------------------------------------------------- nosh serve (JSON-RPC on stdio)

/**
 * `nosh serve`: JSON-RPC 2.0, one message a line. Until the engine has it, the probe fails and
 * the system is marked skipped. Assumed call: method "exec", params {command, cwd, stdout_file?}.
 */
export class NoshServe implements System {
  id = 'serve';
  label = 'nosh serve';
  unavailable: string | null = 'skipped: nosh serve missing';
  readOut: (p: string) => Promise<string>;
  private child: ChildProcess | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, (msg: { result?: unknown; error?: { code: number; message: string } }) => void>();
  constructor(private readonly root: string) {
    this.readOut = hostOut(root);
  }

  /** Spawn `nosh serve` and wait for its first answer; returns ms to that answer, or null. */
  async start(timeoutMs = 10_000): Promise<number | null> {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, [NOSH_CLI, 'serve', '--root', this.root], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    let stderr = '';
    child.stderr!.on('data', (d) => { stderr += d; });
    // Lines split synchronously (the server's own LineSplitter), as the MCP SDK's client
    // does: readline added about 40 µs per answer.
    const lines = new LineSplitter(Number.MAX_SAFE_INTEGER, (l) => {
      try {
        const msg = JSON.parse(l);
        const cb = this.pending.get(msg.id);
        if (cb) { this.pending.delete(msg.id); cb(msg); }
      } catch { /* not a JSON-RPC line */ }
    }, () => {});
    child.stdout!.on('data', (chunk: Buffer) => lines.push(chunk));
    const exited = new Promise<'exit'>((r) => child.once('exit', () => r('exit')));
    child.once('error', () => { /* reported by exit */ });
    const first = this.call('exec', { command: 'true', cwd: '/' });
    const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), timeoutMs).unref());
    const r = await Promise.race([first.then((m) => m, () => 'error' as const), exited, timer]);
    if (r === 'exit' || r === 'timeout' || r === 'error') {
      this.unavailable = /unknown command/.test(stderr) || r === 'exit' ? 'skipped: nosh serve missing' : `skipped: nosh serve gave no answer (${r})`;
      await this.close();
      return null;
    }
    if (r.error) {
      this.unavailable = `skipped: nosh serve: ${r.error.message}`;
      await this.close();
      return null;
    }
    this.unavailable = null;
    return Number(process.hrtime.bigint() - t0) / 1e6;
  }

  /** One JSON-RPC request; resolves with the response message. */
  call(method: string, params: unknown): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, resolve);
      this.child!.stdin!.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n', (e) => { if (e) reject(e); });
    });
  }

  async run(cmd: Cmd): Promise<Outcome> {
    const params: Record<string, unknown> = { command: line(cmd.argv), cwd: cmd.cwd };
    if (cmd.outFile) params.stdout_file = cmd.outFile;
    const msg = await this.call('exec', params);
    if (msg.error) throw new Error(msg.error.message);
    const env = msg.result as { success: boolean; data?: { stdout: string; exit_code: number; stderr: string }; error?: { code: string; message: string } };
    if (!env.success || !env.data) throw new Error(`${env.error?.code}: ${env.error?.message}`);
    return { stdout: env.data.stdout, exitCode: env.data.exit_code, missing: isMissing(env.data.exit_code, env.data.stderr) };
  }

  async close(): Promise<void> {
    const c = this.child;
    this.child = null;
    if (!c || c.exitCode !== null) return;
    c.stdin?.end();
    const done = new Promise((r) => c.once('exit', r));
    const t = setTimeout(() => c.kill('SIGKILL'), 2000);
    await done;
    clearTimeout(t);
  }
}
