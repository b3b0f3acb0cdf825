import * as fs from 'node:fs';
import * as path from 'node:path';
import { isTempName } from '../vfs/temp-name.js';
import { VERSIONS_SLOT, addVersionBytes, chargeOf, type QuotaHandle } from '../vfs/charge.js';

export { chargeOf, type QuotaHandle };


/**
 * `git`: the git directories of the versioned zones below the folders (kept outside them, in
 * <base>/versions): their bytes count against the quota too, and are kept apart at index 2
 * for stats. Only the main thread writes git objects, so only it adds to that slot.
 */
interface Entry { handle: QuotaHandle; folders: string[]; git: string[] }

/** Counter slots: bytes (git objects included), files and folders, git objects' bytes. */
const VERSIONS = VERSIONS_SLOT;

/**
 * Usage per quota (user, group, session), kept in shared memory so that every worker updates
 * the same counter atomically. Built by one scan of the folders on first use, then tracked
 * incrementally by the writes themselves; rescan() repairs drift from changes made outside.
 * Scans run in the serving thread in short slices: one synchronous walk of a folder of
 * 300 000 empty files (which no byte quota bounds) blocked every caller for over a second.
 */
export class QuotaLedger {
  private readonly entries = new Map<string, Entry>();
  /** First scans under way: concurrent first calls of one quota share one. */
  private readonly pending = new Map<string, Promise<QuotaHandle>>();

  /**
   * The counter for a quota key; a promise the first time, while its folders are scanned.
   * `limitBytes` may be fractional (a quota of 100.3 MB): the limit is its whole bytes, as
   * the 64-bit counters compare it (BigInt of a fraction throws a RangeError on every write).
   */
  handle(key: string, limitBytes: number, folders: string[], maxFiles = Number.MAX_SAFE_INTEGER, git: string[] = []): QuotaHandle | Promise<QuotaHandle> {
    const limit = Math.floor(limitBytes);
    const e = this.entries.get(key);
    if (e) return e.handle;
    let p = this.pending.get(key);
    if (!p) {
      p = Promise.all([scanUsage(folders), scanBytes(git)]).then(([{ bytes, files }, versions]) => {
        const sab = new SharedArrayBuffer(24);
        const entry = { handle: { sab, index: 0, limit, maxFiles, name: key }, folders, git };
        new BigInt64Array(sab)[0] = BigInt(bytes + versions);
        new BigInt64Array(sab)[1] = BigInt(files);
        new BigInt64Array(sab)[VERSIONS] = BigInt(versions);
        this.entries.set(key, entry);
        return entry.handle;
      }).finally(() => this.pending.delete(key));
      this.pending.set(key, p);
    }
    return p;
  }

  used(key: string): number | undefined {
    const e = this.entries.get(key);
    return e ? Number(Atomics.load(new BigInt64Array(e.handle.sab), 0)) : undefined;
  }

  /** Bytes of git objects (versions) counted in a quota. */
  versions(key: string): number | undefined {
    const e = this.entries.get(key);
    return e ? Number(Atomics.load(new BigInt64Array(e.handle.sab), VERSIONS)) : undefined;
  }

  /** Count git objects a commit wrote (or a pack removed: negative) against the quota of `handle`. */
  addVersions(handle: QuotaHandle, bytes: number): void {
    addVersionBytes(handle, bytes);
  }

  /**
   * Recount the git bytes of the quotas whose versions hold `gitdir` (after maintenance packed
   * it): a walk of their git directories only, never of the zones' files.
   */
  async recountVersions(gitdir: string): Promise<void> {
    for (const e of this.entries.values()) {
      if (!e.git.some((g) => gitdir === g || gitdir.startsWith(g + path.sep))) continue;
      const now = await scanBytes(e.git);
      const c = new BigInt64Array(e.handle.sab);
      const was = Atomics.exchange(c, VERSIONS, BigInt(now));
      Atomics.add(c, e.handle.index, BigInt(now) - was);
    }
  }

  /** Count `n` entries made outside a Vfs (zone folders) against a quota already scanned. */
  addFiles(key: string, n: number): void {
    const e = this.entries.get(key);
    if (e) Atomics.add(new BigInt64Array(e.handle.sab), e.handle.index + 1, BigInt(n));
  }

  /** Files and folders counted against a quota. */
  files(key: string): number | undefined {
    const e = this.entries.get(key);
    return e ? Number(Atomics.load(new BigInt64Array(e.handle.sab), 1)) : undefined;
  }

