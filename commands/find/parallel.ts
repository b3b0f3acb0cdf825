/**
 * find on two threads: the start's subdirectories are split between the command's thread and
 * find's helper thread of the worker (src/gnulib/helper-thread.ts; its loop is ./helper.ts).
 * The command's thread claims them from the front, in walk order, and walks each as the serial
 * find does, straight into the output; the helper claims them from the back and walks each
 * whole (the directory itself evaluated first, as the serial walk does) into an output buffer
 * of its own. Where the two meet, the command's thread puts the helper's buffers into the
 * output in walk order, so the output is the serial run's byte for byte. It never waits for
 * the helper: a subtree the helper has not finished is taken back and walked here (the helper
 * sees the front pass it and stops). It starts once the walk is past splitAfter() events, so a
 * small tree is walked by the command's thread alone.
 *
 * The helper walks with a Vfs of its own over the same zone root and policy (symlinks never
 * followed), through the one walk (src/vfs/walk.ts): its subtree's start is opened by full
 * resolution (each component lstat-ed, no symlink followed, the descriptor's location checked),
 * everything below it relative to open, located directories with O_NOFOLLOW, as in any walk.
 * Each thread opens and closes its own descriptors. Anything unusual in a subtree (an error,
 * a diagnostic, more output than HELPER_MAX_OUT) makes the helper hand that subtree back
 * untouched: the command's thread then walks it serially, and reports what is wrong.
 *
 * Used only where one subtree's output depends on nothing outside it: -P, no -depth, -delete,
 * -quit, -ls (column widths), -maxdepth / -mindepth, and only the predicates in PARALLEL_PREDS.
 */
import { Vfs, type ZonePolicy } from '../../src/vfs/index.js';
import { Helper, helperOn } from '../../src/gnulib/helper-thread.js';
import { parseFind, type FindPlan } from './parse.js';
import type { Entry, Node } from './types.js';

/** Predicates whose result for a file depends on that file alone (and the run's start time). */
const PARALLEL_PREDS = new Set([
  '-true', '-false', '-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex',
  '-type', '-size', '-empty', '-perm', '-inum', '-links', '-uid', '-gid',
  '-mtime', '-atime', '-ctime', '-mmin', '-amin', '-cmin', '-newer', '-anewer', '-cnewer',
  '-print', '-print0', '-printf', '-prune',
]);

let after = 1000;
/** Walk events before the helper thread joins a walk: a small tree is walked by the command's thread alone. */
export function splitAfter(): number {
  return after;
}
/** Tests: split from the first subdirectory on (0), or never (Infinity). */
export function setSplitAfter(events: number): void {
  after = events;
}

let waitForHelper = false;
/** Tests: the command's thread waits for the helper's subtrees instead of taking back those not done yet (a deterministic split). */
export function setHelperWait(on: boolean): void {
  waitForHelper = on;
}

/** A subtree's output the helper keeps at most (more: handed back, walked by the command's thread). */
export const HELPER_MAX_OUT = 8 << 20;
/** A job's output the helper makes at most (then it claims no more): what waits for its turn stays bounded. */
const JOB_MAX_OUT = 32 << 20;
/** Shared words: [0] claims (back << 16 | front: the helper's from `back` on, this thread's below `front`), [1] cancel. */
const CLAIMS = 0;
const CANCEL = 1;
/** Subdirectories the helper may take at most (the claim word holds 16-bit indices). */
const MAX_SPLIT = 0x7fff;

/** One subtree as both threads name it. */
export interface Subtree {
  path: string;
  bytes: string;
  name: string;
  nameBytes: string;
}

/** What the command's thread sends the helper. */
export interface FindJob {
  run: number;
  root: string;
  policy: ZonePolicy;
  args: string[];
  cwd: string;
  nowMs: number;
  /** The starting point's bytes (%H). */
  top: string;
  subtrees: Subtree[];
  sig: Int32Array;
}

/** A subtree walked by the helper: its output, or null (the command's thread walks it). */
interface Done {
  find: number;
  index?: number;
  out?: Uint8Array | null;
  done?: boolean;
}

function predsIn(n: Node, into: Set<string>): Set<string> {
  if (n.kind === 'pred') into.add(n.name);
  else if (n.kind === 'not') predsIn(n.expr, into);
  else {
    predsIn(n.left, into);
    predsIn(n.right, into);
  }
  return into;
}

/** Can this plan's subtrees be walked apart? */
export function splittable(plan: FindPlan, args: string[]): boolean {
  if (!helperOn() || plan.follow !== 'P' || plan.depthFirst || plan.deletes || plan.maxdepth !== Infinity || plan.mindepth !== 0) return false;
  for (const p of predsIn(plan.expr, new Set())) if (!PARALLEL_PREDS.has(p)) return false;
  // %Y follows links (the zone's policy): the helper never does.
  for (let i = 0; i + 1 < args.length; i++) if (args[i] === '-printf' && args[i + 1]!.includes('%Y')) return false;
  return true;
}

/** The command's side of one split walk. */
export class Split {
  private readonly sig = new Int32Array(new SharedArrayBuffer(8));
  private readonly results = new Map<number, Uint8Array | null>();
  private readonly index = new Map<string, number>();
  private helperDone = false;
  private readonly run: number;

