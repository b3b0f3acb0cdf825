import { defineCommand, UsageError, type CommandContext } from '../../src/command/index.js';
import { OptionError } from '../../src/command/options/errors.js';
import { VfsError } from '../../src/vfs/index.js';
import { Applier, rejectText, splitText, type HunkResult } from './apply.js';
import { parsePatch, PatchSyntaxError, reverseHunk, type FilePatch, type Hunk } from './parse.js';

/**
 * GNU patch 2.7 in batch mode (no terminal: every question answered with its default):
 * unified and context diffs from -i FILE, the PATCHFILE operand or stdin; -p -R -N -o -b
 * -F --dry-run; offsets and fuzz with GNU's messages, FILE.rej and FILE.orig (backup if
 * mismatch), new, deleted and renamed files (git headers). Before any file changes, every
 * file the patch would write is checked: a name that is absolute or climbs with '..', or a
 * path that leaves the zone or goes through a symlink, refuses the whole patch.
 */
export default defineCommand({
  name: 'patch',
  summary: 'Apply a diff file to an original.',
  usage: '[ORIGFILE [PATCHFILE]]',
  mutates: (args) => !args.includes('--dry-run'),
  reference: 'GNU patch 2.7.6',
  tryHelpNamed: true,
  flags: [
    { key: 'p', short: 'p', long: 'strip', kind: 'string', arg: 'NUM', help: 'strip NUM leading components from file names' },
    { key: 'i', short: 'i', long: 'input', kind: 'string', arg: 'PATCHFILE', help: 'read patch from PATCHFILE instead of stdin' },
    { key: 'o', short: 'o', long: 'output', kind: 'string', arg: 'FILE', help: 'output patched files to FILE' },
    { key: 'R', short: 'R', long: 'reverse', help: 'assume patches were created with old and new files swapped' },
    { key: 'N', short: 'N', long: 'forward', help: 'ignore patches that seem to be reversed or already applied' },
    { key: 'b', short: 'b', long: 'backup', help: 'back up the original contents of each file (FILE.orig)' },
    { key: 'no-backup-if-mismatch', long: 'no-backup-if-mismatch', help: 'back up only when -b is given' },
    { key: 'F', short: 'F', long: 'fuzz', kind: 'string', arg: 'LINES', help: 'set the fuzz factor to LINES for inexact matching' },
    { key: 'dry-run', long: 'dry-run', help: 'do not actually change any files; just print what would happen' },
    { key: 's', short: 's', long: 'silent', help: 'work silently, unless an error occurs' },
    { key: 's', long: 'quiet', help: 'work silently, unless an error occurs' },
    { key: 'f', short: 'f', long: 'force', help: 'like -t, but ignore bad-Prereq patches, and assume unreversed' },
    { key: 't', short: 't', long: 'batch', help: 'ask no questions; skip bad-Prereq patches; assume reversed' },
    { key: 'merge', long: 'merge', kind: 'optional', arg: 'STYLE', help: 'refused: nosh does not merge' },
    { key: 'E', short: 'E', long: 'remove-empty-files', help: 'remove output files that are empty after patching' },
  ],
  async run(ctx) {
    if (ctx.opts.has('merge')) throw new OptionError('--merge is not supported by nosh (apply without it; failed hunks go to FILE.rej)', false, 2);
    const pv = ctx.opts.get('p');
    if (pv !== undefined && !/^\d+$/.test(pv)) throw new OptionError(`**** strip count ${pv} is not a number`, false, 2);
    const fv = ctx.opts.get('F');
    if (fv !== undefined && !/^\d+$/.test(fv)) throw new OptionError(`**** fuzz factor ${fv} is not a number`, false, 2);
    const ops = ctx.operands;
    if (ops.length > 2) throw new UsageError(`${ops[2]!}: extra operand`);
    const run: Run = {
      ctx, strip: pv === undefined ? undefined : Number(pv), reverse: ctx.opts.has('R'), forward: ctx.opts.has('N'), dry: ctx.opts.has('dry-run'),
      backup: ctx.opts.has('b'), mismatchBackup: !ctx.opts.has('no-backup-if-mismatch'), fuzz: fv === undefined ? 2 : Number(fv), output: ctx.opts.get('o'),
      silent: ctx.opts.has('s'), force: ctx.opts.has('f'), batch: ctx.opts.has('t'), out: '', status: 0, origFile: ops[0], stdoutData: [],
    };
    const input = ctx.opts.get('i') ?? ops[1];
    let text: Buffer;
    try {
      text = input === undefined || input === '-' ? await ctx.stdin.readAll() : ctx.fs.readFile(input, ctx.cwd);
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
      await ctx.warn(`**** Can't open patch file ${input} : ${e.reason}`);
      return 2;
    }
    let patches: FilePatch[];
    try {
      patches = parsePatch(text.toString('latin1'));
    } catch (e) {
      if (!(e instanceof PatchSyntaxError)) throw e;
      await ctx.warn(`**** ${e.message}`);
      return 2;
    }
    if (!patches.length && run.origFile !== undefined && text.length === 0) {
      // an empty patch for a named file: GNU "patches" it (a copy with -o)
      if (run.output !== undefined) say(run, `${run.dry ? 'checking' : 'patching'} file ${run.output} (read from ${run.origFile})\n`);
      if (run.output !== undefined && run.output !== '-') {
        try {
          ctx.fs.writeFile(run.output, ctx.fs.readFile(run.origFile, ctx.cwd), ctx.cwd, { mode: 0o600 });
        } catch (e) {
          if (!(e instanceof VfsError)) throw e;
        }
      }
      if (run.out) await ctx.stdout.write(run.out);
      return 0;
    }
    if (!patches.length) {
      await ctx.warn('**** Only garbage was found in the patch input.');
      return 2;
    }
    const plans = patches.map((fp) => plan(run, fp));
    const refusal = checkTargets(run, plans);
    if (refusal) {
      await ctx.warn(`**** ${refusal}: refused, no file was changed`);
      return 2;
    }
    for (const p of plans) await applyFile(run, p);
    if (run.out) await (run.output === '-' ? ctx.stderr : ctx.stdout).write(Buffer.from(run.out, 'latin1'));
    if (run.stdoutData.length) await ctx.stdout.write(Buffer.concat(run.stdoutData));
    return run.status;
  },
});

