import * as fs from 'node:fs';
import { randomBytes } from 'node:crypto';

/**
 * Names of the temp files of atomic writes. A name carries its owning process, so that the
 * temps a killed process left behind (kill -9 runs no cleanup) can be told from those of a
 * write still under way, in this process or another one sharing the folders:
 *
 *   .nosh-tmp-<pid>-<start>-<random>
 *
 * <start> is the process's start time (field 22 of /proc/PID/stat, clock ticks since boot):
 * a pid reused by a later process has another start time, so its owner is still seen as gone.
 */
export const TMP_MARK = '.nosh-tmp-';
const OWNED = /^\.nosh-tmp-(\d+)-(\d+)-[0-9a-f]+$/;

/** Start time of process `pid` as /proc shows it, or null when there is no such process (or no /proc). */
export function processStart(pid: number | 'self'): string | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces or ')': fields 3.. follow the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return rest[19] ?? null; // field 22
}

/** This process (every worker thread shares it): '<pid>-<start>'; start 0 without /proc. */
const OWNER = `${process.pid}-${processStart('self') ?? '0'}`;

/** A fresh temp file name for this process. */
export function tempName(): string {
  return `${TMP_MARK}${OWNER}-${randomBytes(6).toString('hex')}`;
}

export function isTempName(name: string): boolean {
  return name.includes(TMP_MARK);
}

/**
 * Whether the process that made temp file `name` is still running: true or false for an
 * owned name, null for a name without an owner (made by an older nosh).
 */
export function tempOwnerAlive(name: string): boolean | null {
  const m = OWNED.exec(name);
  if (!m) return null;
  const pid = Number(m[1]);
  const start = processStart(pid);
  if (start !== null) return start === m[2];
  if (m[2] !== '0') return false; // /proc works (the name has a start time) and the pid is gone
  // Made without /proc: only the pid can be checked.
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
