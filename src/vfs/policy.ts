import { Minimatch } from 'minimatch';

/** What a zone allows. Every field has a safe default (see defaultPolicy). */
export interface ZonePolicy {
  /** No writes at all (uploads, mounts, read-only roles). */
  readonly: boolean;
  /** With readonly: deleting files is still allowed (the uploads zone). */
  allowDelete: boolean;
  /** Command names allowed here; null means every command. */
  allowedCommands: string[] | null;
  /** File extensions (with dot, lower case) that may be read or written; null means all. */
  allowedExtensions: string[] | null;
  /** Glob patterns, case-insensitive, matched against names and path suffixes. */
  blockedPatterns: string[];
  /** Follow symlinks whose target stays inside the zone. */
  followSymlinks: boolean;
  /** Largest file a write may produce, in bytes. */
  maxFileSize: number;
  /** Unquoted | builds a pipeline; false rejects it. */
  pipes: boolean;
  /** Why the zone is read-only, when it is for the caller's role rather than the zone. */
  readonlyRole?: string;
  /** Every change is committed to git (documents, groups): a write needs room for its objects too (Vfs.checkVersionRoom). */
  versioned?: boolean;
}

/**
 * Credential names blocked in every zone; a configured policy's blockedPatterns add to these
 * (replaceDefaultBlocked drops them). '*secret*' and '*token*' match anywhere in a name
 * (my_secrets.txt, tokenize.ts): a false positive costs a rename, a leaked key much more.
 */
export const DEFAULT_BLOCKED_PATTERNS = [
  '.env', '.env.*', '*.pem', '*.key', 'id_rsa*', 'id_ed25519*', 'id_ecdsa*', '.ssh/', '.netrc',
  '.npmrc', '.pypirc', '.git/config', '.git-credentials', '.aws/', '.kube/', 'credentials*', '*_credentials',
  '*secret*', '*token*', '.password', '*.password', '*.p12', '*.pfx', '*.kdbx',
];

export function defaultPolicy(overrides: Partial<ZonePolicy> = {}): ZonePolicy {
  return {
    readonly: false,
    allowDelete: false,
    allowedCommands: null,
    allowedExtensions: null,
    blockedPatterns: [],
    followSymlinks: false,
    maxFileSize: 300 * 1024 * 1024,
    pipes: true,
    ...overrides,
  };
}

type GlobOptions = ConstructorParameters<typeof Minimatch>[1];

/**
 * Component globs matched as one: does any of them match the name? minimatch costs
 * microseconds a name, and a walk checks every name it meets, so the plain globs (printable
 * ASCII, no escapes, classes, braces or extglobs: literals, '*' and '?' only) are compiled:
 * a literal is a set lookup, 'abc*' a prefix, '*abc' a suffix, '*abc*' a substring, the rest
 * one RegExp, all on the lower-cased name (nocase). minimatch stays the authority for every other glob, and
 * for every name that is not printable ASCII (its case folding is its own), '.' or '..'.
 */
class GlobSet {
  private readonly all: Minimatch[];
  private readonly others: Minimatch[] = [];
  private readonly exact = new Set<string>();
  private readonly prefixes: string[] = [];
  private readonly suffixes: string[] = [];
  private readonly infixes: string[] = [];
  private readonly plain: RegExp | null;

  constructor(globs: string[], opts: GlobOptions) {
    this.all = globs.map((g) => new Minimatch(g, opts));
    const rest: string[] = [];
    globs.forEach((glob, i) => {
      const src = plainGlobSource(glob);
      const lower = glob.toLowerCase();
      if (src === null) this.others.push(this.all[i]!);
      else if (!/[*?]/.test(lower)) this.exact.add(lower);
      else if (lower.endsWith('*') && !/[*?]/.test(lower.slice(0, -1))) this.prefixes.push(lower.slice(0, -1));
      else if (lower.startsWith('*') && !/[*?]/.test(lower.slice(1))) this.suffixes.push(lower.slice(1));
      else if (infixOf(lower) !== null) this.infixes.push(infixOf(lower)!);
      else rest.push(src);
    });
    this.plain = rest.length > 0 ? new RegExp(`^(?:${rest.join('|')})$`, 'i') : null;
  }

  get size(): number {
    return this.all.length;
  }

