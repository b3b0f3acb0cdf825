import { defineCommand, versionText, type CommandContext, type CommandDef, type RepoAccess } from '../../src/command/index.js';
import { NoshError } from '../../src/errors.js';
import { walk } from '../../src/vfs/walk.js';
import { loadDiffs, patch, stat, type FileDiff } from './format.js';
import { blame } from './blame.js';
import { log, parseLogArgs, parts, showCommit } from './log.js';
import { fileDiffRenames } from './rename.js';
import { GitError, L, REFUSED, REFUSED_GLOBAL, refuseDashRef, refused } from './util.js';

/** Subcommands that change files (and so take the zone's write order), by their words. */
function mutates(args: string[]): boolean {
  const sub = args.find((a) => !a.startsWith('-'));
  if (sub === 'restore' || sub === 'checkout' || sub === 'revert') return true;
  if (sub === 'tag') {
    const rest = args.slice(args.indexOf(sub) + 1);
    return rest.some((a) => !a.startsWith('-') || a === '-d' || a === '-a' || a === '-m' || a === '--delete');
  }
  return false;
}

const def: CommandDef = defineCommand({
  name: 'git',
  summary: 'The version history of a versioned zone (documents, group:<id>): log, show, diff, status, blame, restore, revert, tag.',
  usage: '<command> [<args>]',
  mutates,
  parse: 'raw',
  reference: 'git 2.39',
  usageStatus: 129,
  flags: [],
  async run(ctx) {
    const out = async (s: string) => { if (s !== '') await ctx.stdout.write(Buffer.from(s, 'latin1')); };
    if (ctx.args[0] === '--version') { await out(versionText(def)); return 0; }
    try {
      return await dispatch(ctx, out);
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      await ctx.stderr.write(Buffer.from(`${e.prefix}: ${e.message}\n`, 'latin1'));
      return e.status;
    }
  },
});

type Out = (s: string) => Promise<void>;

async function dispatch(ctx: CommandContext, out: Out): Promise<number> {
  const args = ctx.args;
  for (const a of args) {
    if (!a.startsWith('-')) break;
    const key = a.includes('=') ? a.slice(0, a.indexOf('=')) : a;
    if (REFUSED_GLOBAL[key] !== undefined) throw refused(key, REFUSED_GLOBAL[key]!);
  }
  const at = args.findIndex((a) => !a.startsWith('-'));
  if (at > 0 || args.length === 0) {
    await out('usage: git <command> [<args>]\n\nnosh offers: log, show, diff, status, blame, ls-files, rev-parse, tag, restore, checkout, revert.\n');
    return args.length === 0 || args[0] === '--help' ? (args.length === 0 ? 1 : 0) : 129;
  }
  const sub = args[0]!;
  const rest = args.slice(1);
  if (sub === 'reset' && rest.some((a) => a === '--hard' || a === '--merge' || a === '--keep')) throw refused('reset --hard', REFUSED['reset --hard']!);
  if (REFUSED[sub] !== undefined) throw refused(sub, REFUSED[sub]!);
  const repo = ctx.repo;
  if (!repo) {
    throw new NoshError('INVALID_ARGUMENT', 'git: not a versioned zone',
      'Versions are kept in the documents zone and group:<id> zones: run git there (zone: "documents").');
  }
  switch (sub) {
    case 'log': return log(repo, rest, out);
    case 'blame': return blame(repo, rest, ctx.cwd, out);
    case 'show': return show(repo, rest, out);
    case 'diff': return diff(ctx, repo, rest, out);
    case 'status': return status(ctx, repo, rest, out);
    case 'ls-files': return lsFiles(repo, rest, out);
    case 'rev-parse': return revParse(repo, rest, out);
    case 'tag': return tag(repo, rest, out);
    case 'restore': return restore(ctx, repo, rest, out, false);
    case 'checkout': return restore(ctx, repo, rest, out, true);
    case 'revert': return revert(ctx, repo, rest, out);
    default:
      await ctx.stderr.write(`git: '${L(sub)}' is not a git command nosh offers. See 'git --help'.\n`);
      return 1;
  }
}

async function mustHead(repo: RepoAccess): Promise<string> {
  const head = await repo.head();
  if (head === undefined) throw new GitError("your current branch 'main' does not have any commits yet", 128);
  return head;
}

async function resolve(repo: RepoAccess, rev: string): Promise<string> {
  refuseDashRef(rev);
  const oid = await repo.resolve(rev);
  if (oid === undefined) throw new GitError(`ambiguous argument '${L(rev)}': unknown revision or path not in the working tree.\nUse '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'`, 128);
  return oid;
}

