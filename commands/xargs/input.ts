/**
 * xargs' input items, as GNU findutils 4.9 reads them: by default blank-separated words with
 * '...' and "..." quotes and backslash escapes, counted in lines for -L; with -I whole lines
 * (leading blanks dropped); with -0 / -d one delimiter-separated item each, nothing special.
 */

export class InputError extends Error {}

export interface Item {
  arg: string;
  /** The item ends a logical input line (-L counts these). */
  eol: boolean;
}

const quoteMessage = (q: string) =>
  `unmatched ${q === '"' ? 'double' : 'single'} quote; by default quotes are special to xargs unless you use the -0 option`;

/** Items split on one byte (-0, -d): every item, empty ones included, but no empty last one. */
export function* delimited(data: Buffer, delim: number): Generator<Item> {
  let start = 0;
  for (;;) {
    const at = data.indexOf(delim, start);
    if (at < 0) {
      if (start < data.length) yield { arg: data.subarray(start).toString('latin1'), eol: true };
      return;
    }
    yield { arg: data.subarray(start, at).toString('latin1'), eol: true };
    start = at + 1;
  }
}

/**
 * The default reader. `eof`: a word that ends the input (-E); `lines`: -I, a whole line is one
 * item (blanks inside kept, leading ones dropped). Trailing blanks continue a line for -L.
 */
export function* quoted(data: Buffer, eof: string | undefined, lines: boolean): Generator<Item> {
  const text = data.toString('latin1');
  let i = 0;
  const n = text.length;
  while (i < n) {
    let arg = '';
    let started = false;
    let endsLine = false;
    // skip blanks (and, outside -I, empty lines)
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n')) i++;
    if (i >= n) break;
    for (; i < n; i++) {
      const c = text[i]!;
      if (c === '\n') {
        endsLine = true;
        i++;
        break;
      }
      if (!lines && (c === ' ' || c === '\t')) {
        // a blank: the word ends; the line ends only if a newline follows right away with no blank
        i++;
        break;
      }
      if (c === '\\') {
        if (i + 1 < n) {
          arg += text[++i];
          started = true;
          continue;
        }
        started = true;
        continue;
      }
      if (c === "'" || c === '"') {
        const close = text.indexOf(c, i + 1);
        const nl = text.indexOf('\n', i + 1);
        if (close < 0 || (nl >= 0 && nl < close)) throw new InputError(quoteMessage(c));
        arg += text.slice(i + 1, close);
        started = true;
        i = close;
        continue;
      }
      arg += c;
      started = true;
    }
    if (!started && arg === '') continue;
    if (eof !== undefined && arg === eof) return;
    yield { arg, eol: endsLine };
  }
}