  private constructor(private readonly helper: Helper, job: Omit<FindJob, 'run' | 'sig'>) {
    const n = Math.min(job.subtrees.length, MAX_SPLIT);
    job.subtrees.forEach((s, i) => { if (i < n) this.index.set(s.name, i); });
    Atomics.store(this.sig, CLAIMS, (n << 16) | 0);
    this.run = helper.find({ ...job, subtrees: job.subtrees.slice(0, n), sig: this.sig });
    // Tests: the helper claims its first subtree before this thread goes on.
    for (const end = Date.now() + 10_000; waitForHelper && Atomics.load(this.sig, CLAIMS) >>> 16 === n && !helper.dead && Date.now() < end;) {
      Atomics.wait(this.sig, CANCEL, 0, 1);
    }
  }

  /** A split of these subtrees of the start, or null (no helper running, too few to split). */
  static start(job: Omit<FindJob, 'run' | 'sig'>): Split | null {
    if (job.subtrees.length < 2) return null;
    const helper = Helper.get('find');
    if (!helper?.ready()) return null;
    return new Split(helper, job);
  }

  /**
   * The subdirectory `name` of the start, met in walk order: null when this thread walks it
   * (claimed now; or the helper's, but not done yet, or handed back), else the helper's output
   * for it. Never waits: a subtree the helper is still walking is taken back and walked here
   * (the helper sees it taken and stops it), so a helper the host does not schedule costs at
   * most one subtree walked twice.
   */
  take(name: string): Uint8Array | null {
    const i = this.index.get(name);
    if (i === undefined) return null;
    for (;;) {
      const s = Atomics.load(this.sig, CLAIMS);
      const back = s >>> 16;
      if (i >= back && waitForHelper) break;
      // Not the helper's yet: this thread's now. The helper's: taken back unless done (the front passes it).
      if (Atomics.compareExchange(this.sig, CLAIMS, s, (back << 16) | (i + 1)) !== s) continue;
      if (i < back) return null;
      break;
    }
    this.drain();
    for (const end = Date.now() + 10_000; waitForHelper && !this.results.has(i) && !this.helperDone && !this.helper.dead && Date.now() < end;) {
      this.receive(this.helper.answer(100) as Done | null);
    }
    const r = this.results.get(i) ?? null;
    this.results.delete(i);
    return r;
  }

  /** The helper's answers so far, without waiting. */
  private drain(): void {
    for (let m = this.helper.answer(0) as Done | null; m; m = this.helper.answer(0) as Done | null) this.receive(m);
  }

  private receive(m: Done | null): void {
    if (m === null || m.find !== this.run) return; // an earlier run's
    if (m.done) this.helperDone = true;
    else this.results.set(m.index!, m.out ? Buffer.from(m.out.buffer, m.out.byteOffset, m.out.byteLength) : null);
  }

  /** The walk is over (or left early): the helper stops; what it still sends is dropped by the next split (another run). */
  finish(): void {
    Atomics.store(this.sig, CANCEL, 1);
    this.drain();
    this.results.clear();
  }
}

// ---- the helper's side ----------------------------------------------------------------

/** The walk of one subtree, synchronous (the helper has no event loop): see Walker.subtree. */
export interface SubtreeWalker {
  subtree(e: Entry, stop: () => boolean, max: number): Uint8Array | null;
}

/** Walk subtrees from the back until the command's thread meets them; each answered on its own. */
export function runFindJob(job: FindJob, answer: (m: Done) => void, walker: (ctx: { fs: Vfs; cwd: string }, plan: FindPlan, nowMs: number) => SubtreeWalker): void {
  const sig = job.sig;
  try {
    const fs = new Vfs(job.root, { ...job.policy, followSymlinks: false });
    const plan = parseFind(job.args, { fs, cwd: job.cwd, nowMs: job.nowMs });
    const w = walker({ fs, cwd: job.cwd }, plan, job.nowMs);
    let index = -1;
    let made = 0;
    // Stopped: the walk is over, or the command's thread took this subtree back.
    const stop = () => Atomics.load(sig, CANCEL) !== 0 || (Atomics.load(sig, CLAIMS) & 0xffff) > index;
    for (;;) {
      const s = Atomics.load(sig, CLAIMS);
      const back = s >>> 16;
      const front = s & 0xffff;
      if (back <= front || Atomics.load(sig, CANCEL) !== 0) break;
      if (Atomics.compareExchange(sig, CLAIMS, s, ((back - 1) << 16) | front) !== s) continue;
      index = back - 1;
      const t = job.subtrees[index]!;
      const e: Entry = { path: t.path, bytes: t.bytes, root: job.top, depth: 1, type: 'dir', name: t.name, nameBytes: t.nameBytes };
      let out: Uint8Array | null = null;
      try {
        out = w.subtree(e, stop, HELPER_MAX_OUT);
      } catch {
        out = null;
      }
      answer({ find: job.run, index, out });
      made += out?.length ?? 0;
      if (made > JOB_MAX_OUT) break;
    }
  } catch { /* nothing more claimed: the command's thread walks the rest */ }
  answer({ find: job.run, done: true });
}