async function show(repo: RepoAccess, args: string[], out: Out): Promise<number> {
  const { o, revs } = parseLogArgs(args, true);
  if (revs.length === 0) revs.push('HEAD');
  let first = true;
  for (const rev of revs) {
    refuseDashRef(rev);
    const colon = rev.indexOf(':');
    if (colon >= 0) {
      const commit = await resolve(repo, rev.slice(0, colon) || 'HEAD');
      const file = rev.slice(colon + 1);
      const e = await repo.entryAt((await repo.readCommit(commit)).tree, file);
      if (!e) throw new GitError(`path '${L(file)}' does not exist in '${L(rev.slice(0, colon) || 'HEAD')}'`, 128);
      if (e.type === 'tree') {
        const names = (await repo.files(e.oid));
        const top = [...new Set([...names.keys()].map((k) => { const i = k.indexOf('/'); return i < 0 ? k : k.slice(0, i + 1); }))];
        await out(`tree ${L(rev)}\n\n${top.map((n) => L(n) + '\n').join('')}`);
      } else await out(Buffer.from(await repo.readBlob(e.oid)).toString('latin1'));
      continue;
    }
    const c = await repo.readCommit(await resolve(repo, rev));
    const parentTree = c.parent[0] ? (await repo.readCommit(c.parent[0])).tree : undefined;
    let changes = [];
    if (o.paths.length > 0) for (const p of o.paths) changes.push(...await repo.diffTrees(parentTree, c.tree, p));
    else changes = await repo.diffTrees(parentTree, c.tree);
    changes.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
    await out((first ? '' : '\n') + await showCommit(repo, c, { ...o, patch: o.explicitPatch || (o.patch && !o.stat && !o.nameOnly && !o.nameStatus) }, changes));
    first = false;
  }
  return 0;
}

/** The zone's files now: path -> bytes (what a work tree is here). */
function workTree(ctx: CommandContext): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  for (const ev of walk(ctx.fs, '/', '/')) {
    if (ev.kind === 'file' && ev.type === 'file') files.set(ev.rel, ctx.fs.readFile('/' + ev.rel));
  }
  return files;
}

async function worktreeChanges(ctx: CommandContext, repo: RepoAccess, tree: string | undefined, under: string[][]): Promise<{ diffs: FileDiff[]; untracked: string[] }> {
  const committed = tree ? await repo.files(tree) : new Map();
  // what git's index holds here: HEAD's files (a file there but not in `tree` is new in the diff)
  const head = await repo.head();
  const index = head ? await repo.files((await repo.readCommit(head)).tree) : new Map();
  const now = workTree(ctx);
  const inside = (p: string) => under.length === 0 || under.some((u) => { const j = u.join('/'); return p === j || p.startsWith(j + '/'); });
  const diffs: FileDiff[] = [];
  const untracked: string[] = [];
  const names = [...new Set([...committed.keys(), ...now.keys()])].filter(inside).sort();
  for (const p of names) {
    const c = committed.get(p);
    const data = now.get(p);
    if (c && data) {
      const oid = await repo.hashBlob(data);
      if (oid !== c.oid) diffs.push({ path: p, old: { oid: c.oid, mode: c.mode, data: await repo.readBlob(c.oid) }, new: { oid, mode: c.mode, data } });
    } else if (c) diffs.push({ path: p, old: { oid: c.oid, mode: c.mode, data: await repo.readBlob(c.oid) } });
    else if (index.has(p)) diffs.push({ path: p, new: { oid: await repo.hashBlob(data!), mode: index.get(p).mode, data: data! } });
    else untracked.push(p);
  }
  return { diffs, untracked };
}

