/**
 * One cheap pass over a message line before JSON.parse, for what parsing would lose or cost:
 * - nesting depth: a 16 MB line of `[` held the serving thread for seconds inside JSON.parse;
 *   a line nested deeper than MAX_DEPTH is refused without being parsed;
 * - the raw text of each top-level `"id"` number (of the message, or of each element of a
 *   batch): JSON.parse turns 9007199254740993 into 9007199254740992, and an answer must carry
 *   the id exactly as sent.
 * Strings are skipped with indexOf, so a line that is mostly one long string (a 16 MB write)
 * costs little more than a memchr.
 */

/** Deepest nesting of arrays and objects accepted in one message (JSON-RPC needs 3 or 4). */
export const MAX_DEPTH = 1000;

export interface LineScan {
  /** Deeper than the bound: do not parse. */
  tooDeep: boolean;
  /**
   * Raw text of the top-level "id" when it is a number: index 0 for a single message, the
   * element's index for a batch. Absent when the id is not a number (or not found).
   */
  ids: Map<number, string>;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export function scanLine(line: string, maxDepth = MAX_DEPTH): LineScan {
  const ids = new Map<number, string>();
  let depth = 0;
  // The container of the top level (0x5b '[' or 0x7b '{'), and of depth 2 inside a batch.
  let top = 0;
  let inner = 0;
  let element = 0;
  const n = line.length;
  let i = 0;
  while (i < n) {
    const c = line.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      i = stringEnd(line, i + 1);
      if (i < 0) return { tooDeep: false, ids }; // unterminated: JSON.parse says so
      // A key at the level of a message object: `"id"` then `:` then maybe a number.
      if (i - start === 3 && line.charCodeAt(start + 1) === 0x69 && line.charCodeAt(start + 2) === 0x64
        && ((depth === 1 && top === 0x7b) || (depth === 2 && top === 0x5b && inner === 0x7b))) {
        const raw = numberAfterColon(line, i + 1);
        if (raw !== undefined) ids.set(depth === 1 ? 0 : element, raw);
      }
      i++;
      continue;
    }
    if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > maxDepth) return { tooDeep: true, ids };
      if (depth === 1) top = c;
      else if (depth === 2) inner = c;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    } else if (c === 0x2c && depth === 1) {
      element++;
    }
    i++;
  }
  return { tooDeep: false, ids };
}

/** Index of the quote closing the string whose text starts at `from`; -1 if none. */
function stringEnd(line: string, from: number): number {
  for (;;) {
    const q = line.indexOf('"', from);
    if (q < 0) return -1;
    let b = q - 1;
    while (b >= from && line.charCodeAt(b) === BACKSLASH) b--;
    // an even number of backslashes before it: the quote is not escaped
    if ((q - 1 - b) % 2 === 0) return q;
    from = q + 1;
  }
}

const WS = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** After a key ending before `i`: `: <number>` gives the number's text. */
function numberAfterColon(line: string, i: number): string | undefined {
  while (i < line.length && WS(line.charCodeAt(i))) i++;
  if (line.charCodeAt(i) !== 0x3a) return undefined;
  i++;
  while (i < line.length && WS(line.charCodeAt(i))) i++;
  const start = i;
  while (i < line.length) {
    const c = line.charCodeAt(i);
    // digits, - + . e E: what a JSON number is made of (JSON.parse checks the form)
    if ((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45) i++;
    else break;
  }
  return i > start ? line.slice(start, i) : undefined;
}

/**
 * Put an id's raw text back into an answer serialized with the id first after "jsonrpc"
 * (as every answer nosh builds is): `{"jsonrpc":"2.0","id":9007199254740992,...` becomes
 * `{"jsonrpc":"2.0","id":9007199254740993,...`.
 */
export function spliceId(text: string, id: unknown, raw: string | undefined): string {
  if (raw === undefined || typeof id !== 'number') return text;
  const parsed = JSON.stringify(id);
  // the usual case: the number reads back as written, and a long answer is not copied
  if (parsed === raw) return text;
  const head = `{"jsonrpc":"2.0","id":${parsed}`;
  if (!text.startsWith(head)) return text;
  return `{"jsonrpc":"2.0","id":${raw}${text.slice(head.length)}`;
}
