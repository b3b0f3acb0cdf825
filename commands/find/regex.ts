/**
 * find -regex / -iregex through the project's regex module (src/regex).
 *
 * GNU find matches the WHOLE path (re_match must consume it all), so the translated
 * pattern is anchored at both ends. Dialects (-regextype):
 *   posix-basic, posix-minimal-basic, ed, sed   -> BRE, sed flavour (RE_SYNTAX_POSIX_BASIC)
 *   grep                                        -> BRE, grep flavour
 *   posix-extended, awk, posix-awk, gnu-awk     -> ERE, sed flavour (POSIX_EXTENDED; the awk
 *                                                  variants differ from it only in details
 *                                                  find users do not meet: \ escapes in lists)
 *   egrep, posix-egrep                          -> ERE, grep flavour
 *   emacs, findutils-default (the default)      -> rewritten to the nearest GNU BRE:
 *       `+` `?` are operators (become `\+` `\?`), `\+` `\?` `\{` `\}` are literals,
 *       `{` `}` are literals (no intervals), `\( \) \| \1..\9 \w \W \< \> \b \B \` \'`
 *       keep their meaning. Emacs syntax has no `[[:class:]]`: `[[:digit:]]` is the list
 *       of `[ : d i g t` followed by a literal `]`, as glibc reads it.
 * `.` and negated lists match a newline in a file name (RE_DOT_NEWLINE).
 */
import { assertCompiles, compileRegex, RegexSyntaxError, type RegexOptions } from '../../src/regex/index.js';

export const REGEX_TYPES = [
  'findutils-default', 'ed', 'emacs', 'gnu-awk', 'grep', 'posix-awk', 'awk', 'posix-basic',
  'posix-egrep', 'egrep', 'posix-extended', 'posix-minimal-basic', 'sed',
];

/** Rewrite an emacs-syntax regex as the equivalent GNU BRE. */
export function emacsToBasic(p: string): string {
  let out = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '\\') {
      const d = p[i + 1];
      i++;
      if (d === undefined) out += '\\';
      else if (d === '+' || d === '?' || d === '{' || d === '}') out += d;
      else out += '\\' + d;
    } else if (c === '+' || c === '?') out += '\\' + c;
    else if (c === '[') {
      // Copy a bracket expression (']' first is a member). Emacs syntax has no
      // [:class:] (no RE_CHAR_CLASSES): a '[' before ':' is a plain member, moved to
      // the end of the list so that the BRE does not read a class there.
      let j = i + 1;
      if (p[j] === '^') j++;
      if (p[j] === ']') j++;
      let body = p.slice(i, j);
      let bracketMember = false;
      while (j < p.length && p[j] !== ']') {
        if (p[j] === '[' && p[j + 1] === ':') {
          bracketMember = true;
          j++;
        } else if (p[j] === '[' && (p[j + 1] === '.' || p[j + 1] === '=')) {
          const close = p.indexOf(p[j + 1]! + ']', j + 2);
          const end = close < 0 ? j + 1 : close + 2;
          body += p.slice(j, end);
          j = end;
        } else body += p[j++];
      }
      if (j >= p.length) {
        // Unterminated: leave it to the BRE compiler's error.
        out += p.slice(i);
        i = p.length;
        continue;
      }
      out += body + (bracketMember ? '[' : '') + ']';
      i = j;
    } else out += c;
  }
  return out;
}

export class FindRegexError extends Error {}

export function compileFindRegex(pattern: string, type: string, ignoreCase: boolean): RegExp {
  let opts: RegexOptions;
  let src = pattern;
  switch (type) {
    case 'emacs':
    case 'findutils-default':
      src = emacsToBasic(pattern);
      opts = { dialect: 'basic', flavor: 'grep' };
      break;
    case 'grep':
      opts = { dialect: 'basic', flavor: 'grep' };
      break;
    case 'egrep':
    case 'posix-egrep':
      opts = { dialect: 'extended', flavor: 'grep' };
      break;
    case 'posix-extended':
    case 'awk':
    case 'posix-awk':
    case 'gnu-awk':
      opts = { dialect: 'extended', flavor: 'sed' };
      break;
    default:
      opts = { dialect: 'basic', flavor: 'sed' };
  }
  try {
    const re = compileRegex(src, { ...opts, ignoreCase, newline: 'any' });
    return assertCompiles(new RegExp(`^(?:${re.source})$`, re.flags));
  } catch (e) {
    if (e instanceof RegexSyntaxError) throw new FindRegexError(e.message);
    throw e;
  }
}