async function diff(ctx: CommandContext, repo: RepoAccess, args: string[], out: Out): Promise<number> {
  let context = 3;
  let mode: 'patch' | 'stat' | 'name-only' | 'name-status' = 'patch';
  const revs: string[] = [];
  let paths: string[][] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') { paths = args.slice(i + 1).map(parts); break; }
    if (a === '--cached' || a === '--staged') continue;
    if (a === '--stat') mode = 'stat';
    else if (a === '--name-only') mode = 'name-only';
    else if (a === '--name-status') mode = 'name-status';
    else if (/^-U\d+$/.test(a)) context = Number(a.slice(2));
    else if (a.startsWith('--unified=')) context = Number(a.slice(10));
    else if (a === '--word-diff' || a.startsWith('--word-diff=')) throw refused('diff --word-diff', 'not offered: use git diff (line diffs).');
    else if (a.startsWith('-')) throw new GitError(`invalid option: ${L(a)}`, 129, 'error');
    else if (a.includes('..')) revs.push(...a.split('..').map((x) => x || 'HEAD'));
    else revs.push(a);
  }
  let diffs: FileDiff[];
  if (revs.length >= 2) {
    const a = (await repo.readCommit(await resolve(repo, revs[0]!))).tree;
    const b = (await repo.readCommit(await resolve(repo, revs[1]!))).tree;
    diffs = await treeDiffs(repo, a, b, paths);
  } else {
    const tree = revs.length === 1 ? (await repo.readCommit(await resolve(repo, revs[0]!))).tree : (await repo.head()) === undefined ? undefined : (await repo.readCommit(await mustHead(repo))).tree;
    diffs = (await worktreeChanges(ctx, repo, tree, paths)).diffs;
  }
  diffs = (await fileDiffRenames(diffs)).map((d) => ({ ...d, path: L(d.path), ...(d.from ? { from: { path: L(d.from.path), score: d.from.score } } : {}) }));
  if (mode === 'stat') await out(stat(diffs));
  else if (mode === 'name-only') await out(diffs.map((d) => d.path + '\n').join(''));
  else if (mode === 'name-status') {
    await out(diffs.map((d) => (d.from ? `R${String(d.from.score).padStart(3, '0')}\t${d.from.path}\t${d.path}\n` : `${!d.old ? 'A' : !d.new ? 'D' : 'M'}\t${d.path}\n`)).join(''));
  }
  else await out(diffs.map((d) => patch(d, context)).join(''));
  return 0;
}

async function treeDiffs(repo: RepoAccess, a: string, b: string, paths: string[][]): Promise<FileDiff[]> {
  const changes = [];
  if (paths.length === 0) changes.push(...await repo.diffTrees(a, b));
  else for (const p of paths) changes.push(...await repo.diffTrees(a, b, p));
  changes.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  return loadDiffs(repo, changes);
}

async function status(ctx: CommandContext, repo: RepoAccess, args: string[], out: Out): Promise<number> {
  const short = args.includes('-s') || args.includes('--short') || args.some((a) => a.startsWith('--porcelain'));
  const bad = args.find((a) => !['-s', '--short', '--porcelain', '--porcelain=v1'].includes(a));
  if (bad !== undefined) throw new GitError(`unknown option '${L(bad.replace(/^-+/, ''))}'`, 129, 'error');
  const head = await repo.head();
  const { diffs, untracked } = await worktreeChanges(ctx, repo, head ? (await repo.readCommit(head)).tree : undefined, []);
  const dirs = collapse(untracked, head ? await repo.files((await repo.readCommit(head)).tree) : new Map());
  if (short) {
    await out(diffs.map((d) => `${d.new ? ' M' : ' D'} ${L(d.path)}\n`).join('') + dirs.map((p) => `?? ${L(p)}\n`).join(''));
    return 0;
  }
  let text = 'On branch main\n';
  if (!head) text += '\nNo commits yet\n\n';
  if (diffs.length > 0) {
    text += 'Changes not staged for commit:\n  (use "git add' + (diffs.some((d) => !d.new) ? '/rm' : '') + ' <file>..." to update what will be committed)\n' +
      '  (use "git restore <file>..." to discard changes in working directory)\n' +
      diffs.map((d) => `\t${d.new ? 'modified:   ' : 'deleted:    '}${L(d.path)}\n`).join('') + '\n';
  }
  if (dirs.length > 0) {
    text += 'Untracked files:\n  (use "git add <file>..." to include in what will be committed)\n' + dirs.map((p) => `\t${L(p)}\n`).join('') + '\n';
  }
  if (diffs.length > 0) text += 'no changes added to commit (use "git add" and/or "git commit -a")\n';
  else if (dirs.length > 0) text += head ? 'nothing added to commit but untracked files present (use "git add" to track)\n' : 'nothing added to commit but untracked files present (use "git add" to track)\n';
  else text += head ? 'nothing to commit, working tree clean\n' : 'nothing to commit (create/copy files and use "git add" to track)\n';
  await out(text);
  return 0;
}

/** Untracked files as git lists them: a folder with no tracked file in it is one entry 'dir/'. */
function collapse(untracked: string[], tracked: Map<string, unknown>): string[] {
  const out = new Set<string>();
  for (const p of untracked) {
    const segs = p.split('/');
    let shown = p;
    for (let i = 1; i < segs.length; i++) {
      const dir = segs.slice(0, i).join('/');
      if (![...tracked.keys()].some((t) => t.startsWith(dir + '/'))) { shown = dir + '/'; break; }
    }
    out.add(shown);
  }
  return [...out].sort();
}

