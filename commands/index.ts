import type { CommandDef } from '../src/command/index.js';

/**
 * The static command registry: every command nosh runs, by name. A command is a folder
 * commands/NAME/ whose index.ts default-exports its CommandDef; it is imported on first use
 * (the literal imports below let bundlers and the type checker follow every command).
 * Adding a command is adding its folder and one line here (test/commands/registry.test.ts
 * checks that the two agree, and that every alias a command declares is listed). An alias
 * (egrep, fgrep, hd) loads its command's module; ctx.name tells the command which name ran.
 */
type Loader = () => Promise<{ default: CommandDef }>;

const LOADERS: Readonly<Record<string, Loader>> = Object.freeze({
  '[': () => import('./test/index.js'),
  'awk': () => import('./awk/index.js'),
  'b2sum': () => import('./b2sum/index.js'),
  'base32': () => import('./base32/index.js'),
  'base64': () => import('./base64/index.js'),
  'basename': () => import('./basename/index.js'),
  'basenc': () => import('./basenc/index.js'),
  'cat': () => import('./cat/index.js'),
  'cksum': () => import('./cksum/index.js'),
  'cmp': () => import('./cmp/index.js'),
  'column': () => import('./column/index.js'),
  'comm': () => import('./comm/index.js'),
  'cp': () => import('./cp/index.js'),
  'csplit': () => import('./csplit/index.js'),
  'curl': () => import('./curl/index.js'),
  'cut': () => import('./cut/index.js'),
  'date': () => import('./date/index.js'),
  'df': () => import('./df/index.js'),
  'diff': () => import('./diff/index.js'),
  'dirname': () => import('./dirname/index.js'),
  'dos2unix': () => import('./dos2unix/index.js'),
  'du': () => import('./du/index.js'),
  'echo': () => import('./echo/index.js'),
  'egrep': () => import('./grep/index.js'),
  'env': () => import('./env/index.js'),
  'expand': () => import('./expand/index.js'),
  'expr': () => import('./expr/index.js'),
  'factor': () => import('./factor/index.js'),
  'false': () => import('./false/index.js'),
  'fgrep': () => import('./grep/index.js'),
  'file': () => import('./file/index.js'),
  'find': () => import('./find/index.js'),
  'fmt': () => import('./fmt/index.js'),
  'fold': () => import('./fold/index.js'),
  'gawk': () => import('./awk/index.js'),
  'git': () => import('./git/index.js'),
  'grep': () => import('./grep/index.js'),
  'gunzip': () => import('./gzip/index.js'),
  'gzip': () => import('./gzip/index.js'),
  'hd': () => import('./hexdump/index.js'),
  'head': () => import('./head/index.js'),
  'hexdump': () => import('./hexdump/index.js'),
  'id': () => import('./id/index.js'),
  'join': () => import('./join/index.js'),
  'jq': () => import('./jq/index.js'),
  'ln': () => import('./ln/index.js'),
  'ls': () => import('./ls/index.js'),
  'md5sum': () => import('./md5sum/index.js'),
  'mkdir': () => import('./mkdir/index.js'),
  'mktemp': () => import('./mktemp/index.js'),
  'mv': () => import('./mv/index.js'),
  'nl': () => import('./nl/index.js'),
  'nproc': () => import('./nproc/index.js'),
  'numfmt': () => import('./numfmt/index.js'),
  'od': () => import('./od/index.js'),
  'paste': () => import('./paste/index.js'),
  'patch': () => import('./patch/index.js'),
  'printenv': () => import('./printenv/index.js'),
  'printf': () => import('./printf/index.js'),
  'pwd': () => import('./pwd/index.js'),
  'readlink': () => import('./readlink/index.js'),
  'realpath': () => import('./realpath/index.js'),
  'rev': () => import('./rev/index.js'),
  'rm': () => import('./rm/index.js'),
  'rmdir': () => import('./rmdir/index.js'),
  'sed': () => import('./sed/index.js'),
  'seq': () => import('./seq/index.js'),
  'sha1sum': () => import('./sha1sum/index.js'),
  'sha224sum': () => import('./sha224sum/index.js'),
  'sha256sum': () => import('./sha256sum/index.js'),
  'sha384sum': () => import('./sha384sum/index.js'),
  'sha512sum': () => import('./sha512sum/index.js'),
  'shuf': () => import('./shuf/index.js'),
  'sleep': () => import('./sleep/index.js'),
  'sort': () => import('./sort/index.js'),
  'split': () => import('./split/index.js'),
  'sqlite3': () => import('./sqlite3/index.js'),
  'stat': () => import('./stat/index.js'),
  'strings': () => import('./strings/index.js'),
  'sum': () => import('./sum/index.js'),
  'tac': () => import('./tac/index.js'),
  'tail': () => import('./tail/index.js'),
  'tar': () => import('./tar/index.js'),
  'tee': () => import('./tee/index.js'),
  'test': () => import('./test/index.js'),
  'touch': () => import('./touch/index.js'),
  'tr': () => import('./tr/index.js'),
  'tree': () => import('./tree/index.js'),
  'true': () => import('./true/index.js'),
  'truncate': () => import('./truncate/index.js'),
  'tsort': () => import('./tsort/index.js'),
  'type': () => import('./type/index.js'),
  'uname': () => import('./uname/index.js'),
  'unexpand': () => import('./unexpand/index.js'),
  'uniq': () => import('./uniq/index.js'),
  'unix2dos': () => import('./dos2unix/index.js'),
  'unzip': () => import('./unzip/index.js'),
  'wc': () => import('./wc/index.js'),
  'wget': () => import('./wget/index.js'),
  'which': () => import('./which/index.js'),
  'whoami': () => import('./whoami/index.js'),
  'xargs': () => import('./xargs/index.js'),
  'xxd': () => import('./xxd/index.js'),
  'yes': () => import('./yes/index.js'),
  'zcat': () => import('./gzip/index.js'),
  'zip': () => import('./zip/index.js'),
  'zipinfo': () => import('./zipinfo/index.js'),
});

