/** GNU's quote() and gnulib's argmatch: the words an option value is matched against, and how a bad one is told. */
import { UsageError } from './errors.js';

/** quote() in the C locale: 'text', with backslash escapes for quotes and controls. */
export function gnuQuote(s: string): string {
  let out = '';
  // Byte by byte: in the C locale a byte >= 0x80 is not printable, so 'é' is '\303\251'.
  for (const code of Buffer.from(s, 'utf8')) {
    const ch = String.fromCharCode(code);
    if (ch === "'" || ch === '\\') out += '\\' + ch;
    else if (code < 0x20 || code >= 0x7f) {
      const named: Record<number, string> = { 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r' };
      out += '\\' + (named[code] ?? code.toString(8).padStart(3, '0'));
    } else out += ch;
  }
  return `'${out}'`;
}

/**
 * gnulib argmatch: exact or unambiguous prefix (prefixes of synonyms, same `values` entry,
 * are not ambiguous); otherwise GNU's usage error listing the choices, synonyms on one line.
 */
export function argmatch(value: string, choices: readonly string[], option: string, values: readonly string[] = choices): string {
  const r = argmatchResult(value, choices, option, values);
  if ('error' in r) throw new UsageError(r.error);
  return r.value;
}

/** argmatch without throwing: the matched value, or GNU's message. */
export function argmatchResult(value: string, choices: readonly string[], option: string, values: readonly string[] = choices): { value: string } | { error: string } {
  const exact = choices.indexOf(value);
  if (exact >= 0) return { value: values[exact]! };
  const hits = new Set(choices.flatMap((c, i) => (c.startsWith(value) ? [values[i]!] : [])));
  if (hits.size === 1) return { value: [...hits][0]! };
  const kind = hits.size > 1 ? 'ambiguous' : 'invalid';
  const lines: string[] = [];
  choices.forEach((c, i) => {
    if (i > 0 && values[i] === values[i - 1]) lines[lines.length - 1] += `, ${gnuQuote(c)}`;
    else lines.push(`  - ${gnuQuote(c)}`);
  });
  return { error: `${kind} argument ${gnuQuote(value)} for ${gnuQuote(option)}\nValid arguments are:\n${lines.join('\n')}` };
}