interface Run {
  ctx: CommandContext;
  strip: number | undefined;
  reverse: boolean;
  forward: boolean;
  dry: boolean;
  backup: boolean;
  mismatchBackup: boolean;
  fuzz: number;
  output: string | undefined;
  silent: boolean;
  force: boolean;
  batch: boolean;
  out: string;
  status: number;
  origFile: string | undefined;
  /** -o -: the patched text, printed after the messages (which go to stderr). */
  stdoutData: Buffer[];
}

interface Plan {
  fp: FilePatch;
  hunks: Hunk[];
  /** The file read (null: not found), the file written. */
  source: string | null;
  target: string | null;
  create: boolean;
  remove: boolean;
  renamedFrom?: string;
  dangerous?: string;
  /** Every name the patch could touch (checked for symlinks before anything changes). */
  names: string[];
}

function stripName(name: string | undefined, strip: number | undefined): string | null {
  if (name === undefined || name === '/dev/null') return null;
  if (strip === undefined) return name.replace(/\/+$/, '').split('/').pop() || null;
  if (strip === 0) return name;
  const parts = name.split('/');
  let k = 0;
  let i = 0;
  while (k < strip && i < parts.length) {
    if (parts[i] !== '' || i === 0) k++;
    i++;
  }
  if (k < strip) return null;
  const rest = parts.slice(i).filter((x) => x !== '').join('/');
  return rest || null;
}

function dangerous(name: string): boolean {
  return name.startsWith('/') || name.split('/').includes('..');
}

function exists(ctx: CommandContext, p: string): boolean {
  try {
    return ctx.fs.stat(p, ctx.cwd).isFile();
  } catch {
    return false;
  }
}

