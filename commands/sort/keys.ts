/** sort's keys: -k and +POS -POS parsing, the byte tables, and where a key starts and ends in a line (sort.c). */
import { gnuQuote } from '../../src/gnulib/gnu-number.js';
import { FatalError } from '../../src/gnulib/text-lines.js';

// ---- keys -------------------------------------------------------------------------------

export const SIZE_MAX = Number.MAX_SAFE_INTEGER;

export interface Key {
  sword: number;
  schar: number;
  eword: number;
  echar: number;
  skipsblanks: boolean;
  skipeblanks: boolean;
  ignore: Uint8Array | null;
  translate: Uint8Array | null;
  numeric: boolean;
  general: boolean;
  human: boolean;
  month: boolean;
  version: boolean;
  random: boolean;
  reverse: boolean;
  /** -R: the salt of the keyed hash (set once the options are read). */
  salt: Buffer | null;
}

export const BLANKS = new Uint8Array(256);
const NONPRINTING = new Uint8Array(256);
const NONDICTIONARY = new Uint8Array(256);
export const FOLD = new Uint8Array(256);
for (let i = 0; i < 256; i++) {
  const alnum = (i >= 48 && i <= 57) || (i >= 65 && i <= 90) || (i >= 97 && i <= 122);
  BLANKS[i] = i === 32 || i === 9 || i === 10 ? 1 : 0;
  NONPRINTING[i] = i >= 32 && i < 127 ? 0 : 1;
  NONDICTIONARY[i] = !alnum && !BLANKS[i] ? 1 : 0;
  FOLD[i] = i >= 97 && i <= 122 ? i - 32 : i;
}

export function newKey(): Key {
  return {
    sword: SIZE_MAX, schar: 0, eword: SIZE_MAX, echar: 0, skipsblanks: false, skipeblanks: false,
    ignore: null, translate: null, numeric: false, general: false, human: false, month: false,
    version: false, random: false, reverse: false, salt: null,
  };
}

export function isDefaultKey(k: Key): boolean {
  return !(k.ignore || k.translate || k.skipsblanks || k.skipeblanks || k.numeric || k.general || k.human || k.month || k.version || k.random);
}

/** sort.c set_ordering: returns the index of the first character that is not an option. */
export function setOrdering(s: string, i: number, key: Key, blank: 'start' | 'end' | 'both'): number {
  for (; i < s.length; i++) {
    switch (s[i]) {
      case 'b':
        if (blank !== 'end') key.skipsblanks = true;
        if (blank !== 'start') key.skipeblanks = true;
        break;
      case 'd': key.ignore = NONDICTIONARY; break;
      case 'f': key.translate = FOLD; break;
      case 'g': key.general = true; break;
      case 'h': key.human = true; break;
      case 'i': if (!key.ignore) key.ignore = NONPRINTING; break;
      case 'M': key.month = true; break;
      case 'n': key.numeric = true; break;
      case 'R': key.random = true; break;
      case 'r': key.reverse = true; break;
      case 'V': key.version = true; break;
      default: return i;
    }
  }
  return i;
}

/** parse_field_count: a decimal at s[i]; huge values become SIZE_MAX. */
function fieldCount(s: string, i: number, msg: string): { value: number; next: number } {
  const m = /^[ \t\n\v\f\r]*\+?([0-9]+)/.exec(s.slice(i));
  if (!m) throw new FatalError(`${msg}: invalid count at start of ${gnuQuote(s.slice(i))}`);
  const n = Number(m[1]);
  return { value: n >= SIZE_MAX ? SIZE_MAX : n, next: i + m[0].length };
}

export function parseKey(spec: string): Key {
  const bad = (msg: string): never => {
    throw new FatalError(`${msg}: invalid field specification ${gnuQuote(spec)}`);
  };
  const key = newKey();
  let r = fieldCount(spec, 0, 'invalid number at field start');
  if (r.value === 0) bad('field number is zero');
  key.sword = r.value === SIZE_MAX ? SIZE_MAX : r.value - 1;
  let i = r.next;
  key.schar = 0;
  if (spec[i] === '.') {
    r = fieldCount(spec, i + 1, "invalid number after '.'");
    if (r.value === 0) bad('character offset is zero');
    key.schar = r.value === SIZE_MAX ? SIZE_MAX : r.value - 1;
    i = r.next;
  }
  if (!(key.sword || key.schar)) key.sword = SIZE_MAX;
  i = setOrdering(spec, i, key, 'start');
  if (spec[i] !== ',') {
    key.eword = SIZE_MAX;
    key.echar = 0;
  } else {
    r = fieldCount(spec, i + 1, "invalid number after ','");
    if (r.value === 0) bad('field number is zero');
    key.eword = r.value === SIZE_MAX ? SIZE_MAX : r.value - 1;
    i = r.next;
    if (spec[i] === '.') {
      r = fieldCount(spec, i + 1, "invalid number after '.'");
      key.echar = r.value;
      i = r.next;
    }
    i = setOrdering(spec, i, key, 'end');
  }
  if (i < spec.length) bad('stray character in field spec');
  return key;
}

/**
 * An obsolete +POS1 [-POS2] key (both origin 0): +A.x -B.y is -k A+1.x+1,B.y when y is 0
 * and -k A+1.x+1,B+1.y otherwise. rewriteObsoleteKeys only passes a POS1 that reads as one.
 */
export function parseObsoleteKey(pos: string, end: string | null): Key {
  const key = newKey();
  let r = fieldCount(pos, 1, '');
  key.sword = r.value;
  let i = r.next;
  if (pos[i] === '.') {
    r = fieldCount(pos, i + 1, '');
    key.schar = r.value;
    i = r.next;
  }
  if (!(key.sword || key.schar)) key.sword = SIZE_MAX;
  setOrdering(pos, i, key, 'start');
  if (end !== null) {
    r = fieldCount(end, 1, "invalid number after '-'");
    key.eword = r.value;
    i = r.next;
    if (end[i] === '.') {
      r = fieldCount(end, i + 1, "invalid number after '.'");
      key.echar = r.value;
      i = r.next;
    }
    if (!key.echar && key.eword && key.eword !== SIZE_MAX) key.eword--;
    if (setOrdering(end, i, key, 'end') < end.length) {
      throw new FatalError(`stray character in field spec: invalid field specification ${gnuQuote(end)}`);
    }
  }
  return key;
}

export function keyOpts(k: Key): string {
  let o = '';
  if (k.skipsblanks || k.skipeblanks) o += 'b';
  if (k.ignore === NONDICTIONARY) o += 'd';
  if (k.translate) o += 'f';
  if (k.general) o += 'g';
  if (k.human) o += 'h';
  if (k.ignore === NONPRINTING) o += 'i';
  if (k.month) o += 'M';
  if (k.numeric) o += 'n';
  if (k.random) o += 'R';
  if (k.reverse) o += 'r';
  if (k.version) o += 'V';
  return o;
}
