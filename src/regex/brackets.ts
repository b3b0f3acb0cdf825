/**
 * Byte sets (C locale: one char = one byte 0..255) and their rendering as
 * JavaScript character classes (no `u` flag).
 */

export class ByteSet {
  readonly bits: Uint8Array;
  constructor(bits?: Uint8Array) {
    this.bits = bits ? new Uint8Array(bits) : new Uint8Array(256);
  }
  static of(...codes: number[]): ByteSet {
    const s = new ByteSet();
    for (const c of codes) s.bits[c] = 1;
    return s;
  }
  static range(lo: number, hi: number): ByteSet {
    return new ByteSet().addRange(lo, hi);
  }
  add(c: number): this {
    this.bits[c] = 1;
    return this;
  }
  delete(c: number): this {
    this.bits[c] = 0;
    return this;
  }
  has(c: number): boolean {
    return this.bits[c] === 1;
  }
  addRange(lo: number, hi: number): this {
    for (let c = lo; c <= hi; c++) this.bits[c] = 1;
    return this;
  }
  addSet(o: ByteSet): this {
    for (let c = 0; c < 256; c++) if (o.bits[c]) this.bits[c] = 1;
    return this;
  }
  complement(): ByteSet {
    const s = new ByteSet();
    for (let c = 0; c < 256; c++) s.bits[c] = this.bits[c] ? 0 : 1;
    return s;
  }
  /** Add the other case of every ASCII letter (C-locale case folding). */
  foldAscii(): this {
    for (let c = 65; c <= 90; c++) {
      if (this.bits[c] || this.bits[c + 32]) {
        this.bits[c] = 1;
        this.bits[c + 32] = 1;
      }
    }
    return this;
  }
  size(): number {
    let n = 0;
    for (let c = 0; c < 256; c++) n += this.bits[c]!;
    return n;
  }
  /** The only member, or -1. */
  single(): number {
    let found = -1;
    for (let c = 0; c < 256; c++) {
      if (this.bits[c]) {
        if (found >= 0) return -1;
        found = c;
      }
    }
    return found;
  }
}

const hex2 = (c: number): string => '\\x' + c.toString(16).padStart(2, '0');

/** A byte as it may appear inside a JS `[...]` class. */
function classChar(c: number): string {
  if (c < 0x20 || c >= 0x7f) return hex2(c);
  const ch = String.fromCharCode(c);
  if (ch === '\\' || ch === ']' || ch === '[' || ch === '^' || ch === '-' || ch === '/') return '\\' + ch;
  return ch;
}

/** A byte as a literal JS regex atom (outside classes). */
export function literalChar(c: number): string {
  if (c < 0x20 || c >= 0x7f) return hex2(c);
  const ch = String.fromCharCode(c);
  if ('\\^$.|?*+()[]{}/-'.includes(ch)) return '\\' + ch;
  return ch;
}

function ranges(s: ByteSet): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let c = 0;
  while (c < 256) {
    if (!s.bits[c]) {
      c++;
      continue;
    }
    const lo = c;
    while (c + 1 < 256 && s.bits[c + 1]) c++;
    out.push([lo, c]);
    c++;
  }
  return out;
}

function renderRanges(rs: Array<[number, number]>): string {
  let body = '';
  for (const [lo, hi] of rs) {
    if (lo === hi) body += classChar(lo);
    else if (hi === lo + 1) body += classChar(lo) + classChar(hi);
    else body += classChar(lo) + '-' + classChar(hi);
  }
  return body;
}

/** Render a byte set as a JS regex atom. Input text is assumed to hold only chars 0..255. */
export function renderSet(s: ByteSet): string {
  const n = s.size();
  if (n === 256) return '[^]';
  if (n === 0) return '[]';
  if (n === 1) return literalChar(s.single());
  const pos = renderRanges(ranges(s));
  const neg = '^' + renderRanges(ranges(s.complement()));
  return '[' + (neg.length < pos.length ? neg : pos) + ']';
}

/** The 12 POSIX classes in the C locale. */
export function namedClass(name: string): ByteSet | undefined {
  const s = new ByteSet();
  switch (name) {
    case 'alpha':
      return s.addRange(65, 90).addRange(97, 122);
    case 'digit':
      return s.addRange(48, 57);
    case 'alnum':
      return s.addRange(65, 90).addRange(97, 122).addRange(48, 57);
    case 'upper':
      return s.addRange(65, 90);
    case 'lower':
      return s.addRange(97, 122);
    case 'space':
      return s.addRange(9, 13).add(32);
    case 'blank':
      return s.add(9).add(32);
    case 'punct':
      return s.addRange(0x21, 0x2f).addRange(0x3a, 0x40).addRange(0x5b, 0x60).addRange(0x7b, 0x7e);
    case 'print':
      return s.addRange(0x20, 0x7e);
    case 'graph':
      return s.addRange(0x21, 0x7e);
    case 'cntrl':
      return s.addRange(0, 0x1f).add(0x7f);
    case 'xdigit':
      return s.addRange(48, 57).addRange(65, 70).addRange(97, 102);
    default:
      return undefined;
  }
}

/** `\w`: [A-Za-z0-9_] */
export const WORD_SET: ByteSet = namedClass('alnum')!.add(95);
/** `\s`: [ \t\n\v\f\r] */
export const SPACE_SET: ByteSet = namedClass('space')!;