  /** `lower`: the name lower-cased if compiled matching applies to it (see matchKey), else null. */
  match(name: string, lower: string | null = matchKey(name)): boolean {
    if (lower === null) return this.all.some((m) => m.match(name));
    if (this.exact.has(lower)) return true;
    for (const p of this.prefixes) if (lower.startsWith(p)) return true;
    for (const x of this.suffixes) if (lower.endsWith(x)) return true;
    for (const x of this.infixes) if (lower.includes(x)) return true;
    return (this.plain !== null && this.plain.test(name)) || this.others.some((m) => m.match(name));
  }
}

const PLAIN_GLOB = /^[\x20-\x7e]*$/;
/** What makes a glob more than literals, '*' and '?' (and '**', a globstar on its own). */
const GLOB_SYNTAX = /[[\]{}()!+@\\/]|\*\*/;

/** The RegExp source of a plain glob (see GlobSet), or null. */
function plainGlobSource(glob: string): string | null {
  if (glob === '' || !PLAIN_GLOB.test(glob) || GLOB_SYNTAX.test(glob)) return null;
  let src = '';
  for (const c of glob) src += c === '*' ? '[^/]*' : c === '?' ? '[^/]' : c.replace(/[\\^$.*+?()[\]{}|\/-]/g, '\\$&');
  return src;
}

/** 'abc' of a plain '*abc*' glob (a literal between two stars), else null. */
function infixOf(lower: string): string | null {
  if (lower.length < 3 || !lower.startsWith('*') || !lower.endsWith('*')) return null;
  const mid = lower.slice(1, -1);
  return /[*?]/.test(mid) ? null : mid;
}

/**
 * A quick test that most names fail: could any of these globs match `name`, judging by its
 * first and last character only? A plain glob that starts with a literal needs that first
 * byte; one that ends with a literal needs that last byte; a '*abc*' glob needs 'abc'
 * somewhere (one case-insensitive RegExp for them all). Null (no filter) when some other
 * glob has wildcards at both ends or is not plain. A name whose first or last character is
 * not ASCII always passes (minimatch decides its case folding), and so does any name with a
 * non-ASCII character when a '*abc*' glob is there; other characters do not matter.
 */
function edgeFilter(globs: string[]): ((name: string) => boolean) | null {
  // Indexed by the lower-cased ASCII code: a table lookup beats a Set for every name a walk meets.
  const first = new Uint8Array(128);
  const last = new Uint8Array(128);
  const infixes: string[] = [];
  for (const glob of globs) {
    if (plainGlobSource(glob) === null) return null;
    const lower = glob.toLowerCase();
    const a = lower[0]!;
    const z = lower[lower.length - 1]!;
    if (a !== '*' && a !== '?') first[a.charCodeAt(0)] = 1;
    else if (z !== '*' && z !== '?') last[z.charCodeAt(0)] = 1;
    else if (infixOf(lower) !== null) infixes.push(infixOf(lower)!);
    else return null;
  }
  const inside = infixes.length === 0 ? null
    : new RegExp(`[^\\x00-\\x7f]|${infixes.map((x) => x.replace(/[\\^$.*+?()[\]{}|\/-]/g, '\\$&')).join('|')}`, 'i');
  return (name) => {
    const a = name.charCodeAt(0);
    const z = name.charCodeAt(name.length - 1);
    if (!(a < 0x80 && z < 0x80)) return true; // also '' (NaN)
    return first[lowerByte(a)] === 1 || last[lowerByte(z)] === 1 || (inside !== null && inside.test(name));
  };
}

function lowerByte(c: number): number {
  return c >= 65 && c <= 90 ? c + 32 : c;
}

/** The lower-cased name when the compiled globs may decide it; null: minimatch decides. */
function matchKey(name: string): string | null {
  return minimatchDecides(name) ? null : name.toLowerCase();
}

function minimatchDecides(name: string): boolean {
  return name === '' || name === '.' || name === '..' || !isPrintableAscii(name);
}

