import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { runInThisContext } from 'node:vm';

/**
 * jq 1.7.1 compiled to WebAssembly (the npm package jq-wasm), loaded by our own thin loader.
 *
 * The package's wrapper runs every query with `/dev/stdin` appended to argv, collects output
 * one byte at a time into a string and trims it, so it cannot give jq's bytes and exit codes.
 * Its Emscripten glue (dist/build/jq.js) is kept, with four small source edits made here:
 * - the wrapper's own Module fields (stdin/stdout closures, raw()) are replaced by ours: the
 *   standard streams are callbacks into the current run, and FS and ENV are reachable;
 * - the environment is empty: Emscripten's fake one (USER=web_user, HOME, PATH, LANG and `_`,
 *   which would be the host script's path) is removed key by key, so `env` and `$ENV` are {};
 * - quit_ does not set the host's process.exitCode;
 * - the heap's maximum is ours (the worker's memory budget), not the build's 256 MiB.
 * It is evaluated with a `require` that gives only `path` and `crypto` (for /dev/random):
 * no `fs`, so the only file system jq sees is its in-memory MEMFS, filled by the caller.
 */

/** The WebAssembly API as used here (the project's lib settings do not declare it). */
interface WasmApi {
  compile(bytes: Uint8Array): Promise<object>;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (...a: never[]) => { buffer: ArrayBuffer };
  RuntimeError: new (...a: never[]) => Error;
}
const WA = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** jq died inside the wasm (Emscripten's abort: out of memory, an assertion). */
export function isWasmError(e: unknown): boolean {
  return e instanceof WA.RuntimeError;
}

export interface JqModule {
  callMain(args: string[]): number;
  HEAPU8: Uint8Array;
}

/** Emscripten's FS object, the part we use. */
export interface EmFs {
  mkdirTree(path: string): void;
  writeFile(path: string, data: Uint8Array): void;
  chdir(path: string): void;
  readdir(path: string): string[];
  rename(from: string, to: string): void;
  rmdir(path: string): void;
  unlink(path: string): void;
  chmod(path: string, mode: number): void;
  isDir(mode: number): boolean;
  stat(path: string): { mode: number };
  lstat(path: string): { mode: number };
}

/** What a run sees: its stdin bytes and where its output bytes go (views into the wasm heap: copy them). */
export interface RunIo {
  stdin: Uint8Array;
  stdinAt: number;
  out(bytes: Uint8Array): void;
  err(bytes: Uint8Array): void;
}

type Bulk = { bulk: (heap: Int8Array, offset: number, length: number) => number | void };

function stream<F extends () => void>(fn: F, bulk: Bulk['bulk']): F & Bulk {
  return Object.assign(fn, { bulk });
}

const view = (heap: Int8Array, offset: number, length: number) => new Uint8Array(heap.buffer, heap.byteOffset + offset, length);

export interface JqInstance {
  module: JqModule;
  fs: EmFs;
  io: RunIo;
  memory(): number;
}

/** Emscripten's folders that jq's run does not use: moved under this name, out of the way of the zone's paths. */
export const HIDDEN = '/\u0001emscripten';

const PATCHES: [string, string][] = [
  // the standard streams move whole buffers (the device ops call back once per byte), and an
  // exception from our side (the output is full) stops jq instead of becoming EIO it ignores
  ['read(stream, buffer, offset, length, pos) { var bytesRead = 0; for (var i = 0; i < length; i++) {',
    'read(stream, buffer, offset, length, pos) { if (input.bulk) return input.bulk(buffer, offset, length); var bytesRead = 0; for (var i = 0; i < length; i++) {'],
  ['write(stream, buffer, offset, length, pos) { for (var i = 0; i < length; i++) {',
    'write(stream, buffer, offset, length, pos) { if (output.bulk) { output.bulk(buffer, offset, length); return length; } for (var i = 0; i < length; i++) {'],
  ['var getHeapMax = () => 268435456;', 'var getHeapMax = () => Module.__heapMax;'],
  ['quit_ = (status, toThrow) => { process.exitCode = status; throw toThrow; };', 'quit_ = (status, toThrow) => { throw toThrow; };'],
];
const OWN_MODULE = 'Module.__expose = () => ({ FS, ENV });\n'
  + 'Module.preRun = () => { for (const k of ["USER", "LOGNAME", "PATH", "PWD", "HOME", "LANG", "_"]) ENV[k] = undefined;'
  + ' FS.init(Module.__in, Module.__out, Module.__err); };\n';

type Factory = (arg: Record<string, unknown>) => Promise<JqModule & { __expose(): { FS: EmFs } }>;

let factory: Factory | undefined;
let compiled: Promise<object> | undefined;

function loadFactory(): { factory: Factory; wasm: Uint8Array } {
  const file = createRequire(import.meta.url).resolve('jq-wasm/dist/build/jq.js');
  let src = readFileSync(file, 'utf8');
  const start = src.indexOf('let stdinString = "";');
  const end = src.indexOf('var moduleOverrides = Object.assign({}, Module);');
  if (start < 0 || end < start) throw new Error('jq-wasm: unexpected build (the loader expects jq-wasm 1.0.1)');
  src = src.slice(0, start) + OWN_MODULE + src.slice(end);
  for (const [from, to] of PATCHES) {
    if (!src.includes(from)) throw new Error('jq-wasm: unexpected build (the loader expects jq-wasm 1.0.1)');
    src = src.replace(from, to);
  }
  const b64 = /"data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)"/.exec(src);
  if (!b64) throw new Error('jq-wasm: no embedded wasm');
  const wasm = Buffer.from(b64[1]!, 'base64');
  const only = (name: string): unknown => {
    if (name === 'path') return createRequire(import.meta.url)('node:path');
    if (name === 'crypto') return createRequire(import.meta.url)('node:crypto');
    if (name === 'fs') return {};
    throw new Error(`jq-wasm: no module ${name}`);
  };
  const mod: { exports: unknown } = { exports: {} };
  const wrap = runInThisContext(`(function (require, module, exports, __filename, __dirname) {${src}\n})`, { filename: 'jq-wasm.js' }) as
    (r: unknown, m: unknown, e: unknown, f: string, d: string) => void;
  wrap(only, mod, mod.exports, '/jq.js', '/');
  return { factory: mod.exports as Factory, wasm };
}

/** A fresh jq instance (a few ms: the wasm is compiled once per worker). */
export async function createInstance(heapMax: number): Promise<JqInstance> {
  if (!factory) {
    const loaded = loadFactory();
    factory = loaded.factory;
    compiled = WA.compile(loaded.wasm);
  }
  const wasmModule = await compiled!;
  const io: RunIo = { stdin: new Uint8Array(0), stdinAt: 0, out() {}, err() {} };
  let memory: { buffer: ArrayBuffer } | undefined;
  const module = await factory({
    thisProgram: 'jq',
    __heapMax: heapMax,
    __in: stream(() => null, (heap, offset, length) => {
      const n = Math.min(length, io.stdin.length - io.stdinAt);
      view(heap, offset, n).set(io.stdin.subarray(io.stdinAt, io.stdinAt + n));
      io.stdinAt += n;
      return n;
    }),
    __out: stream(() => {}, (heap, offset, length) => io.out(view(heap, offset, length))),
    __err: stream(() => {}, (heap, offset, length) => io.err(view(heap, offset, length))),
    print: () => {},
    printErr: () => {},
    instantiateWasm(imports: object, receive: (i: object, m: object) => void) {
      const instance = new WA.Instance(wasmModule, imports);
      for (const v of Object.values(instance.exports)) if (v instanceof WA.Memory) memory = v;
      receive(instance, wasmModule);
      return instance.exports;
    },
  });
  const fs = module.__expose().FS;
  // jq reads stdin through fd 0 and files by the paths it is given: Emscripten's own folders
  // move out of the way, so the MEMFS root can stand for the zone's root.
  fs.mkdirTree(HIDDEN);
  for (const d of ['dev', 'proc', 'tmp', 'home']) fs.rename(`/${d}`, `${HIDDEN}/${d}`);
  return { module, fs, io, memory: () => memory?.buffer.byteLength ?? 0 };
}
