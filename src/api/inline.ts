/**
 * Typed reads answered in the main thread, without the worker hop (issue #27 goal 2).
 *
 * A tool call that goes to a worker costs two thread hand-offs (request, reply) and the
 * wake-ups that go with them: on a loaded 2-core host more than the whole work of a `stat`
 * or a 40-entry `list`. The tools below only read, are synchronous, and go through the same
 * Vfs (the security core: same resolution, policy, checks) whichever thread runs them; so a
 * call of theirs runs here first, bounded by a budget of entries walked and bytes read
 * (src/runtime/progress.ts withInlineBudget: the counters that feed a worker's progress).
 * Past the budget the call is dropped and run again in a worker, where the call's timeout,
 * cancellation and memory limit apply; what was done here (at most a thousand entries and
 * 256 KiB read) is lost, the answer is the worker's. A call that cannot be bounded that way
 * (read's tail, parse and byte ranges read without passing through those counters) always
 * goes to a worker, and so does every call that writes.
 *
 * What stays in the main thread per inline call: at most INLINE_ENTRIES entries (with one
 * directory listing each), INLINE_BYTES bytes, and the name checks of one path: the same
 * order as what the link server (src/http) already reads here.
 */
import { Vfs, VfsError } from '../vfs/index.js';
import { TOOLS } from '../tools/index.js';
import { errorBody } from '../runtime/error-body.js';
import { withInlineBudget } from '../runtime/progress.js';
import type { TaskRequest, TaskResponse } from '../exec/index.js';

/** Entries an inline call may walk before it goes to a worker. */
export const INLINE_ENTRIES = 1000;
/** Bytes an inline call may read before it goes to a worker. */
export const INLINE_BYTES = 256 * 1024;

/** Tools that may run inline: read-only, synchronous, their work counted by walk and readChunks. */
const INLINE_TOOLS = new Set(['stat', 'list', 'tree', 'find', 'exists', 'read']);

/** read's arguments whose work is not counted (tail reads from the end, parse and byte ranges read whole or positioned). */
const READ_UNCOUNTED = ['tail', 'parse', 'byte_offset', 'byte_length'] as const;

/**
 * A call whose time limit is below this runs in a worker, where the limit is enforced: inline
 * work cannot be stopped midway (it is bounded by the budget instead, a few ms).
 */
export const INLINE_MIN_TIMEOUT_MS = 1000;

/** May this tool call (its args as validated, its time limit) run inline? */
export function runsInline(name: string, args: Record<string, unknown>, timeoutMs = Infinity): boolean {
  if (!INLINE_TOOLS.has(name) || timeoutMs < INLINE_MIN_TIMEOUT_MS) return false;
  if (name === 'read') return args.encoding !== 'base64' && READ_UNCOUNTED.every((k) => args[k] === undefined);
  return true;
}

const NEVER = new AbortController().signal;

/**
 * Run a read-only tool task in this thread: its response, or undefined when it passed the
 * budget (run it in a worker). Errors are bodies, as a worker returns them.
 */
export async function runInline(task: TaskRequest): Promise<TaskResponse | undefined> {
  const tool = TOOLS.get(task.tool!.name)!;
  try {
    const vfs = new Vfs(task.root, task.policy, task.quota && { counters: new BigInt64Array(task.quota.sab), index: task.quota.index,
      limit: task.quota.limit, maxFiles: task.quota.maxFiles, name: task.quota.name });
    const run = withInlineBudget(INLINE_ENTRIES, INLINE_BYTES, () => {
      // these tools are synchronous: their whole work is done within this call (the
      // wrapper that adds hints returns it as a promise)
      const cwd = task.cwd === '/' ? '/' : workingDirectory(vfs, task.cwd, task.policy.followSymlinks);
      const p = Promise.resolve(tool.run({ fs: vfs, cwd, limits: task.limits, signal: NEVER }, task.tool!.args as never));
      p.catch(() => {}); // looked at below
      return p;
    });
    if (run.over) return undefined;
    const out = await run.value;
    return { ok: true, tool: { data: out.data, message: out.message ?? 'ok', changes: [] } };
  } catch (e) {
    return { ok: false, error: errorBody(e) };
  }
}

/** The cwd resolved to a directory's path (as executeTask does). */
function workingDirectory(vfs: Vfs, cwd: string, follow: boolean): string {
  const r = vfs.resolveExisting(cwd, '/', { followFinal: follow });
  if (!r.stat.isDirectory()) throw new VfsError('ENOTDIR', cwd);
  return r.vpath;
}