function isPrintableAscii(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

/**
 * Compiled blocked-name matcher. A pattern without '/' matches any single component
 * (so everything below a blocked directory is blocked too); 'name/' matches directory
 * components only; a pattern with an inner '/' matches a run of trailing components.
 */
export class BlockMatcher {
  private static readonly cache = new Map<string, BlockMatcher>();
  /** By the list itself when it is frozen (a shared policy's): no key to build per task. */
  private static readonly byList = new WeakMap<readonly string[], BlockMatcher>();

  /** Compiled once per distinct pattern list (zones share lists; compiling is not free). */
  static for(patterns: string[]): BlockMatcher {
    const known = BlockMatcher.byList.get(patterns);
    if (known) return known;
    const m = BlockMatcher.forKey(patterns);
    if (Object.isFrozen(patterns)) BlockMatcher.byList.set(patterns, m);
    return m;
  }

  private static forKey(patterns: string[]): BlockMatcher {
    const key = patterns.join('\0');
    let m = BlockMatcher.cache.get(key);
    if (!m) {
      if (BlockMatcher.cache.size > 256) BlockMatcher.cache.clear();
      m = new BlockMatcher(patterns);
      BlockMatcher.cache.set(key, m);
    }
    return m;
  }

  private readonly names: GlobSet;
  private readonly dirs: GlobSet;
  private readonly suffixes: { parts: GlobSet[] }[] = [];
  /** The last component glob of each multi-component pattern. */
  private readonly suffixGlobsLast: string[] = [];
  /** See edgeFilter: names no glob here can match, told by their first and last bytes. */
  private readonly edges: ((name: string) => boolean) | null;

  constructor(patterns: string[]) {
    const opts = { nocase: true, dot: true, nonegate: true, nocomment: true };
    const names: string[] = [];
    const dirs: string[] = [];
    for (const raw of patterns) {
      const p = raw.replace(/^\/+/, '');
      if (p === '') continue;
      if (p.endsWith('/') && !p.slice(0, -1).includes('/')) dirs.push(p.slice(0, -1));
      else if (!p.includes('/')) names.push(p);
      else {
        const parts = p.replace(/\/+$/, '').split('/');
        this.suffixes.push({ parts: parts.map((s) => new GlobSet([s], opts)) });
        this.suffixGlobsLast.push(parts[parts.length - 1]!);
      }
    }
    this.names = new GlobSet(names, opts);
    this.dirs = new GlobSet(dirs, opts);
    this.edges = edgeFilter([...names, ...dirs, ...this.suffixGlobsLast]);
  }

  get empty(): boolean {
    return this.names.size + this.dirs.size + this.suffixes.length === 0;
  }

  /**
   * Does a directory named `name` take part, as a non-final component, in some
   * multi-component pattern? Then moving it changes what is blocked below it.
   */
  anchorsBelow(name: string): boolean {
    return this.suffixes.some(({ parts }) => parts.slice(0, -1).some((m) => m.match(name)));
  }

  /** False when no pattern can block this name, whatever its type or parents (a quick test). */
  mayBlock(name: string): boolean {
    return this.edges === null || this.edges(name);
  }

  /**
   * What the name alone says, as bits: 1 blocked as a file, 2 as a directory, 4 it may end
   * a multi-component pattern ('.git/config'), so its parents decide (blocksComponent).
   */
  nameBits(name: string): number {
    if (this.edges && !this.edges(name)) return 0;
    const key = matchKey(name);
    const file = this.names.match(name, key);
    const dir = file || this.dirs.match(name, key);
    const ends = this.suffixes.some(({ parts }) => parts[parts.length - 1]!.match(name, key));
    return (file ? 1 : 0) | (dir ? 2 : 0) | (ends ? 4 : 0);
  }

  /** Is the entry `name` (its parents `parents`) blocked? `isDir` matters for 'x/' patterns. */
  blocksComponent(parents: readonly string[], name: string, isDir: boolean): boolean {
    if (this.names.match(name)) return true;
    if (isDir && this.dirs.match(name)) return true;
    for (const { parts } of this.suffixes) {
      const n = parts.length;
      if (n - 1 > parents.length) continue;
      if (!parts[n - 1]!.match(name)) continue;
      let okAll = true;
      for (let i = 0; i < n - 1; i++) {
        if (!parts[i]!.match(parents[parents.length - (n - 1) + i]!)) { okAll = false; break; }
      }
      if (okAll) return true;
    }
    return false;
  }
}

/** Lower-case extension with its dot ('' when none). */
export function extensionOf(name: string): string {
  const i = name.lastIndexOf('.');
  return i > 0 ? name.slice(i).toLowerCase() : '';
}
