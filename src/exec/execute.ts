import { NoshError, readonlyError } from '../errors.js';
import { Vfs, VfsError } from '../vfs/index.js';
import { listenForRefusals } from '../vfs/errors.js';
import { expandWords } from '../parse/index.js';
import { NEVER, runPipeline } from './pipeline.js';
import { collectGarbage, setMemoryBudget } from '../runtime/memory.js';
import { errorBody } from '../runtime/error-body.js';
import { recordTemp } from '../runtime/temps.js';
import type { QuotaHandle } from '../vfs/charge.js';
import { repoAccess } from './repo-access.js';
import type { Refusal, TaskRequest, TaskResponse, TaskTool } from './task.js';

/** Refusals one command line reports to the audit log (distinct code and path). */
const MAX_REFUSALS = 20;

/**
 * Run one task: expand globs inside the zone, run the pipeline (or the typed tool that
 * `toolNamed` finds: the worker passes the tool tables in, they live above this layer),
 * and turn every failure into data.
 */
export async function executeTask(req: TaskRequest, signal?: AbortSignal,
  toolNamed: (name: string) => Promise<TaskTool | undefined> = async () => undefined): Promise<TaskResponse> {
  try {
    if (req.memoryMb) setMemoryBudget(req.memoryMb);
    const vfs = new Vfs(req.root, req.policy, counterOf(req.quota));
    const temps = req.temps;
    if (temps) vfs.setTempHook((tmp) => recordTemp(temps, tmp));
    vfs.setGuard(req.guard);
    const cwd = req.cwd === '/' ? '/' : workingDirectory(vfs, req.cwd, req.policy.followSymlinks);
    if (req.tool) {
      const tool = await toolNamed(req.tool.name);
      if (!tool) throw new NoshError('INVALID_ARGUMENT', `unknown tool '${req.tool.name}'`, '');
      if (tool.mutates && req.policy.readonly && !tool.readOnlyMode && !(tool.deleteOnly && req.policy.allowDelete)) {
        throw readonlyError(tool.name, req.policy);
      }
      const peer = req.peer && new Vfs(req.peer.root, req.peer.policy, counterOf(req.peer.quota));
      if (peer && temps) peer.setTempHook((tmp) => recordTemp(temps, tmp));
      peer?.setGuard(req.peer!.guard);
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
      sink = { bytes: 0, consumes: true, write(d: Uint8Array | string) { const b = typeof d === 'string' ? Buffer.from(d) : d; this.bytes += b.length; w.write(b); } };
    }
    const refusals = new Map<string, Refusal>();
    const prev = listenForRefusals((e) => {
      if (refusals.size < MAX_REFUSALS) refusals.set(`${e.code} ${e.path}`, { code: e.code, path: e.path });
    });
    try {
      const repo = req.git && repoAccess(req.git.gitdir, req.git.user);
      const r = await runPipeline(vfs, { stages, cwd, stdin: req.stdin, limits: req.limits, signal, stdoutSink: sink, user: req.user, repo });
      writer?.commit();
      return { ok: true, result: { ...r, stdoutBytes: sink ? sink.bytes : r.stdoutBytes, changes: vfs.changes,
        ...(repo?.commitMessage !== undefined ? { commitMessage: repo.commitMessage } : {}),
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

function counterOf(q: QuotaHandle | undefined) {
  return q && { counters: new BigInt64Array(q.sab), index: q.index, limit: q.limit, maxFiles: q.maxFiles, name: q.name };
}
