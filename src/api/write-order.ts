import * as path from 'node:path';
import { hasCommand, isReader, loadCommand, loadedCommand } from '../../commands/index.js';
import type { TaskRequest } from '../exec/index.js';

/**
 * The order of the calls that change a zone. Calls run concurrently on the pool, and two
 * read-modify-writes of one file that overlap (`sed -i`, `tee -a`, edit, write in append
 * mode: each reads the old text, writes a temp file, renames it over) lose the first one's
 * change: the second rename wins. So, per zone:
 * - a call that may change any file (a command line with a mutating command, stdout_file,
 *   copy / move / delete / mkdir, a transfer in both its zones) runs after every writer that
 *   came before it, and every writer that comes after it waits for it;
 * - a call that changes one named file (write, edit, import) waits for the last such zone-wide call
 *   and for earlier calls on the same file, and runs beside writers of other files.
 * Reads never wait. A call waits for the end of what it follows, success or failure; one
 * that hangs holds the zone's writers until its timeout stops it.
 */
export class WriteOrder {
  private readonly zones = new Map<string, ZoneWriters>();

  /**
   * `around`: what holds a writer's zones in the other processes while it runs (the engine's
   * AcrossProcesses); called once a writer's turn has come in this process, with its zone keys
   * and whether it is a one-file writer (which may share the hold with the others of its zone).
   */
  constructor(private readonly around?: <T>(zones: readonly string[], run: () => Promise<T>, oneFile: boolean) => Promise<T>) {}

  /**
   * Run a call that may change anything in the zone `zone` (its root), or in each of several
   * zones (a transfer changes two). It takes its place in every zone at once, so two calls
   * over the same zones in opposite order cannot wait for each other.
   */
  whole<T>(zone: string | readonly string[], run: () => Promise<T>): Promise<T> {
    const names = typeof zone === 'string' ? [zone] : [...new Set(zone)];
    const zones = names.map((name) => this.writers(name));
    const go = this.around ? () => this.around!(names, run, false) : run;
    const after: Promise<void>[] = [];
    for (const z of zones) {
      after.push(...z.sinceWhole);
      if (z.lastWhole) after.push(z.lastWhole);
    }
    const result = after.length === 0 ? go() : Promise.all(after).then(go);
    const settled = result.then(noop, noop);
    for (const [i, z] of zones.entries()) {
      this.track(names[i]!, z, settled);
      z.lastWhole = settled;
      z.sinceWhole.clear();
      z.files.clear(); // a later call on a file waits for this one, which waits for them
    }
    return result;
  }

  /** Run a call that changes only the file `path` (normalized, virtual) of the zone `zone`. */
  file<T>(zone: string, path: string, run: () => Promise<T>): Promise<T> {
    const z = this.writers(zone);
    const before = z.files.get(path) ?? z.lastWhole;
    const go = this.around ? () => this.around!([zone], run, true) : run;
    const result = before ? before.then(go) : go();
    const settled = result.then(noop, noop);
    this.track(zone, z, settled);
    z.files.set(path, settled);
    z.sinceWhole.add(settled);
    void settled.then(() => {
      z.sinceWhole.delete(settled);
      if (z.files.get(path) === settled) z.files.delete(path);
    });
    return result;
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

  /** Count a call while it is queued or running (until `settled`); forget the zone once none is. */
  private track(zone: string, z: ZoneWriters, settled: Promise<void>): void {
    z.pending++;
    void settled.then(() => {
      if (--z.pending === 0 && this.zones.get(zone) === z) this.zones.delete(zone);
    });
  }
}

/**
 * Where a zone's writers are ordered, and the prefix of its paths there: the output zone is
 * the folder output/ of storage, so a write through one must wait for a write of the same
 * file through the other. Every other zone is a folder of its own.
 */
export function orderKey(zone: { kind: string; root: string }): { root: string; prefix: string } {
  return zone.kind === 'output' ? { root: path.dirname(zone.root), prefix: '/' + path.basename(zone.root) } : { root: zone.root, prefix: '' };
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
    if (isReader(words[0]!)) continue;
    const def = loadedCommand(words[0]!);
    if (def === undefined) {
      if (!hasCommand(words[0]!)) continue;
      void loadCommand(words[0]!).catch(noop);
      unknown = true;
    } else if (typeof def.mutates === 'boolean' ? def.mutates : expands || def.mutates(words.slice(1), words[0]!)) return true;
    else if (def.runs) {
      // xargs: the command it runs, whose batch arguments (from stdin) may make a conditional one write
      const runs = def.runs(words.slice(1));
      const inner = runs?.[0] === undefined ? undefined : loadedCommand(runs[0]);
      if (runs === undefined || (inner === undefined && hasCommand(runs[0]!))) {
        if (runs) void loadCommand(runs[0]!).catch(noop);
        unknown = true;
      } else if (inner && (inner.mutates === true || typeof inner.mutates === 'function' || inner.runs)) return true;
    }
  }
  return unknown;
}
