import { hasCommand, loadCommand, loadedCommand } from '../command/registry.js';
import type { TaskRequest } from '../exec/index.js';

/**
 * The order of the calls that change a zone. Calls run concurrently on the pool, and two
 * read-modify-writes of one file that overlap (`sed -i`, `tee -a`, edit, write in append
 * mode: each reads the old text, writes a temp file, renames it over) lose the first one's
 * change: the second rename wins. So, per zone:
 * - a call that may change any file (a command line with a mutating command, stdout_file,
 *   copy / move / delete / mkdir) runs after every writer that came before it, and every
 *   writer that comes after it waits for it;
 * - a call that changes one named file (write, edit) waits for the last such zone-wide call
 *   and for earlier calls on the same file, and runs beside writers of other files.
 * Reads never wait. A call waits for the end of what it follows, success or failure; one
 * that hangs holds the zone's writers until its timeout stops it.
 */
export class WriteOrder {
  private readonly zones = new Map<string, ZoneWriters>();

  /** Run a call that may change anything in the zone `zone` (its root). */
  whole<T>(zone: string, run: () => Promise<T>): Promise<T> {
    const z = this.writers(zone);
    const after = [...z.sinceWhole];
    if (z.lastWhole) after.push(z.lastWhole);
    const done = this.track(zone, z, after.length === 0 ? run() : Promise.all(after).then(run));
    z.lastWhole = done.settled;
    z.sinceWhole.clear();
    z.files.clear(); // a later call on a file waits for this one, which waits for them
    return done.result;
  }

  /** Run a call that changes only the file `path` (normalized, virtual) of the zone `zone`. */
  file<T>(zone: string, path: string, run: () => Promise<T>): Promise<T> {
    const z = this.writers(zone);
    const before = z.files.get(path) ?? z.lastWhole;
    const done = this.track(zone, z, before ? before.then(run) : run());
    z.files.set(path, done.settled);
    z.sinceWhole.add(done.settled);
    void done.settled.then(() => {
      z.sinceWhole.delete(done.settled);
      if (z.files.get(path) === done.settled) z.files.delete(path);
    });
    return done.result;
  }

  /** Calls of the zone `zone` queued or running (diagnostics, tests). */
  pending(zone: string): number {
    return this.zones.get(zone)?.pending ?? 0;
  }

  private writers(zone: string): ZoneWriters {
    let z = this.zones.get(zone);
    if (!z) this.zones.set(zone, (z = { lastWhole: undefined, sinceWhole: new Set(), files: new Map(), pending: 0 }));
    return z;
  }

  /** Count the call while it is queued or running; forget the zone once none is. */
  private track<T>(zone: string, z: ZoneWriters, result: Promise<T>): { result: Promise<T>; settled: Promise<void> } {
    z.pending++;
    const settled = result.then(noop, noop);
    void settled.then(() => {
      if (--z.pending === 0 && this.zones.get(zone) === z) this.zones.delete(zone);
    });
    return { result, settled };
  }
}

interface ZoneWriters {
  /** The end of the last zone-wide call. */
  lastWhole: Promise<void> | undefined;
  /** The ends of the one-file calls queued since it. */
  sinceWhole: Set<Promise<void>>;
  /** The end of the last call per file since it. */
  files: Map<string, Promise<void>>;
  pending: number;
}

function noop(): void {}

/**
 * Whether a command line may change files, from its words before glob expansion (the worker
 * expands them): a command that always mutates, or one whose flags decide (sed -i, find
 * -delete, sort -o, uniq with an output file) and says so for these words. A word still to
 * be expanded could become a flag: then a conditional command counts as mutating. Unknown
 * commands do not (the worker refuses them).
 *
 * The answer comes from the commands' declarations, which the main thread imports in the
 * background the first time it meets a command: until then, a command line with it counts
 * as mutating.
 */
export function mayMutate(task: Pick<TaskRequest, 'stages' | 'stdoutFile'>): boolean {
  if (task.stdoutFile !== undefined) return true;
  let unknown = false;
  for (const stage of task.stages) {
    const words = stage.argv ?? stage.words?.map((w) => w.value) ?? [];
    if (words.length === 0) continue;
    const expands = stage.words?.some((w) => w.glob !== undefined) ?? false;
    if (stage.words?.[0]?.glob !== undefined) return true;
    const def = loadedCommand(words[0]!);
    if (def === undefined) {
      if (!hasCommand(words[0]!)) continue;
      void loadCommand(words[0]!).catch(noop);
      unknown = true;
    } else if (typeof def.mutates === 'boolean' ? def.mutates : expands || def.mutates(words.slice(1))) return true;
  }
  return unknown;
}