const cache = new Map<string, CommandDef>();

/**
 * The commands that never change files (their declaration says `mutates: false` and they run
 * no other command), known without importing them: the main thread orders a command line it
 * has not imported yet as a possible writer, and a one-shot CLI call imports none. The
 * registry test checks this list against every module's declaration.
 */
const READERS: ReadonlySet<string> = new Set([
  '[', 'b2sum', 'base32', 'base64', 'basename', 'basenc', 'cat', 'cksum', 'cmp', 'column', 'comm', 'cut', 'date', 'df',
  'diff', 'dirname', 'du', 'echo', 'egrep', 'env', 'expand', 'expr', 'factor', 'false', 'fgrep', 'file', 'fmt', 'fold',
  'grep', 'hd', 'head', 'hexdump', 'id', 'join', 'jq', 'ls', 'md5sum', 'nl', 'nproc', 'numfmt', 'od', 'paste', 'printenv',
  'printf', 'pwd', 'readlink', 'realpath', 'rev', 'seq', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum',
  'sleep', 'stat', 'strings', 'sum', 'tac', 'tail', 'test', 'tr', 'tree', 'true', 'tsort', 'type', 'uname', 'unexpand',
  'wc', 'which', 'whoami', 'yes', 'zipinfo',
]);

/** True for a command that never changes files (see READERS), without importing it. */
export function isReader(name: string): boolean {
  return READERS.has(name);
}

export function commandNames(): string[] {
  return Object.keys(LOADERS).sort();
}

export function hasCommand(name: string): boolean {
  return Object.hasOwn(LOADERS, name);
}

/** A command's declaration if loadCommand has loaded it already (no import). */
export function loadedCommand(name: string): CommandDef | undefined {
  return cache.get(name);
}

export async function loadCommand(name: string): Promise<CommandDef | undefined> {
  const hit = cache.get(name);
  if (hit) return hit;
  if (!hasCommand(name)) return undefined;
  const def = (await LOADERS[name]!()).default;
  cache.set(name, def);
  return def;
}

export async function loadAllCommands(): Promise<CommandDef[]> {
  const defs = await Promise.all(commandNames().map((n) => loadCommand(n)));
  return defs.filter((d): d is CommandDef => d !== undefined);
}
