import { NoshError, readonlyError } from '../errors.js';
import { Vfs, VfsError } from '../vfs/index.js';
import { listenForRefusals } from '../vfs/errors.js';
import { expandWords } from '../parse/index.js';
import { NEVER, runPipeline } from './pipeline.js';
import { collectGarbage, setMemoryBudget } from '../pool/memory.js';
import { recordTemp } from '../pool/temps.js';
import type { QuotaHandle } from '../zones/quota.js';
import type { Refusal, TaskRequest, TaskResponse } from './task.js';

/** Refusals one command line reports to the audit log (distinct code and path). */
const MAX_REFUSALS = 20;

/** Run one task: expand globs inside the zone, run the pipeline, turn every failure into data. */
export async function executeTask(req: TaskRequest, signal?: AbortSignal): Promise<TaskResponse> {
  try {
    if (req.memoryMb) setMemoryBudget(req.memoryMb);
    const vfs = new Vfs(req.root, req.policy, counterOf(req.quota));
    if (req.temps) trackTemps(vfs, req.temps);
    const cwd = req.cwd === '/' ? '/' : workingDirectory(vfs, req.cwd, req.policy.followSymlinks);
    if (req.tool) {
      const tool = await toolNamed(req.tool.name);
      if (!tool) throw new NoshError('INVALID_ARGUMENT', `unknown tool '${req.tool.name}'`, '');
      if (tool.mutates && req.policy.readonly && !(tool.deleteOnly && req.policy.allowDelete)) {
        throw readonlyError(tool.name, req.policy);
      }
      const peer = req.peer && new Vfs(req.peer.root, req.peer.policy, counterOf(req.peer.quota));
      if (peer && req.temps) trackTemps(peer, req.temps);
      const out = await tool.run({ fs: vfs, peer, cwd, limits: req.limits, signal: signal ?? NEVER }, req.tool.args as never);
      return { ok: true, tool: { data: out.data, message: out.message ?? 'ok', changes: vfs.changes, peerChanges: peer?.changes } };
    }
    const listDir = (dir: string) => {
      try {
        return vfs.readdir(dir, cwd).map((e) => ({ name: e.name, isDirectory: e.type === 'dir' }));
      } catch {
        return null;
      }
    };
    const stages = req.stages.map((s) => s.argv ?? expandWords(s.words ?? [], cwd, listDir));
    if (stages.some((s) => s.length === 0)) throw new NoshError('INVALID_ARGUMENT', 'empty command', 'Give a command name, e.g. ls.');
    let sink;
    let writer;
    if (req.stdoutFile) {
      writer = vfs.createWriter(req.stdoutFile, cwd);
      const w = writer;
      sink = { bytes: 0, write(d: Uint8Array | string) { const b = typeof d === 'string' ? Buffer.from(d) : d; this.bytes += b.length; w.write(b); } };
    }
    const refusals = new Map<string, Refusal>();
    const prev = listenForRefusals((e) => {
      if (refusals.size < MAX_REFUSALS) refusals.set(`${e.code} ${e.path}`, { code: e.code, path: e.path });
    });
    try {
      const r = await runPipeline(vfs, { stages, cwd, stdin: req.stdin, limits: req.limits, signal, stdoutSink: sink });
      writer?.commit();
      return { ok: true, result: { ...r, stdoutBytes: sink ? sink.bytes : r.stdoutBytes, changes: vfs.changes,
        ...(refusals.size > 0 ? { refusals: [...refusals.values()] } : {}) } };
    } catch (e) {
      writer?.abort();
      throw e;
    } finally {
      listenForRefusals(prev);
    }
  } catch (e) {
    const error = errorBody(e);
    if (error.code === 'MEMORY_LIMIT') collectGarbage();
    return { ok: false, error };
  }
}

/** The cwd resolved to a directory's path. executeTask takes a cwd of '/' as is: the root's stat is taken only when a command asks for it. */
function workingDirectory(vfs: Vfs, cwd: string, follow: boolean): string {
  const r = vfs.resolveExisting(cwd, '/', { followFinal: follow });
  if (!r.stat.isDirectory()) throw new VfsError('ENOTDIR', cwd);
  return r.vpath;
}

/**
 * The typed tools (and zod, which they use) are loaded on the first tool call: a worker
 * that only runs command lines starts without them (start-up of `nosh serve`).
 */
let toolTables: Promise<[typeof import('../tools/index.js'), typeof import('../zones/transfer.js')]> | undefined;
async function toolNamed(name: string) {
  toolTables ??= Promise.all([import('../tools/index.js'), import('../zones/transfer.js')]);
  const [{ TOOLS }, { ZONE_TOOLS }] = await toolTables;
  return TOOLS.get(name) ?? ZONE_TOOLS.get(name);
}

