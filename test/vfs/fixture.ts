// Shared set-up for the virtual-root security suite (test/vfs/*.test.ts).
//
// Layout on the host, for every zone made here:
//   base/                 a fresh temp dir
//   base/canary.txt       must never change
//   base/outside/...      a folder beside the root, with a secret
//   base/root/            the zone root (what the Vfs sees as '/')
//   base/root-evil/       siblings whose names extend the root's name
//   base/rootX/
// After every attack the tests compare a snapshot of everything outside base/root.
import * as fs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, expect } from 'vitest';
import { Vfs, VfsError, defaultPolicy, type ZonePolicy } from '../../src/vfs/index.js';

export const CANARY = 'canary: must never change\n';
export const SECRET = 'TOP SECRET outside the zone\n';

export interface Zone {
  base: string;
  root: string;
  vfs(policy?: Partial<ZonePolicy>): Vfs;
  /** Host path inside the root (set-up only). */
  at(rel: string): string;
  /** Everything outside the root: path -> content/type. */
  outsideSnapshot(): Record<string, string>;
}

const made: string[] = [];

export function makeZone(): Zone {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nosh-vfs-')));
  made.push(base);
  const root = path.join(base, 'root');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(base, 'canary.txt'), CANARY);
  fs.mkdirSync(path.join(base, 'outside'));
  fs.writeFileSync(path.join(base, 'outside', 'secret.txt'), SECRET);
  fs.mkdirSync(path.join(base, 'root-evil'));
  fs.writeFileSync(path.join(base, 'root-evil', 'secret.txt'), SECRET);
  fs.mkdirSync(path.join(base, 'rootX'));
  fs.writeFileSync(path.join(base, 'rootX', 'secret.txt'), SECRET);
  return {
    base,
    root,
    vfs: (policy = {}) => new Vfs(root, defaultPolicy(policy)),
    at: (rel) => path.join(root, rel),
    outsideSnapshot: () => snapshotOutside(base, root),
  };
}

function snapshotOutside(base: string, root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of fs.readdirSync(dir).sort()) {
      const p = path.join(dir, name);
      if (p === root) continue;
      const st = fs.lstatSync(p);
      const rel = path.relative(base, p);
      if (st.isSymbolicLink()) out[rel] = 'link:' + fs.readlinkSync(p);
      else if (st.isDirectory()) { out[rel] = 'dir'; walk(p); }
      else if (st.isFile()) out[rel] = `file:${st.mode.toString(8)}:` + fs.readFileSync(p, 'utf8');
      else out[rel] = 'other';
    }
  };
  walk(base);
  return out;
}

/** A name no legitimate file has: attacks aim at it, and the checks look for it everywhere near. */
export const MARK = `nosh-escape-${process.pid}-${Date.now().toString(36)}`;

/** Host places where an escaped write of MARK could land. */
export function markerEscaped(base: string): string[] {
  const hits: string[] = [];
  for (const dir of [os.tmpdir(), '/', path.dirname(base), base, path.join(base, 'outside'), path.join(base, 'root-evil')]) {
    try {
      for (const n of fs.readdirSync(dir)) if (n.includes(MARK)) hits.push(path.join(dir, n));
    } catch { /* not listable */ }
  }
  return hits;
}

/** Every error message the suite provoked, checked for host paths when the file ends. */
export const collected: string[] = [];

/** Run `fn`, require a VfsError with one of `errnos`, record its texts. */
export function expectVfsError(fn: () => unknown, errnos: string | string[]): VfsError {
  const want = Array.isArray(errnos) ? errnos : [errnos];
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  if (caught === undefined) throw new Error(`expected ${want.join('|')}, but the call succeeded`);
  if (!(caught instanceof VfsError)) throw new Error(`expected a VfsError ${want.join('|')}, got ${String(caught)}`);
  record(caught);
  expect(want, `errno ${caught.errno} (${caught.message})`).toContain(caught.errno);
  return caught;
}

export function record(e: unknown): void {
  if (e instanceof VfsError) collected.push(e.message, e.path, e.reason, JSON.stringify(e.details));
  else if (e instanceof Error) collected.push(e.message);
  else collected.push(JSON.stringify(e));
}

/** No collected text may contain a host path of a zone made here, or /tmp/. */
export function assertNoHostPaths(texts: string[] = collected): void {
  const bad = texts.filter((t) => t.includes(os.tmpdir() + '/') || t.includes('/tmp/') || made.some((b) => t.includes(b)));
  expect(bad).toEqual([]);
}

/** Register the end-of-file host-path check (call once per test file). */
export function guardLeaks(): void {
  afterAll(() => {
    assertNoHostPaths();
    for (const b of made.splice(0)) fs.rmSync(b, { recursive: true, force: true });
  });
}

/** Run `fn`, fail if it has not returned within `ms` (a blocking open would hang). */
export async function withinMs<T>(ms: number, fn: () => Promise<T> | T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, rej) => { timer = setTimeout(() => rej(new Error(`blocked for more than ${ms} ms`)), ms); });
  try {
    return await Promise.race([Promise.resolve().then(fn), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Temp files a writer may have left in `dir` (host). */
export function tempLeftovers(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => n.toLowerCase().includes('.nosh-tmp-'));
}

const cfs = createRequire(import.meta.url)('node:fs') as Record<string, (...a: unknown[]) => unknown>;
const restores: (() => void)[] = [];
afterEach(() => { for (const r of restores.splice(0)) r(); });

/**
 * Run `before` just before the next call of node:fs's `name` whose first argument matches
 * `when` (then unhook): a swap at the worst moment. syncBuiltinESMExports makes the ESM import
 * in src/ see the hook.
 */
export function hookOnce(name: string, before: (...args: unknown[]) => void, when: (arg0: unknown) => boolean = () => true): void {
  const orig = cfs[name]!;
  const restore = () => { cfs[name] = orig; syncBuiltinESMExports(); };
  cfs[name] = function hooked(this: unknown, ...args: unknown[]) {
    if (when(args[0])) {
      restore();
      before(...args);
    }
    return orig.apply(this, args);
  };
  syncBuiltinESMExports();
  restores.push(restore);
}

/** How many times node:fs's `name` is called while `fn` runs. */
export function countCalls<T>(name: string, fn: () => T): { result: T; calls: number } {
  const orig = cfs[name]!;
  let calls = 0;
  cfs[name] = function counted(this: unknown, ...args: unknown[]) {
    calls++;
    return orig.apply(this, args);
  };
  syncBuiltinESMExports();
  try {
    return { result: fn(), calls };
  } finally {
    cfs[name] = orig;
    syncBuiltinESMExports();
  }
}
