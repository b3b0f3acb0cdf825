import * as posix from 'node:path/posix';
import { defineCommand, versionText, type CommandContext, type CommandDef } from '../../src/command/index.js';
import { NoshError } from '../../src/errors.js';
import { valueLimit } from '../../src/runtime/memory.js';
import { VfsError } from '../../src/vfs/index.js';
import { jqFiles } from './args.js';
import { HIDDEN, createInstance, isWasmError, type EmFs, type JqInstance } from './wasm.js';

/**
 * jq 1.7.1 itself (its C sources compiled to WebAssembly: jq-wasm), run in the worker.
 * jq sees an in-memory file system only: the files its argv names (inputs, -f, --slurpfile,
 * --rawfile) are read through the Vfs and placed at their zone paths before the run, and
 * dropped with the instance after it (one instance per run). stdin is read whole first, within the
 * same buffer limit as the files (jq's C code reads its input synchronously inside callMain, so a
 * pipe cannot feed it piece by piece: the whole input is there before it starts, several
 * top-level values included); output is collected, then written.
 */

/** Heap ceiling of the wasm: the build's 256 MiB, or half the worker's budget if smaller. */
const BUILD_MAX = 256 * 1024 * 1024;
const PAGE = 64 * 1024;
const STDERR_CAP = 64 * 1024;

/**
 * Every run gets a fresh instance (jq's C state, such as stdin's EOF flag and its static
 * options, is not meant to outlive main()): a spare is made after each run, so the next one
 * does not wait for it (a few ms: the wasm is compiled once per worker).
 */
let spare: { heapMax: number; instance: Promise<JqInstance> } | undefined;

function heapMax(): number {
  const half = Math.floor((valueLimit() * 2) / PAGE) * PAGE;
  return Math.max(16 * 1024 * 1024, Math.min(BUILD_MAX, half));
}

async function takeInstance(max: number): Promise<JqInstance> {
  const s = spare;
  spare = undefined;
  if (s && s.heapMax === max) {
    try {
      return await s.instance;
    } catch {
      // made anew below
    }
  }
  return createInstance(max);
}

function prepareSpare(max: number): void {
  const instance = createInstance(max);
  instance.catch(() => { if (spare?.instance === instance) spare = undefined; });
  spare = { heapMax: max, instance };
}

class OutputFull extends Error {}

