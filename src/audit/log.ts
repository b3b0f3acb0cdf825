import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The audit log: one JSON line for every refused attempt and every change, for operators
 * who need to see what an agent tried. A line names who (user, role, session, conversation),
 * where (zone name, virtual paths), what (method, command line) and how it ended (error code
 * or "ok", exit code) and how long it took. It never holds file contents (no content, stdin,
 * edit text, base64) and never a host path (zones are named, paths are virtual).
 */
export interface AuditEvent {
  /** ISO 8601 time the call ended. */
  time: string;
  event: 'refused' | 'change';
  user?: string;
  role?: string;
  session?: string;
  conversation?: string;
  /** Zone name as callers write it ("storage", "group:finance", "root"), never its folder. */
  zone?: string;
  /** Second zone of a transfer. */
  to_zone?: string;
  /** "exec", a tool name (write, edit ...) or a host method (transfer, import ...). */
  method: string;
  /** exec: the command line (argv joined for the cmd/args form), cut to MAX_COMMAND chars. */
  command?: string;
  /** The working directory of the call when not the zone root (relative paths are from it). */
  cwd?: string;
  /** Virtual paths the refusal is about (from the error and the request). */
  paths?: string[];
  /** change: what changed, as virtual paths (`zone` set for the peer zone of a transfer). */
  changes?: AuditChange[];
  /** Set when `changes` was cut to MAX_CHANGES entries. */
  changes_total?: number;
  /** The error code, or "ok". */
  result: string;
  /** exec: the exit status of the command line. */
  exit_code?: number;
  /** Duration of the call in milliseconds. */
  ms: number;
}

export interface AuditChange {
  op: string;
  path: string;
  to?: string;
  zone?: string;
}

/** Receives each audit event; errors it throws (or promises it rejects) are swallowed. */
export type AuditCallback = (event: AuditEvent) => void | Promise<void>;

/** The error codes that mean "refused" (a policy said no), as opposed to a plain failure. */
export const REFUSAL_CODES: ReadonlySet<string> = new Set([
  'PATH_ESCAPE', 'BLOCKED_PATH', 'METACHAR_REJECTED', 'COMMAND_FORBIDDEN', 'PERMISSION_DENIED',
  'GROUP_ACCESS_DENIED', 'ZONE_READONLY', 'QUOTA_EXCEEDED', 'INVALID_ID', 'FILE_LOCKED',
]);

export const MAX_COMMAND = 1000;
export const MAX_CHANGES = 100;
export const MAX_PATHS = 20;
const MAX_PATH = 300;

/** A string cut for the log (ids, zone names and paths come from callers and may be huge). */
export function cut(s: string, max = MAX_PATH): string {
  return s.length > max ? s.slice(0, max) + '…' : s;
}

/** Where audit lines go: a file, a callback, or several. */
export class Auditor {
  /** Writes that failed (the call itself never fails for them). */
  failures = 0;

  constructor(private readonly sinks: AuditCallback[]) {}

  emit(event: AuditEvent): void {
    for (const sink of this.sinks) {
      try {
        const r = sink(event) as unknown;
        if (r && typeof (r as Promise<void>).then === 'function') (r as Promise<void>).then(undefined, () => { this.failures++; });
      } catch {
        this.failures++;
      }
    }
  }
}

/**
 * A file sink: appends one line per event, rotated by size (file -> file.1 -> ... file.keep,
 * the oldest dropped). Writes are synchronous from the main thread, one write(2) per line on
 * an O_APPEND descriptor: lines of one process never interleave. Failures throw to the
 * Auditor, which counts them; the file is opened again on the next event.
 */
export class FileSink {
  private fd: number | undefined;
  private size = 0;

  constructor(readonly file: string, private readonly maxBytes: number, private readonly keep: number) {}

  readonly write = (event: AuditEvent): void => {
    const line = Buffer.from(JSON.stringify(event) + '\n', 'utf8');
    if (this.fd === undefined) this.open();
    if (this.size > 0 && this.size + line.length > this.maxBytes) {
      this.rotate();
      this.open();
    }
    try {
      fs.writeSync(this.fd!, line);
      this.size += line.length;
    } catch (e) {
      this.close();
      throw e;
    }
  };

  private open(): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    this.fd = fs.openSync(this.file, 'a', 0o600);
    this.size = fs.fstatSync(this.fd).size;
  }

  private rotate(): void {
    this.close();
    if (this.keep <= 0) {
      fs.rmSync(this.file, { force: true });
      return;
    }
    fs.rmSync(`${this.file}.${this.keep}`, { force: true });
    for (let i = this.keep - 1; i >= 1; i--) {
      try { fs.renameSync(`${this.file}.${i}`, `${this.file}.${i + 1}`); } catch { /* not there yet */ }
    }
    fs.renameSync(this.file, `${this.file}.1`);
  }

  close(): void {
    if (this.fd === undefined) return;
    try { fs.closeSync(this.fd); } catch { /* already gone */ }
    this.fd = undefined;
  }
}
