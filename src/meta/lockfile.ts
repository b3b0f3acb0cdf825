import { AsyncLocalStorage } from 'node:async_hooks';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NoshError } from '../errors.js';

/**
 * Exclusive lock files between the processes of one machine. A lock file holds the pid of its
 * holder; it is made whole (a temp file with the pid, hard-linked to the lock's name: the link
 * fails when the lock exists), so a lock file is never empty. A lock whose holder is dead (the
 * pid is gone) is broken, under a second lock file (`.break`) so that two processes breaking
 * the same stale lock cannot remove a fresh one.
 */

const WAIT_MS = 60_000;

/** The process is running (on this machine; EPERM: it runs as another user). */
export function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holderOf(file: string): number | undefined {
  try {
    return Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
  } catch {
    return undefined; // gone meanwhile
  }
}

/** Try once to create the lock file; true when this process now holds it. */
export function tryLockFile(file: string): boolean {
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
  fs.writeFileSync(tmp, String(process.pid));
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return false;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** Remove the lock file if its holder is dead; true when it was removed. */
export function breakStale(file: string): boolean {
  const pid = holderOf(file);
  if (pid === undefined || alive(pid)) return false;
  const brk = `${file}.break`;
  if (!tryLockFile(brk)) {
    // a breaker that died while breaking: its own lock is stale
    const b = holderOf(brk);
    if (b !== undefined && !alive(b)) fs.rmSync(brk, { force: true });
    return false;
  }
  try {
    if (holderOf(file) === pid) {
      fs.rmSync(file, { force: true });
      return true;
    }
    return false;
  } finally {
    fs.rmSync(brk, { force: true });
  }
}

/** Take the lock file, waiting (with back-off) for its holder; a dead holder's lock is broken. */
export async function lockFile(file: string, what: string, waitMs = WAIT_MS): Promise<void> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const start = Date.now();
  let pause = 1;
  for (let n = 0; ; n++) {
    if (tryLockFile(file)) return;
    if (n % 8 === 7 || pause >= 8) breakStale(file);
    if (Date.now() - start > waitMs) {
      throw new NoshError('BUSY', `${what} is held by another nosh process (pid ${holderOf(file) ?? '?'}) for over ${Math.round(waitMs / 1000)} s`,
        'Retry later; if no nosh process is running, the operator may remove the lock file.');
    }
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(pause * 2, 16);
  }
}

export function unlockFile(file: string): void {
  fs.rmSync(file, { force: true });
}

type Release = () => Promise<void> | void;

/**
 * Keys held by the current async call chain, so that a call holding a zone may take it again
 * (the engine holds it around a call; a method inside may ask for it too) without waiting for itself.
 */
const held = new AsyncLocalStorage<ReadonlySet<string>>();

/**
 * A lock per key shared by the calls of this process (FIFO) and, through `outer`, with the
 * other processes. Re-entrant within one call chain.
 */
export class KeyedLocks {
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * `outer(key)`: take the key in the other processes; returns its release, or the release and
   * a scope the run is entered through (PostgreSQL: the connection holding the lock, reused by
   * the keys taken inside it).
   */
  constructor(private readonly outer: (key: string) => Promise<Release | { release: Release; enter: <T>(run: () => Promise<T>) => Promise<T> }>) {}

  async with<T>(key: string, run: () => Promise<T>): Promise<T> {
    const mine = held.getStore();
    if (mine?.has(key)) return run();
    const before = this.tails.get(key);
    let done!: () => void;
    const tail = new Promise<void>((r) => (done = r));
    this.tails.set(key, tail);
    try {
      if (before) await before;
      const got = await this.outer(key);
      const release = typeof got === 'function' ? got : got.release;
      const inner = () => held.run(new Set([...(mine ?? []), key]), run);
      try {
        return await (typeof got === 'function' ? inner() : got.enter(inner));
      } finally {
        await release();
      }
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
      done();
    }
  }
}
