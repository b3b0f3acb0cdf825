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
}

export const DEFAULT_BLOCKED_PATTERNS = [
  '.env', '.env.*', '*.pem', '*.key', 'id_rsa*', 'id_ed25519*', 'id_ecdsa*', '.ssh/', '.netrc',
  '.npmrc', '.pypirc', '.git/config', '.aws/', '.kube/', 'credentials*', 'secrets*',
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

/**
 * Compiled blocked-name matcher. A pattern without '/' matches any single component
 * (so everything below a blocked directory is blocked too); 'name/' matches directory
 * components only; a pattern with an inner '/' matches a run of trailing components.
 */
export class BlockMatcher {
  private static readonly cache = new Map<string, BlockMatcher>();

  /** Compiled once per distinct pattern list (zones share lists; compiling is not free). */
  static for(patterns: string[]): BlockMatcher {
    const key = patterns.join('\0');
    let m = BlockMatcher.cache.get(key);
    if (!m) {
      if (BlockMatcher.cache.size > 256) BlockMatcher.cache.clear();
      m = new BlockMatcher(patterns);
      BlockMatcher.cache.set(key, m);
    }
    return m;
  }

  private readonly names: Minimatch[] = [];
  private readonly dirs: Minimatch[] = [];
  private readonly suffixes: { parts: Minimatch[] }[] = [];

  constructor(patterns: string[]) {
    const opts = { nocase: true, dot: true, nonegate: true, nocomment: true };
    for (const raw of patterns) {
      const p = raw.replace(/^\/+/, '');
      if (p === '') continue;
      if (p.endsWith('/') && !p.slice(0, -1).includes('/')) this.dirs.push(new Minimatch(p.slice(0, -1), opts));
      else if (!p.includes('/')) this.names.push(new Minimatch(p, opts));
      else this.suffixes.push({ parts: p.replace(/\/+$/, '').split('/').map((s) => new Minimatch(s, opts)) });
    }
  }

  get empty(): boolean {
    return this.names.length + this.dirs.length + this.suffixes.length === 0;
  }

  /**
   * Does a directory named `name` take part, as a non-final component, in some
   * multi-component pattern? Then moving it changes what is blocked below it.
   */
  anchorsBelow(name: string): boolean {
    return this.suffixes.some(({ parts }) => parts.slice(0, -1).some((m) => m.match(name)));
  }

  /** Is the entry `name` (its parents `parents`) blocked? `isDir` matters for 'x/' patterns. */
  blocksComponent(parents: readonly string[], name: string, isDir: boolean): boolean {
    if (this.names.some((m) => m.match(name))) return true;
    if (isDir && this.dirs.some((m) => m.match(name))) return true;
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
