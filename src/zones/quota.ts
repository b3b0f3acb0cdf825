import * as fs from 'node:fs';
import * as path from 'node:path';
import { isTempName } from '../vfs/temp-name.js';

/** What a worker needs to count bytes against a quota (the SharedArrayBuffer is shared, not copied). */
export interface QuotaHandle {
  sab: SharedArrayBuffer;
  index: number;
  limit: number;
  name: string;
}

interface Entry { handle: QuotaHandle; folders: string[] }

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
  handle(key: string, limitBytes: number, folders: string[]): QuotaHandle | Promise<QuotaHandle> {
    const limit = Math.floor(limitBytes);
    const e = this.entries.get(key);
    if (e) return e.handle;
    let p = this.pending.get(key);
    if (!p) {
      p = scanBytes(folders).then((bytes) => {
        const sab = new SharedArrayBuffer(8);
        const entry = { handle: { sab, index: 0, limit, name: key }, folders };
        new BigInt64Array(sab)[0] = BigInt(bytes);
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

  /** Recount from disk; returns {before, after} per key. */
  async rescan(): Promise<Record<string, { ledger: number; disk: number }>> {
    const out: Record<string, { ledger: number; disk: number }> = {};
    for (const [key, e] of this.entries) {
      const counters = new BigInt64Array(e.handle.sab);
      const disk = await scanBytes(e.folders);
      const ledger = Number(Atomics.exchange(counters, 0, BigInt(disk)));
      out[key] = { ledger, disk };
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
export async function forEachFile(folder: string, fn: (file: string, st: fs.Stats) => void): Promise<void> {
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
        if (d.isDirectory()) dirs.push(p);
        else if (d.isFile()) {
          let st: fs.Stats;
          try { st = fs.lstatSync(p); } catch { continue; /* vanished */ }
          fn(p, st);
        }
      }
    } finally {
      try { handle.closeSync(); } catch { /* closed */ }
    }
  }
}

/**
 * Bytes of regular files below the folders (hard links counted once). Temp files of writes
 * (.nosh-tmp-*) are not counted: a write under way counts its growth itself, and those a
 * killed process left are removed (removeStaleTemps), never a charge on the quota.
 */
export async function scanBytes(folders: string[]): Promise<number> {
  let total = 0;
  const seen = new Set<string>();
  for (const f of folders) {
    await forEachFile(f, (p, st) => {
      if (isTempName(path.basename(p))) return;
      if (st.nlink > 1) {
        const id = `${st.dev}:${st.ino}`;
        if (seen.has(id)) return;
        seen.add(id);
      }
      total += st.size;
    });
  }
  return total;
}

/** Count files and bytes below one folder (for stats). */
export async function countFiles(folder: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  await forEachFile(folder, (p, st) => {
    if (isTempName(path.basename(p))) return;
    files++;
    bytes += st.size;
  });
  return { files, bytes };
}