async function lsFiles(repo: RepoAccess, args: string[], out: Out): Promise<number> {
  const paths = args.filter((a) => a !== '--').map(parts);
  const bad = args.find((a) => a.startsWith('-') && a !== '--');
  if (bad !== undefined) throw new GitError(`unknown option '${L(bad.replace(/^-+/, ''))}'`, 129, 'error');
  const head = await repo.head();
  if (!head) return 0;
  const files = [...(await repo.files((await repo.readCommit(head)).tree)).keys()]
    .filter((p) => paths.length === 0 || paths.some((u) => { const j = u.join('/'); return j === '' || p === j || p.startsWith(j + '/'); }));
  await out(files.map((p) => L(p) + '\n').join(''));
  return 0;
}

async function revParse(repo: RepoAccess, args: string[], out: Out): Promise<number> {
  let short = false;
  let text = '';
  for (const a of args) {
    if (a === '--short') short = true;
    else if (a === '--abbrev-ref') { text += 'main\n'; return out(text).then(() => 0); }
    else if (a === '--verify' || a === '-q' || a === '--quiet') continue;
    else if (a === '--show-toplevel') text += '/\n';
    else if (a === '--is-inside-work-tree') text += 'true\n';
    else {
      const oid = await repo.resolve(a);
      if (oid === undefined) {
        await out(text + L(a) + '\n');
        await resolve(repo, a); // git names the bad one on stdout, then fails
      }
      text += (short ? oid!.slice(0, 7) : oid) + '\n';
    }
  }
  await out(text);
  return 0;
}

