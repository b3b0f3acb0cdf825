/**
 * The one place where POSIX regexes (GNU BRE/ERE dialects, fixed strings) and grep -P's
 * PCRE subset (perl.ts) become JavaScript RegExps. Used by grep, sed, awk and find.
 *
 * Text model: C locale, bytes. Callers pass patterns and match against "byte
 * strings" (latin1-decoded buffers: one char = one byte 0..255). The generated
 * regexes never use the `u` flag, and case folding is ASCII-only: letters are
 * expanded to `[aA]` instead of using the JS `i` flag (which would fold latin1
 * letters too) — except when the pattern has back-references, see emit.ts.
 *
 * Parsing follows glibc's regcomp.c with GNU grep's syntax bits (or sed's, with
 * `flavor: 'sed'`), so the accepted syntax, the literal/special status of
 * `* { ^ $` in every context and the error messages are GNU's.
 */
import { emit } from './emit.js';
import { parseRegex, RegexSyntaxError } from './parse.js';
import { literalChar } from './brackets.js';
import { translatePerl } from './perl.js';

export { RegexSyntaxError } from './parse.js';
export { MSG as REGEX_ERROR_MESSAGES } from './parse.js';

/** 'perl': grep -P, a subset of PCRE2 (see perl.ts); unsupported constructs are refused. */
export type RegexDialect = 'basic' | 'extended' | 'fixed' | 'perl';

export interface RegexOptions {
  dialect: RegexDialect;
  /** ASCII-only case folding (C locale). */
  ignoreCase?: boolean;
  /**
   * 'line' (default): `.`, `[^x]`, `\W` never match `\n` (grep).
   * 'any': they may match `\n` (sed's pattern space after N, -z mode).
   */
  newline?: 'line' | 'any';
  /** sed's M flag: `^` and `$` also match at embedded newlines (only `\n`, not `\r`). */
  multiline?: boolean;
  /**
   * 'grep' (default): GNU grep's syntax (RE_SYNTAX_GREP / RE_SYNTAX_EGREP): `a**` ok,
   * ERE `*` at start skipped with a warning, ERE `{` not starting an interval is literal,
   * unmatched ERE `)` literal.
   * 'sed': GNU sed's (RE_SYNTAX_POSIX_BASIC / _EXTENDED): those are errors
   * ("Invalid preceding regular expression", "Unmatched \\{", "Unmatched ) or \\)").
   */
  flavor?: 'grep' | 'sed';
  /**
   * Interpret GNU sed's escapes `\n \t \r \f \v \a \dNNN \oNNN \xHH \cX` as the bytes they
   * denote (`\n \t \r \f \v \a` also inside brackets). Off by default (grep: `\n` is `n`).
   */
  sedEscapes?: boolean;
}

export interface TranslatedRegex {
  /** JS regex source. */
  source: string;
  /** Without 'g'/'y'; the caller adds what it needs. Usually '' ('i' only for -i with back-references). */
  flags: string;
  /** Number of capturing groups the user wrote; JS group N is the user's group N. */
  groupCount: number;
  /** Warnings as GNU grep prints them after "grep: ", e.g. "warning: * at start of expression". */
  warnings: string[];
  /** The pattern uses back-references (V8's linear-time fallback cannot be used). */
  hasBackrefs: boolean;
  /** The generated source uses lookarounds (\< \> and multiline ^ $). */
  usesLookaround: boolean;
}

export function translateRegex(pattern: string, opts: RegexOptions): TranslatedRegex {
  const ignoreCase = !!opts.ignoreCase;
  const newline = opts.newline ?? 'line';
  const multiline = !!opts.multiline;
  if (opts.dialect === 'fixed') {
    let source = '';
    for (let i = 0; i < pattern.length; i++) {
      const c = pattern.charCodeAt(i);
      const l = c | 0x20;
      if (ignoreCase && l >= 97 && l <= 122) source += '[' + String.fromCharCode(l, l - 32) + ']';
      else source += literalChar(c & 0xff);
    }
    return {
      source: source === '' ? '(?:)' : source,
      flags: '',
      groupCount: 0,
      warnings: [],
      hasBackrefs: false,
      usesLookaround: false,
    };
  }
  if (opts.dialect === 'perl') {
    const t = translatePerl(pattern, { ignoreCase, newline, multiline });
    return { ...t, warnings: [] };
  }
  const parsed = parseRegex(pattern, {
    extended: opts.dialect === 'extended',
    grep: (opts.flavor ?? 'grep') === 'grep',
    dfa: true,
    ignoreCase,
    sedEscapes: !!opts.sedEscapes,
  });
  const out = emit(parsed.ast, { ignoreCase, newline, multiline });
  return {
    source: out.source,
    flags: ignoreCase && parsed.hasBackrefs ? 'i' : '',
    groupCount: parsed.groupCount,
    warnings: parsed.warnings,
    hasBackrefs: parsed.hasBackrefs,
    usesLookaround: out.usesLookaround,
  };
}

const CACHE_MAX = 128;
const cache = new Map<string, TranslatedRegex | RegexSyntaxError>();

function cacheKey(pattern: string, opts: RegexOptions): string {
  return [
    opts.dialect,
    opts.ignoreCase ? 'i' : '',
    opts.newline ?? 'line',
    opts.multiline ? 'm' : '',
    opts.flavor ?? 'grep',
    opts.sedEscapes ? 'e' : '',
    pattern,
  ].join('\0');
}

/** translateRegex with a small LRU cache (errors are cached too and rethrown). */
export function translateRegexCached(pattern: string, opts: RegexOptions): TranslatedRegex {
  const key = cacheKey(pattern, opts);
  let hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
  } else {
    try {
      hit = translateRegex(pattern, opts);
    } catch (e) {
      if (!(e instanceof RegexSyntaxError)) throw e;
      hit = e;
    }
    cache.set(key, hit);
    if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
  }
  if (hit instanceof RegexSyntaxError) throw new RegexSyntaxError(hit.message);
  return hit;
}

/**
 * translate + new RegExp(source, flags + extraFlags). The translation is cached; a
 * fresh RegExp object is returned each time (RegExps with 'g'/'y' carry lastIndex
 * state, so sharing them between callers would be a trap; V8 caches the compiled code).
 */
export function compileRegex(pattern: string, opts: RegexOptions, extraFlags = ''): RegExp {
  const t = translateRegexCached(pattern, opts);
  let flags = t.flags;
  for (const f of extraFlags) if (!flags.includes(f)) flags += f;
  return assertCompiles(new RegExp(t.source, flags));
}

/**
 * V8 compiles a regex on its first exec, and refuses one whose code would be too large
 * ("Regular expression too large", a SyntaxError from exec, e.g. a 40 KB pattern): try it
 * once on an empty string so that this surfaces as a RegexSyntaxError (a diagnostic of the
 * command), not as an internal error in the middle of a match.
 */
export function assertCompiles(re: RegExp): RegExp {
  const last = re.lastIndex;
  try {
    re.exec('');
  } catch (e) {
    if (e instanceof SyntaxError) throw new RegexSyntaxError('regular expression too large');
    throw e;
  } finally {
    re.lastIndex = last;
  }
  return re;
}