/** Record every temp file this Vfs creates, so the pool can remove it if the worker is stopped. */
function trackTemps(vfs: Vfs, sab: SharedArrayBuffer): void {
  const make = vfs.tempHostFor.bind(vfs);
  vfs.tempHostFor = (host: string) => {
    const tmp = make(host);
    recordTemp(sab, tmp);
    return tmp;
  };
}

function counterOf(q: QuotaHandle | undefined) {
  return q && { counters: new BigInt64Array(q.sab), index: q.index, limit: q.limit, maxFiles: q.maxFiles, name: q.name };
}

/** V8's own size limits (a string over about 512 MB, a buffer it cannot allocate): the command outgrew memory. */
const TOO_BIG = /^(?:Invalid string length|Invalid array length|Invalid typed array length|Array buffer allocation failed)/;

/** The error body of an envelope for anything a command threw (host paths scrubbed from internal errors). */
export function errorBody(e: unknown) {
  if (e instanceof NoshError) return e.toBody();
  if (e instanceof RangeError && TOO_BIG.test(e.message)) {
    return new NoshError('MEMORY_LIMIT', `command built a value larger than the worker can hold (${e.message})`,
      'Stream instead of building one huge value: process smaller files or ranges, or pipe through head.').toBody();
  }
  if (e instanceof RangeError && e.message.startsWith('Maximum call stack size exceeded')) {
    // Most often V8's backtracking regex on a repeated group over a very long line.
    return new NoshError('MEMORY_LIMIT', 'command ran out of stack (a repeated group such as (ab)+ matched over a very long line, or nesting too deep)',
      'Simplify the pattern (no repeated group over a whole long line), or work on smaller pieces of the input.').toBody();
  }
  if (e instanceof VfsError) {
    return new NoshError(e.code, `${e.path}: ${e.reason}`, hintFor(e.errno, e.details), { path: e.path, ...e.details }).toBody();
  }
  const msg = e instanceof Error ? e.message : String(e);
  // Internal errors may carry host paths in their text: never pass them on.
  return new NoshError('INTERNAL_ERROR', 'internal error while running the command', 'Report this; try a simpler command.',
    { kind: e instanceof Error ? e.name : typeof e, message: scrub(msg) }).toBody();
}

function scrub(msg: string): string {
  return msg.replace(/(?:\/[^\s'":]+)+/g, '<path>');
}

export function hintFor(errno: string, details: Record<string, unknown> = {}): string {
  switch (errno) {
    case 'ENOENT': return 'Check the path with ls; paths are inside the zone, / is its root.';
    case 'EROFS': return 'This zone is read-only: work on a copy in a writable zone.';
    case 'ESYMLINK': case 'EESCAPE': return 'Symbolic links are not followed out of the zone; use the real path.';
    case 'EBLOCKED': case 'EEXT': return 'This file is blocked by the zone policy and cannot be read or listed.';
    case 'EFBIG':
      if (details.operation === 'read') {
        return `The file is ${details.size} bytes, more than this zone's maximum file size (${details.limit} bytes): its content cannot ` +
          'be read here (ls -l, stat and find still show it). Ask the operator to raise maxFileSize if you need it.';
      }
      return `The file would exceed the maximum file size of this zone${details.limit === undefined ? '' : ` (${details.limit} bytes)`}.`;
    case 'EDQUOT': return 'The quota is full: delete files you no longer need (see stats for usage), or write less. Files and folders count too, each one against the quota\'s file limit (max_files), however small.';
    case 'ENOTDIR': return 'A part of the path (or the cwd) is a file, not a folder: check the path with ls or stat.';
    case 'EISDIR': return 'It is a folder: give a file inside it, or use list to see its content.';
    case 'ENAMETOOLONG': return 'Names are at most 255 bytes and paths 4096: use a shorter name.';
    case 'EINVAL': return 'Paths may not contain NUL bytes or invalid text: check the path.';
    case 'EHARDLINK': return 'Files with several hard links are never written through: copy the content to a new file and write that.';
    case 'ESPECIAL': return 'FIFOs, sockets and devices are never opened: use a regular file.';
    case 'EEXIST': return 'Choose another name, or remove the existing entry first.';
    case 'ENOTEMPTY': return 'The folder is not empty: delete its entries first (or delete with recursive: true).';
    case 'ELOOP': return 'Too many symbolic links on the way: use the real path.';
    case 'ENOSPC': case 'EFSQUOT': return 'The disk holding this zone is full (nothing was written): delete files you no longer need, write less, or ask the operator for space.';
    case 'ETOODEEP': return 'This folder is nested deeper than nosh can follow (its full path passes 4096 bytes): work on a shallower folder, or move the deep part up with mv.';
    case 'EXDEV': return 'Source and destination are on different file systems and cannot be renamed: copy, then delete the source.';
    case 'EBUSY': return 'The zone root itself cannot be removed or renamed: act on the entries inside it.';
    default: return '';
  }
}
