import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Where a task's write temp files are, shared with the main thread. A worker stopped on
 * timeout or cancel (Worker.terminate) runs no finally block, so an atomic write it had
 * started leaves its `.nosh-tmp-*` file behind. The worker records each temp file's host
 * path here as it creates it; after a task that did not end normally the main thread
 * removes the ones that still exist. One registry per lane (its tasks run one at a time), a
 * ring of fixed slots: writes in one task are mostly one at a time, so the live ones are the
 * last few.
 */
const SLOTS = 32;
const SLOT_BYTES = 1024;
const HEADER = 4;

/** A lane's registry. */
export function newTempRegistry(): SharedArrayBuffer {
  return new SharedArrayBuffer(HEADER + SLOTS * SLOT_BYTES);
}

/** Empty the registry before the lane's next task (its worker is between tasks then). */
export function resetTempRegistry(sab: SharedArrayBuffer): void {
  Atomics.store(new Int32Array(sab, 0, 1), 0, 0);
}

/** Worker side: remember one temp file's host path. */
export function recordTemp(sab: SharedArrayBuffer, host: string): void {
  const bytes = Buffer.from(host, 'utf8');
  if (bytes.length + 2 > SLOT_BYTES) return;
  const head = new Int32Array(sab, 0, 1);
  const n = Atomics.add(head, 0, 1);
  const off = HEADER + (n % SLOTS) * SLOT_BYTES;
  const view = new Uint8Array(sab, off, SLOT_BYTES);
  view[0] = bytes.length & 0xff;
  view[1] = bytes.length >> 8;
  view.set(bytes, 2);
}

/** Main thread: remove the recorded temp files that still exist under one of `roots`. */
export function removeTemps(sab: SharedArrayBuffer, roots: string[]): void {
  const count = Math.min(new Int32Array(sab, 0, 1)[0]!, SLOTS);
  if (count === 0) return;
  const real = roots.map((r) => { try { return fs.realpathSync(r); } catch { return null; } }).filter((r): r is string => r !== null);
  for (let i = 0; i < count; i++) {
    const view = new Uint8Array(sab, HEADER + i * SLOT_BYTES, SLOT_BYTES);
    const len = view[0]! | (view[1]! << 8);
    const host = Buffer.from(view.subarray(2, 2 + len)).toString('utf8');
    if (!path.basename(host).startsWith('.nosh-tmp-')) continue;
    if (!real.some((r) => host.startsWith(r + '/'))) continue;
    try {
      if (fs.lstatSync(host).isFile()) fs.unlinkSync(host);
    } catch { /* already renamed or removed */ }
  }
}