function plan(run: Run, fp: FilePatch): Plan {
  const hunks = run.reverse ? fp.hunks.map(reverseHunk) : fp.hunks;
  let oldN = fp.oldName ?? (fp.gitOld ?? undefined);
  let newN = fp.newName ?? (fp.gitNew ?? undefined);
  if (run.reverse) [oldN, newN] = [newN, oldN];
  const raw = [oldN, newN, fp.indexName].filter((n): n is string => n !== undefined && n !== '/dev/null');
  const bad = raw.map((n) => stripName(n, run.strip)).find((n) => n !== null && dangerous(n));
  const old = stripName(oldN, run.strip);
  const neu = stripName(newN, run.strip);
  const create = oldN === '/dev/null' || (fp.format === 'git' && !!fp.newFileMode !== run.reverse && !!(fp.newFileMode || fp.deletedFileMode));
  const remove = newN === '/dev/null' || (fp.format === 'git' && !!(run.reverse ? fp.newFileMode : fp.deletedFileMode));
  const names = [old, neu, stripName(fp.indexName, run.strip)].filter((n): n is string => n !== null);
  const p: Plan = { fp, hunks, source: null, target: null, create, remove, dangerous: bad ?? undefined, names };
  if (run.origFile !== undefined) {
    p.source = p.target = run.origFile;
    return p;
  }
  if (fp.renameFrom !== undefined && old && neu && old !== neu) {
    p.source = old;
    p.target = neu;
    p.renamedFrom = old;
    return p;
  }
  const cands = [old, neu, stripName(fp.indexName, run.strip)].filter((n): n is string => n !== null);
  const existing = cands.filter((n) => exists(run.ctx, n));
  if (existing.length) {
    const comps = (n: string) => n.split('/').length;
    const base = (n: string) => n.split('/').pop()!.length;
    existing.sort((a, b) => comps(a) - comps(b) || base(a) - base(b) || a.length - b.length);
    p.source = p.target = existing[0]!;
  } else if (create && neu) {
    p.target = neu;
  } else if (remove && old) {
    p.target = old;
  } else if (cands.length && hunks.every((h) => h.oldCount === 0)) {
    p.target = neu ?? cands[0]!;
    p.create = true;
  }
  return p;
}

/** Every path the patch would write, checked before anything changes: in the zone, no symlink on the way. */
function checkTargets(run: Run, plans: Plan[]): string | null {
  const { ctx } = run;
  for (const p of plans) {
    if (p.dangerous) return `potentially dangerous file name ${p.dangerous}`;
  }
  const paths = new Set<string>();
  if (run.output !== undefined && run.output !== '-') paths.add(run.output);
  for (const p of plans) {
    for (const n of p.names) paths.add(n);
    if (!p.target || run.dry) continue;
    const out = run.output ?? p.target;
    paths.add(out).add(out + '.rej').add(out + '.orig');
    if (p.renamedFrom) paths.add(p.renamedFrom);
  }
  for (const path of paths) {
    try {
      if (path === '-') continue;
      const r = resolveMissing(ctx, path);
      let sofar = path.startsWith('/') ? '' : ctx.cwd.replace(/\/$/, '');
      for (const part of r.parts) {
        sofar += '/' + part;
        let st;
        try {
          st = ctx.fs.lstat(sofar, '/');
        } catch (e) {
          if (e instanceof VfsError && e.errno === 'ENOENT') break;
          throw e;
        }
        if (st.isSymbolicLink()) return `${path} goes through the symlink ${sofar}`;
      }
    } catch (e) {
      if (e instanceof VfsError) return `${path}: ${e.reason}`;
      throw e;
    }
  }
  return null;
}

function say(run: Run, s: string): void {
  if (!run.silent) run.out += s;
}