/** Bytes collected up to a cap; past it, `stop` ends the run (OutputFull), else the rest is dropped. */
class Collector {
  private chunks: Buffer[] = [];
  total = 0;
  constructor(private readonly cap: number, private readonly stop: boolean) {}
  push = (bytes: Uint8Array): void => {
    const room = this.cap - this.total;
    const take = Math.min(room, bytes.length);
    if (take > 0) this.chunks.push(Buffer.from(bytes.subarray(0, take)));
    this.total += take;
    if (take < bytes.length && this.stop) throw new OutputFull();
  };
  result(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

const def: CommandDef = defineCommand({
  name: 'jq',
  summary: 'Process JSON inputs with a jq program (jq 1.7.1 compiled to WebAssembly).',
  usage: '[OPTION]... FILTER [FILE]...',
  mutates: false,
  parse: 'raw',
  reference: 'jq 1.7.1',
  flags: [],
  async run(ctx) {
    const scan = jqFiles(ctx.args);
    if (scan.version) {
      await ctx.stdout.write(versionText(def));
      return 0;
    }
    if (scan.runTests) {
      await ctx.stderr.write('jq: --run-tests is not available in nosh\n');
      return 2;
    }
    if (scan.libraryDirs.length > 0) {
      await ctx.stderr.write('jq: -L (module search paths) is not available in nosh: put the definitions in the program or in a -f file\n');
      return 2;
    }
    const limit = ctx.limits.maxBufferBytes;
    const stdin = await readStdin(ctx, limit);
    const placed = placeFiles(ctx, scan.files, limit - stdin.length);
    const max = heapMax();
    const inst = await takeInstance(max);
    const room = ctx.stdout.room?.();
    const out = new Collector(room === undefined || !Number.isFinite(room) ? limit : Math.min(limit, room + 1), true);
    const err = new Collector(STDERR_CAP, false);
    inst.io.stdin = stdin;
    inst.io.stdinAt = 0;
    inst.io.out = out.push;
    inst.io.err = err.push;
    let code: number;
    let full = false;
    try {
      writeFiles(inst.fs, ctx.cwd, placed);
      code = inst.module.callMain([...ctx.args]);
    } catch (e) {
      if (e instanceof OutputFull) {
        full = true;
        code = 5;
      } else if (isWasmError(e) || e instanceof RangeError) {
        throw new NoshError('MEMORY_LIMIT', `jq: the program or its input needed more than the ${max >> 20} MB jq may use`,
          'Give jq less at once: a smaller file, --stream, or a program that keeps less (limit, first, reduce).', { memory_mb: max >> 20 });
      } else {
        throw e;
      }
    } finally {
      inst.io.stdin = new Uint8Array(0);
      inst.io.out = () => {};
      inst.io.err = () => {};
      prepareSpare(max);
    }
    await ctx.stdout.write(out.result());
    if (err.total > 0) await ctx.stderr.write(err.result());
    if (full) await ctx.warn(`error: output larger than ${limit} bytes (the buffer limit); stopped`);
    return code;
  },
});

export default def;

/** stdin whole, refused past `limit` bytes (the buffer limit the files are held to), not read on. */
async function readStdin(ctx: CommandContext, limit: number): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of ctx.stdin) {
    total += chunk.length;
    if (total > limit) {
      throw new NoshError('FILE_TOO_LARGE', `jq: standard input is larger than the ${limit}-byte buffer limit (jq reads its input whole)`,
        'Give jq a file or a smaller input: select the values first (grep, head), or split the input and run jq on each part.');
    }
    parts.push(chunk);
  }
  return Buffer.concat(parts, total);
}

type Placed = { path: string; data?: Buffer; dir?: boolean; denied?: boolean };

/** Read every named file through the Vfs (within `budget` bytes in all). */
function placeFiles(ctx: CommandContext, names: string[], budget: number): Placed[] {
  const placed: Placed[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    const path = posix.resolve(ctx.cwd, name);
    if (seen.has(path)) continue;
    seen.add(path);
    try {
      const st = ctx.fs.stat(name, ctx.cwd);
      if (st.isDirectory()) {
        placed.push({ path, dir: true });
        continue;
      }
      const data = ctx.fs.readFile(name, ctx.cwd);
      budget -= data.length;
      if (budget < 0) {
        throw new NoshError('FILE_TOO_LARGE', `jq: the inputs are larger than the ${ctx.limits.maxBufferBytes}-byte buffer limit`,
          'Give jq smaller files (split them, or select fields with grep/head first).');
      }
      placed.push({ path, data });
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
      void e.reason; // a refusal is reported to the audit log when its reason is read
      if (e.errno === 'ENOENT' || e.errno === 'ENOTDIR') continue;
      placed.push({ path, denied: true });
    }
  }
  return placed;
}

function writeFiles(fs: EmFs, cwd: string, placed: Placed[]): void {
  fs.mkdirTree(cwd);
  for (const p of placed) {
    if (p.path === HIDDEN || p.path.startsWith(HIDDEN + '/')) continue;
    if (p.dir) {
      fs.mkdirTree(p.path);
      continue;
    }
    fs.mkdirTree(posix.dirname(p.path));
    fs.writeFile(p.path, p.data ?? new Uint8Array(0));
    // jq reports "Permission denied" for a file the zone refuses
    if (p.denied) fs.chmod(p.path, 0);
  }
  fs.chdir(cwd);
}