async function tag(repo: RepoAccess, args: string[], out: Out): Promise<number> {
  const names: string[] = [];
  let del = false, annotate = false, list = false;
  let message: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-d' || a === '--delete') del = true;
    else if (a === '-a' || a === '--annotate') annotate = true;
    else if (a === '-l' || a === '--list') list = true;
    else if (a === '-m') { message = args[++i]; annotate = true; if (message === undefined) throw new GitError("switch `m' requires a value", 129, 'error'); }
    else if (a.startsWith('-m')) { message = a.slice(2); annotate = true; }
    else if (a.startsWith('--message=')) { message = a.slice(10); annotate = true; }
    else if (a.startsWith('-')) throw new GitError(`unknown switch \`${L(a.replace(/^-+/, ''))}'`, 129, 'error');
    else names.push(a);
  }
  for (const n of names) refuseDashRef(n);
  const tags = await repo.tags();
  if (del) {
    let status = 0;
    for (const n of names) {
      const t = tags.find((x) => x.name === n);
      if (!t) { await out(''); await errorLine(`tag '${L(n)}' not found.`); status = 1; continue; }
      await repo.deleteTag(n);
      await out(`Deleted tag '${L(n)}' (was ${t.target.slice(0, 7)})\n`);
    }
    return status;
  }
  if (list || names.length === 0) {
    const re = names.length > 0 ? names.map((n) => new RegExp('^' + n.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$')) : undefined;
    await out(tags.filter((t) => !re || re.some((r) => r.test(t.name))).map((t) => L(t.name) + '\n').join(''));
    return 0;
  }
  const [name, rev] = names;
  if (!/^(?!.*\.\.)(?!.*\/\/)(?!\/)[^\0-\x20~^:?*[\\\x7f]+(?<![./])$/.test(name!) || name!.endsWith('.lock')) throw new GitError(`'${L(name!)}' is not a valid tag name.`, 128);
  if (tags.some((t) => t.name === name)) throw new GitError(`tag '${L(name!)}' already exists`, 128);
  const commit = await resolve(repo, rev ?? 'HEAD');
  if (annotate && message === undefined) throw refused('tag -a without -m', 'give the message with -m: no editor is run.');
  await repo.createTag(name!, commit, annotate ? { message: message!.endsWith('\n') ? message! : message! + '\n' } : undefined);
  return 0;
  async function errorLine(s: string) { throw new GitError(s, 1, 'error'); }
}

/** restore [--source REV] [--] PATH... / checkout [REV] -- PATH...: the files as in REV, by a new commit. */
async function restore(ctx: CommandContext, repo: RepoAccess, args: string[], out: Out, checkout: boolean): Promise<number> {
  let source: string | undefined;
  const paths: string[] = [];
  let dashdash = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (dashdash) { paths.push(a); continue; }
    if (a === '--') { dashdash = true; continue; }
    if (!checkout && (a === '-s' || a === '--source')) source = args[++i];
    else if (!checkout && a.startsWith('--source=')) source = a.slice(9);
    else if (!checkout && (a === '-W' || a === '--worktree')) continue;
    else if (a.startsWith('-')) throw new GitError(`unknown option '${L(a.replace(/^-+/, ''))}'`, 129, 'error');
    else if (checkout && source === undefined && !dashdash) source = a;
    else paths.push(a);
  }
  if (checkout && !dashdash) {
    throw refused('checkout REV', 'a versioned zone stays on main: use git checkout REV -- PATH (or git restore --source REV PATH) to take files back.');
  }
  if (paths.length === 0) throw new GitError('you must specify path(s) to restore', 128);
  const commit = await resolve(repo, source ?? 'HEAD');
  const tree = (await repo.readCommit(commit)).tree;
  const all = await repo.files(tree);
  const changed: string[] = [];
  for (const p of paths) {
    const rel = parts(ctx.cwd + '/' + p).join('/');
    const hits = [...all.entries()].filter(([k]) => rel === '' || k === rel || k.startsWith(rel + '/'));
    if (hits.length === 0) throw new GitError(`pathspec '${L(p)}' did not match any file(s) known to git`, 1, 'error');
    for (const [k, e] of hits) {
      const data = await repo.readBlob(e.oid);
      const dir = k.split('/').slice(0, -1);
      for (let i = 1; i <= dir.length; i++) if (!ctx.fs.exists('/' + dir.slice(0, i).join('/'))) ctx.fs.mkdir('/' + dir.slice(0, i).join('/'));
      ctx.fs.writeFile('/' + k, data);
      changed.push(k);
    }
  }
  ctx.repo!.setCommitMessage(`${checkout ? 'checkout' : 'restore'}: ${changed.slice(0, 3).join(' ')}${changed.length > 3 ? ' ...' : ''} as of ${commit.slice(0, 7)}`);
  await out('');
  return 0;
}

/** revert REV: a new commit putting back what REV changed (refused when those files changed since). */
async function revert(ctx: CommandContext, repo: RepoAccess, args: string[], out: Out): Promise<number> {
  const revs = args.filter((a) => a !== '--no-edit');
  const bad = revs.find((a) => a.startsWith('-'));
  if (bad !== undefined) refuseDashRef(bad);
  if (revs.length !== 1) throw new GitError('nosh reverts one commit per call: git revert REV', 128);
  const c = await repo.readCommit(await resolve(repo, revs[0]!));
  if (c.parent.length === 0) throw new GitError(`cannot revert the first commit ${c.oid.slice(0, 7)}: use git restore --source REV PATH`, 128, 'error');
  const parentTree = (await repo.readCommit(c.parent[0]!)).tree;
  const changes = await repo.diffTrees(parentTree, c.tree);
  const now = (await repo.readCommit(await mustHead(repo))).tree;
  for (const x of changes) {
    const cur = await repo.entryAt(now, x.path);
    if ((cur?.oid) !== x.newOid) {
      throw new GitError(`could not revert ${c.oid.slice(0, 7)}... ${L(c.message.split('\n')[0]!)}\nhint: ${L(x.path)} changed since; nothing was changed (use git restore --source REV PATH)`, 1, 'error');
    }
  }
  const diffs: FileDiff[] = [];
  for (const x of changes) {
    if (x.oldOid) {
      const data = await repo.readBlob(x.oldOid);
      const dir = x.path.split('/').slice(0, -1);
      for (let i = 1; i <= dir.length; i++) if (!ctx.fs.exists('/' + dir.slice(0, i).join('/'))) ctx.fs.mkdir('/' + dir.slice(0, i).join('/'));
      ctx.fs.writeFile('/' + x.path, data);
    } else ctx.fs.unlink('/' + x.path);
    diffs.push({ path: L(x.path), old: x.newOid ? { oid: x.newOid, mode: x.newMode!, data: await repo.readBlob(x.newOid) } : undefined,
      new: x.oldOid ? { oid: x.oldOid, mode: x.oldMode!, data: await repo.readBlob(x.oldOid) } : undefined });
  }
  const subject = c.message.split('\n')[0]!;
  ctx.repo!.setCommitMessage(`Revert "${subject}"\n\nThis reverts commit ${c.oid}.\n`);
  // git prints the new commit's id here; it is made when this call ends, so nosh names the reverted one
  await out(`[main] Revert "${L(subject)}"\n${stat(diffs).split('\n').slice(-2).join('\n')}`);
  return 0;
}

export default def;