async function applyFile(run: Run, p: Plan): Promise<void> {
  const { ctx } = run;
  const n = p.hunks.length;
  const plural = n === 1 ? 'hunk' : 'hunks';
  if (!p.target) {
    const lead = p.fp.leading.map((l) => `|${l}\n`).join('');
    run.out += `can't find file to patch at input line ${p.fp.line}\n${run.strip === undefined ? 'Perhaps you should have used the -p or --strip option?' : 'Perhaps you used the wrong -p or --strip option?'}\nThe text leading up to this was:\n--------------------------\n${lead}--------------------------\nFile to patch: \nSkip this patch? [y] \nSkipping patch.\n${n} out of ${n} ${plural} ignored\n`;
    run.status = Math.max(run.status, 1);
    return;
  }
  let data: Buffer = Buffer.alloc(0);
  let existed = false;
  if (p.source !== null) {
    try {
      data = ctx.fs.readFile(p.source, ctx.cwd);
      existed = true;
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
      if (e.errno !== 'ENOENT') {
        run.out += '';
        await ctx.stdout.write(Buffer.from(run.out, 'latin1'));
        run.out = '';
        await ctx.warn(`**** Can't open file ${p.source} : ${e.reason}`);
        run.status = 2;
        return;
      }
    }
  } else existed = exists(ctx, p.target);
  if (p.remove && !existed && n > 0 && !run.force) {
    run.out += `The next patch${run.reverse ? ', when reversed,' : ''} would delete the file ${p.target},\nwhich does not exist!  ${run.forward ? 'Skipping patch.' : `${run.reverse ? 'Ignore' : 'Assume'} -R? [n] \nApply anyway? [n] \nSkipping patch.`}\n`;
    run.out += `${n} out of ${n} ${plural} ignored\n`;
    run.status = Math.max(run.status, 1);
    return;
  }
  const outName = run.output ?? p.target;
  const verb = run.dry ? 'checking' : 'patching';
  say(run, `${verb} file ${outName}${run.output !== undefined ? ` (read from ${p.source ?? p.target})` : p.renamedFrom ? ` (renamed from ${p.renamedFrom})` : ''}\n`);
  if (p.create && existed && data.length > 0 && !run.force) {
    run.out += `The next patch${run.reverse ? ', when reversed,' : ''} would create the file ${p.target},\nwhich already exists!  ${run.forward ? 'Skipping patch.' : `${run.reverse ? 'Ignore' : 'Assume'} -R? [n] \nApply anyway? [n] \nSkipping patch.`}\n`;
    return reject(run, p, p.hunks, 'ignored', 0);
  }
  const file = splitText(data);
  const ap = new Applier(file, run.fuzz);
  const failed: Array<{ h: Hunk; offset: number }> = [];
  let mismatch = false;
  for (let k = 0; k < n; k++) {
    const h = p.hunks[k]!;
    let r: HunkResult = { where: -1, fuzz: 0, offset: ap.lastOffset };
    let reversed = false;
    for (let fuzz = 0; fuzz <= run.fuzz && r.where < 0 && !reversed; fuzz++) {
      r = ap.locate(h, fuzz);
      if (r.where < 0 && k === 0 && !run.force && !(h.oldCount === 0 && file.lines.length === 0)) reversed = new Applier(file, run.fuzz).locate(reverseHunk(h), fuzz).where >= 0;
    }
    if (r.where < 0) r = ap.locate(h);
    {
      if (reversed) {
        if (run.forward) run.out += `${run.reverse ? 'Unreversed patch detected!' : 'Reversed (or previously applied) patch detected!'}  Skipping patch.\n`;
        else {
          run.out += `${run.reverse ? 'Unreversed patch detected!  Ignore -R?' : 'Reversed (or previously applied) patch detected!  Assume -R?'} [n] \nApply anyway? [n] \n`;
          say(run, 'Skipping patch.\n');
        }
        return reject(run, p, p.hunks, 'ignored', 0);
      }
    }
    if (r.where < 0) {
      failed.push({ h, offset: ap.outOffset });
      mismatch = true;
      say(run, `Hunk #${k + 1} FAILED at ${(h.oldCount === 0 ? h.oldStart + 1 : h.oldStart) + ap.outOffset}.\n`);
      continue;
    }
    const at = r.where + 1 + ap.outOffset;
    ap.apply(h, r);
    if (r.fuzz || r.offset) {
      mismatch = true;
      const off = r.offset ? ` (offset ${r.offset} line${r.offset === 1 ? '' : 's'})` : '';
      say(run, `Hunk #${k + 1} succeeded at ${at}${r.fuzz ? ` with fuzz ${r.fuzz}` : ''}${off}.\n`);
    }
  }
  const result = ap.finish();
  if (run.dry && run.output !== undefined && run.output !== '-') {
    try {
      makeParents(ctx, run.output);
      ctx.fs.writeFile(run.output, result, ctx.cwd, { mode: 0o600 });
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
    }
  }
  if (!run.dry) {
    try {
      if ((run.backup || (mismatch && run.mismatchBackup)) && run.output === undefined && existed && !exists(ctx, p.target + '.orig')) ctx.fs.writeFile(p.target + '.orig', data, ctx.cwd);
      else if (run.backup && run.output === undefined && !existed) ctx.fs.writeFile(p.target + '.orig', Buffer.alloc(0), ctx.cwd);
      if (p.remove && result.length === 0 && run.output === undefined) {
        if (existed) ctx.fs.unlink(p.target, ctx.cwd);
      } else if (run.output === '-') {
        run.stdoutData.push(result);
      } else {
        makeParents(ctx, outName);
        ctx.fs.writeFile(outName, result, ctx.cwd, run.output !== undefined ? { mode: 0o600 } : existed ? {} : {});
        if (p.renamedFrom && p.renamedFrom !== outName) ctx.fs.unlink(p.renamedFrom, ctx.cwd);
      }
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
      await ctx.stdout.write(Buffer.from(run.out, 'latin1'));
      run.out = '';
      await ctx.warn(`**** Can't create file ${outName} : ${e.reason}`);
      run.status = 2;
      return;
    }
  }
  if (failed.length) await reject(run, p, failed.map((f) => f.h), 'FAILED', 0, failed.map((f) => f.offset));
}

