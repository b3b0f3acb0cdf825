/** awk regexes (gawk's dialect) through the shared regex module, with a cache for dynamic ones. */
import { compileRegex, RegexSyntaxError } from '../../src/regex/index.js';

export class AwkFatal extends Error {
  /** A regex error: the regex module's message with the pattern (a constant one is a parse error in gawk). */
  regex?: string;
  constructor(message: string, readonly status = 2) {
    super(message);
  }
}

const META = '\\^$.[]|()*+?{}';

/** gawk's escapes in a regex (\n \t \/ \y \ooo \xhh ...) made plain for the ERE parser. */
export function awkRegexSource(src: string): string {
  return literalLeadingOps(escapes(src));
}

/** gawk reads `*`, `+` and `?` with nothing to repeat (at the start, after `(`, `|` or a leading `^`) as literal characters. */
function literalLeadingOps(src: string): string {
  let out = '';
  let atStart = true;
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === '\\') {
      out += c + (src[i + 1] ?? '');
      i++;
      atStart = false;
      continue;
    }
    if (c === '[') {
      let j = i + 1;
      if (src[j] === '^') j++;
      if (src[j] === ']') j++;
      while (j < src.length && src[j] !== ']') {
        if (src[j] === '[' && (src[j + 1] === ':' || src[j + 1] === '.' || src[j + 1] === '=')) {
          const close = src.indexOf(src[j + 1] + ']', j + 2);
          j = close < 0 ? j + 1 : close + 2;
        } else j++;
      }
      out += src.slice(i, j + 1);
      i = j;
      atStart = false;
      continue;
    }
    if ((c === '*' || c === '+' || c === '?') && atStart) {
      out += '\\' + c;
      atStart = false;
      continue;
    }
    out += c;
    atStart = c === '(' || c === '|' || (c === '^' && (atStart || out.length === 1));
  }
  return out;
}

function escapes(src: string): string {
  if (!src.includes('\\')) return src;
  let out = '';
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c !== '\\' || i + 1 >= src.length) { out += c; continue; }
    const d = src[++i]!;
    let lit: string | null = null;
    switch (d) {
      case 'n': lit = '\n'; break;
      case 't': lit = '\t'; break;
      case 'r': lit = '\r'; break;
      case 'f': lit = '\f'; break;
      case 'v': lit = '\v'; break;
      case 'a': lit = '\x07'; break;
      case 'b': lit = '\b'; break;
      case '/': lit = '/'; break;
      case '"': lit = '"'; break;
      case 'y': out += '\\b'; continue;
      case 'x': {
        const m = /^[0-9a-fA-F]{1,2}/.exec(src.slice(i + 1, i + 3));
        if (m) { lit = String.fromCharCode(parseInt(m[0], 16)); i += m[0].length; }
        else lit = 'x';
        break;
      }
      default:
        if (d >= '0' && d <= '7') {
          const m = /^[0-7]{1,3}/.exec(src.slice(i, i + 3))!;
          lit = String.fromCharCode(parseInt(m[0], 8) & 0xff);
          i += m[0].length - 1;
        } else {
          out += '\\' + d;
          continue;
        }
    }
    out += META.includes(lit) ? '\\' + lit : lit;
  }
  return out;
}

const cache = new Map<string, RegExp>();
const gcache = new Map<string, RegExp>();

function build(src: string, flags: string): RegExp {
  try {
    return compileRegex(awkRegexSource(src), { dialect: 'extended', flavor: 'grep', newline: 'any' }, flags);
  } catch (e) {
    if (e instanceof RegexSyntaxError) {
      const f = new AwkFatal(`invalid regexp: ${e.message}: /${src}/`);
      f.regex = `${e.message}: /${src}/`;
      throw f;
    }
    throw e;
  }
}

/** A non-global RegExp for the awk regex `src`. */
export function awkRegex(src: string): RegExp {
  let re = cache.get(src);
  if (re === undefined) {
    re = build(src, '');
    if (cache.size > 500) cache.clear();
    cache.set(src, re);
  }
  return re;
}

/** A global RegExp (for exec loops: set lastIndex before use). */
export function awkRegexG(src: string): RegExp {
  let re = gcache.get(src);
  if (re === undefined) {
    re = build(src, 'g');
    if (gcache.size > 500) gcache.clear();
    gcache.set(src, re);
  }
  return re;
}
