import * as fs from 'node:fs';
import * as path from 'node:path';

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
 */
export class QuotaLedger {
  private readonly entries = new Map<string, Entry>();

  /** The counter for a quota key, scanning its folders the first time. */
  handle(key: string, limitBytes: number, folders: string[]): QuotaHandle {
    let e = this.entries.get(key);
    if (!e) {
      const sab = new SharedArrayBuffer(8);
      e = { handle: { sab, index: 0, limit: limitBytes, name: key }, folders };
      new BigInt64Array(sab)[0] = BigInt(scanBytes(folders));
      this.entries.set(key, e);
    }
    return e.handle;
  }

  used(key: string): number | undefined {
    const e = this.entries.get(key);
    return e ? Number(Atomics.load(new BigInt64Array(e.handle.sab), 0)) : undefined;
  }

  /** Recount from disk; returns {before, after} per key. */
  rescan(): Record<string, { ledger: number; disk: number }> {
    const out: Record<string, { ledger: number; disk: number }> = {};
    for (const [key, e] of this.entries) {
      const counters = new BigInt64Array(e.handle.sab);
      const disk = scanBytes(e.folders);
      const ledger = Number(Atomics.exchange(counters, 0, BigInt(disk)));
      out[key] = { ledger, disk };
    }
    return out;
  }

  /** Recount one key from disk (after its folder was removed, e.g. an expired session). */
  recount(key: string): void {
    const e = this.entries.get(key);
    if (e) Atomics.store(new BigInt64Array(e.handle.sab), 0, BigInt(scanBytes(e.folders)));
  }

  keys(): string[] {
    return [...this.entries.keys()];
  }

  limit(key: string): number | undefined {
    return this.entries.get(key)?.handle.limit;
  }
}

/** Every regular file below a host folder, with its lstat (symlinks not followed, unreadable parts skipped). */
export function forEachFile(folder: string, fn: (file: string, st: fs.Stats) => void): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(folder, { withFileTypes: true });
  } catch {
    return;
  }
  for (const d of entries) {
    const p = path.join(folder, d.name);
    if (d.isDirectory()) forEachFile(p, fn);
    else if (d.isFile()) {
      let st: fs.Stats;
      try { st = fs.lstatSync(p); } catch { continue; /* vanished */ }
      fn(p, st);
    }
  }
}

/** Bytes of regular files below the folders (hard links counted once). */
export function scanBytes(folders: string[]): number {
  let total = 0;
  const seen = new Set<string>();
  for (const f of folders) {
    forEachFile(f, (_p, st) => {
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
export function countFiles(folder: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  forEachFile(folder, (_p, st) => {
    files++;
    bytes += st.size;
  });
  return { files, bytes };
}