  /** Recount one key from disk (the processes serving a base sync a quota on a fresh count: src/api/across.ts). */
  async recount(key: string): Promise<void> {
    const e = this.entries.get(key);
    if (!e) return;
    const disk = await scanUsage(e.folders);
    const versions = await scanBytes(e.git);
    const counters = new BigInt64Array(e.handle.sab);
    Atomics.store(counters, e.handle.index, BigInt(disk.bytes + versions));
    Atomics.store(counters, e.handle.index + 1, BigInt(disk.files));
    Atomics.store(counters, VERSIONS, BigInt(versions));
  }

  /** Recount from disk; returns bytes {ledger, disk} per key, and files and folders the same way. */
  async rescan(): Promise<Record<string, { ledger: number; disk: number; files: { ledger: number; disk: number } }>> {
    const out: Record<string, { ledger: number; disk: number; files: { ledger: number; disk: number } }> = {};
    for (const [key, e] of this.entries) {
      const counters = new BigInt64Array(e.handle.sab);
      const disk = await scanUsage(e.folders);
      const versions = await scanBytes(e.git);
      const ledger = Number(Atomics.exchange(counters, 0, BigInt(disk.bytes + versions)));
      const files = Number(Atomics.exchange(counters, 1, BigInt(disk.files)));
      Atomics.store(counters, VERSIONS, BigInt(versions));
      out[key] = { ledger, disk: disk.bytes + versions, files: { ledger: files, disk: disk.files } };
    }
    return out;
  }

  /**
   * Drop a key whose folders are gone (an expired session): a long-running host would keep
   * one counter per session ever seen. A later use of the key scans its folders afresh.
   */
  forget(key: string): void {
    this.entries.delete(key);
  }

  keys(): string[] {
    return [...this.entries.keys()];
  }

  limit(key: string): number | undefined {
    return this.entries.get(key)?.handle.limit;
  }
}

/** Main-thread time a scan may take before it lets other callers in. */
const SLICE_MS = 10;

/**
 * Every regular file below a host folder, with its lstat (symlinks not followed, unreadable
 * parts skipped). Synchronous calls (a promise per file made a scan ten times slower) in
 * slices of SLICE_MS between which the event loop runs, one directory open at a time and
 * read a batch of entries at a time (a folder may hold millions); iterative, so that a deep
 * tree cannot overflow the stack.
 */
export async function forEachFile(folder: string, fn: (file: string, st: fs.Stats) => void, other?: (entry: string, d: fs.Dirent) => void): Promise<void> {
  const dirs = [folder];
  let sliceStart = performance.now();
  let n = 0;
  while (dirs.length > 0) {
    const dir = dirs.pop()!;
    let handle: fs.Dir;
    try {
      handle = fs.opendirSync(dir, { bufferSize: 1024 });
    } catch {
      continue;
    }
    try {
      for (;;) {
        if ((++n & 255) === 0 && performance.now() - sliceStart > SLICE_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
        }
        let d: fs.Dirent | null;
        try { d = handle.readSync(); } catch { break; /* unreadable or vanished */ }
        if (d === null) break;
        const p = path.join(dir, d.name);
        if (d.isDirectory()) {
          dirs.push(p);
          other?.(p, d);
        } else if (d.isFile()) {
          let st: fs.Stats;
          try { st = fs.lstatSync(p); } catch { continue; /* vanished */ }
          fn(p, st);
        } else other?.(p, d);
      }
    } finally {
      try { handle.closeSync(); } catch { /* closed */ }
    }
  }
}

/**
 * What the folders hold against a quota: bytes of regular files (chargeOf), and files and
 * folders (every entry below them); a hard-linked file counted once. Temp files of writes
 * (.nosh-tmp-*) are not counted: a write under way counts its growth itself, and those a
 * killed process left are removed (removeStaleTemps), never a charge on the quota.
 */
export async function scanUsage(folders: string[]): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  const seen = new Set<string>();
  for (const f of folders) {
    await forEachFile(f, (p, st) => {
      if (isTempName(path.basename(p))) return;
      if (st.nlink > 1) {
        const id = `${st.dev}:${st.ino}`;
        if (seen.has(id)) return;
        seen.add(id);
      }
      bytes += chargeOf(st);
      files++;
    }, () => { files++; });
  }
  return { bytes, files };
}

/** Bytes (chargeOf) of every file below the folders: git directories, whose files are no entries of a zone. */
export async function scanBytes(folders: string[]): Promise<number> {
  let bytes = 0;
  for (const f of folders) await forEachFile(f, (_p, st) => { bytes += chargeOf(st); });
  return bytes;
}

/** Count files and bytes below one folder (for stats; bytes as a quota counts them). */
export async function countFiles(folder: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  await forEachFile(folder, (p, st) => {
    if (isTempName(path.basename(p))) return;
    files++;
    bytes += chargeOf(st);
  });
  return { files, bytes };
}