async function reject(run: Run, p: Plan, hunks: Hunk[], what: 'FAILED' | 'ignored', _o: number, offsets?: number[]): Promise<void> {
  const n = p.hunks.length;
  // a patch skipped whole still leaves -o's file (GNU opens it first), empty
  if (what === 'ignored' && !run.dry && run.output !== undefined && run.output !== '-') {
    try {
      run.ctx.fs.writeFile(run.output, Buffer.alloc(0), run.ctx.cwd, { mode: 0o600 });
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
    }
  }
  const outName = run.output ?? p.target!;
  run.status = Math.max(run.status, 1);
  if (run.dry) {
    run.out += `${hunks.length} out of ${n} hunk${n === 1 ? '' : 's'} ${what}\n`;
    return;
  }
  const rej = outName + '.rej';
  run.out += `${hunks.length} out of ${n} hunk${n === 1 ? '' : 's'} ${what} -- saving rejects to file ${rej}\n`;
  const fp = p.fp;
  const format = fp.format === 'context' ? 'context' : 'unified';
  const restOf = (h: string | undefined) => (h ?? '').slice(4);
  let [ho, hn] = [restOf(fp.headerOld), restOf(fp.headerNew)];
  if (run.reverse) [ho, hn] = [hn, ho];
  let text = format === 'unified' ? `--- ${ho}\n+++ ${hn}\n` : `*** ${ho}\n--- ${hn}\n`;
  hunks.forEach((h, i) => { text += rejectText(h, format, offsets?.[i] ?? 0); });
  try {
    run.ctx.fs.writeFile(rej, Buffer.from(text, 'latin1'), run.ctx.cwd);
  } catch (e) {
    if (!(e instanceof VfsError)) throw e;
    await run.ctx.warn(`**** Can't create file ${rej} : ${e.reason}`);
    run.status = 2;
  }
}

/** mkdir -p of a new file's folders. */
function makeParents(ctx: CommandContext, file: string): void {
  const parts = file.split('/').slice(0, -1);
  let p = file.startsWith('/') ? '' : '.';
  for (const part of parts) {
    if (part === '') continue;
    p += '/' + part;
    try {
      ctx.fs.mkdir(p, ctx.cwd);
    } catch (e) {
      if (!(e instanceof VfsError) || e.errno !== 'EEXIST') throw e;
    }
  }
}

/** resolve() of a path whose folders may not exist yet: the longest existing prefix is resolved. */
function resolveMissing(ctx: CommandContext, path: string): { parts: string[] } {
  const parts = path.split('/');
  for (let n = parts.length; n > 0; n--) {
    const head = parts.slice(0, n).join('/') || '/';
    try {
      const r = ctx.fs.resolve(head, ctx.cwd);
      return { parts: [...r.parts, ...parts.slice(n).filter((x) => x && x !== '.')] };
    } catch (e) {
      if (!(e instanceof VfsError) || e.errno !== 'ENOENT') throw e;
    }
  }
  return { parts: [] };
}
