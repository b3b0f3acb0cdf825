import { defineCommand, UsageError } from '../../src/command/index.js';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';
import { valueLimit, valueTooBig } from '../../src/runtime/memory.js';

/** About what one SET character costs in the heap while parsed (see parseSpec). */
const SET_BYTES_PER_CHAR = 64;

/**
 * GNU tr (coreutils 9.1) in the C locale: SET1/SET2 are parsed into constructs (chars,
 * ranges, [:class:], [=c=], [c*n]) and expanded into byte tables; the input is filtered
 * chunk by chunk through those tables.
 */
export default defineCommand({
  name: 'tr',
  summary: 'Translate, squeeze, and/or delete characters from standard input, writing to standard output.',
  usage: 'STRING1 [STRING2]',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'complement', short: 'c', long: 'complement', help: 'use the complement of ARRAY1' },
    { key: 'complement', short: 'C', help: 'use the complement of ARRAY1' },
    { key: 'delete', short: 'd', long: 'delete', help: 'delete characters in ARRAY1, do not translate' },
    { key: 'squeeze', short: 's', long: 'squeeze-repeats', help: 'replace each sequence of a repeated character that is listed in the last specified ARRAY, with a single occurrence of that character' },
    { key: 'truncate', short: 't', long: 'truncate-set1', help: 'first truncate ARRAY1 to length of ARRAY2' },
    { key: 'A', short: 'A', help: 'use the C locale (GNU\'s undocumented -A; nosh always does)' },
  ],
  // GNU tr's getopt string starts with '+': options stop at the first operand.
  optionsEnd: 'first-operand',
  async run(ctx) {
    const complement = ctx.values.complement === true;
    const del = ctx.values.delete === true;
    const squeeze = ctx.values.squeeze === true;
    const truncate = ctx.values.truncate === true;
    const ops = ctx.operands;
    const n = ops.length;
    const translating = n === 2 && !del;
    const minOps = 1 + (del === squeeze ? 1 : 0);
    const maxOps = 1 + (Number(del) <= Number(squeeze) ? 1 : 0);
    if (n < minOps) {
      if (n === 0) throw new UsageError('missing operand');
      throw new UsageError(`missing operand after ${gnuQuote(ops[n - 1]!)}\n` +
        (squeeze ? 'Two strings must be given when both deleting and squeezing repeats.' : 'Two strings must be given when translating.'));
    }
    if (maxOps < n) {
      throw new UsageError(`extra operand ${gnuQuote(ops[maxOps]!)}` +
        (n === 2 ? '\nOnly one string may be given when deleting without squeezing repeats.' : ''));
    }
    const warnings: string[] = [];
    let s1: Spec;
    let s2: Spec | null = null;
    try {
      s1 = parseSpec(ops[0]!, warnings);
      if (n === 2) s2 = parseSpec(ops[1]!, warnings);
      for (const w of warnings.splice(0)) await ctx.warn(w);
      validate(s1, s2, { complement, translating, truncate });
    } catch (e) {
      for (const w of warnings) await ctx.warn(w);
      if (e instanceof TrError) {
        await ctx.warn(e.message);
        return 1;
      }
      throw e;
    }

    const inDelete = new Uint8Array(256);
    const inSqueeze = new Uint8Array(256);
    let xlate: Uint8Array | null = null;
    if (squeeze && n === 1) {
      setInitialize(s1, complement, inSqueeze);
    } else if (del && n === 1) {
      setInitialize(s1, complement, inDelete);
    } else if (squeeze && del && n === 2) {
      setInitialize(s1, complement, inDelete);
      setInitialize(s2!, false, inSqueeze);
    } else if (translating) {
      xlate = buildXlate(s1, s2!, complement);
      if (squeeze) setInitialize(s2!, false, inSqueeze);
    }
    const deleting = del;
    const squeezing = squeeze;
    let prev = -1;
    for await (const chunk of ctx.stdin) {
      const out = Buffer.allocUnsafe(chunk.length);
      let k = 0;
      for (let i = 0; i < chunk.length; i++) {
        let c = chunk[i]!;
        if (deleting && inDelete[c]) continue;
        if (xlate) c = xlate[c]!;
        if (squeezing) {
          if (c === prev && inSqueeze[c]) continue;
          prev = c;
        }
        out[k++] = c;
      }
      if (k > 0) await ctx.stdout.write(out.subarray(0, k));
    }
    return 0;
  },
});

class TrError extends Error {}

// ---- spec strings ---------------------------------------------------------------------

type Elem =
  | { t: 'char'; c: number }
  | { t: 'range'; a: number; b: number }
  | { t: 'class'; name: string }
  | { t: 'equiv'; c: number }
  /** n: the count as a double (walks); big: exact, for the set's length. */
  | { t: 'repeat'; c: number; n: number; big?: bigint };

interface Spec {
  elems: Elem[];
  length: number;
  indefinite: number;
  indefiniteElem: Elem | null;
  hasEquiv: boolean;
  hasCharClass: boolean;
  hasRestricted: boolean;
}

/** GNU counts in uintmax_t; UINTMAX_MAX itself is its walk's start state. */
const MAX_COUNT = 2n ** 64n - 2n;

const CLASSES = ['alnum', 'alpha', 'blank', 'cntrl', 'digit', 'graph', 'lower', 'print', 'punct', 'space', 'upper', 'xdigit'];

function isClass(name: string, c: number): boolean {
  const upper = c >= 65 && c <= 90;
  const lower = c >= 97 && c <= 122;
  const digit = c >= 48 && c <= 57;
  switch (name) {
    case 'alnum': return upper || lower || digit;
    case 'alpha': return upper || lower;
    case 'blank': return c === 32 || c === 9;
    case 'cntrl': return c < 32 || c === 127;
    case 'digit': return digit;
    case 'graph': return c > 32 && c < 127;
    case 'lower': return lower;
    case 'print': return c >= 32 && c < 127;
    case 'punct': return c > 32 && c < 127 && !(upper || lower || digit);
    case 'space': return c === 32 || (c >= 9 && c <= 13);
    case 'upper': return upper;
    case 'xdigit': return digit || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
  }
  return false;
}

function classMembers(name: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < 256; i++) if (isClass(name, i)) out.push(i);
  return out;
}

function printableChar(c: number): string {
  return c >= 32 && c < 127 ? String.fromCharCode(c) : '\\' + c.toString(8).padStart(3, '0');
}

/** tr.c make_printable_str: note that a backslash stays one backslash (quote() may double it). */
function printableStr(bytes: number[]): string {
  const named: Record<number, string> = { 92: '\\', 7: '\\a', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t', 11: '\\v' };
  return bytes.map((c) => named[c] ?? printableChar(c)).join('');
}

/** Pass 1: backslash escapes to bytes, remembering which bytes were escaped. */
function unquote(arg: string, warnings: string[]): { s: number[]; esc: boolean[] } {
  const src = Buffer.from(arg, 'utf8');
  const s: number[] = [];
  const esc: boolean[] = [];
  const at = (i: number) => (i < src.length ? src[i]! : 0);
  for (let i = 0; i < src.length; i++) {
    if (src[i] !== 0x5c) {
      s.push(src[i]!);
      esc.push(false);
      continue;
    }
    let escaped = true;
    let c: number;
    const next = at(i + 1);
    const simple: Record<number, number> = { 0x5c: 0x5c, 0x61: 7, 0x62: 8, 0x66: 12, 0x6e: 10, 0x72: 13, 0x74: 9, 0x76: 11 };
    if (simple[next] !== undefined) c = simple[next]!;
    else if (next >= 0x30 && next <= 0x37) {
      c = next - 0x30;
      let d = at(i + 2) - 0x30;
      if (d >= 0 && d <= 7) {
        c = 8 * c + d;
        i++;
        d = at(i + 2) - 0x30;
        if (d >= 0 && d <= 7) {
          if (8 * c + d < 256) {
            c = 8 * c + d;
            i++;
          } else {
            const a = String.fromCharCode(src[i]!, src[i + 1]!, src[i + 2]!);
            warnings.push(`warning: the ambiguous octal escape \\${a} is being\n\tinterpreted as the 2-byte sequence \\0${a.slice(0, 2)}, ${a[2]}`);
          }
        }
      }
    } else if (next === 0 && i + 1 >= src.length) {
      warnings.push('warning: an unescaped backslash at end of string is not portable');
      escaped = false;
      i--;
      c = 0x5c;
    } else c = next;
    i++;
    s.push(c);
    esc.push(escaped);
  }
  return { s, esc };
}

function parseSpec(arg: string, warnings: string[]): Spec {
  // Each character of a SET becomes several heap values (its byte, an escape flag, an
  // element): a SET of millions (an argv from the library has no size limit) filled the
  // worker's heap, and V8's out-of-memory aborts the whole process.
  if (arg.length * SET_BYTES_PER_CHAR > valueLimit()) throw valueTooBig("tr's SET, at about 64 bytes a character,");
  const { s, esc } = unquote(arg, warnings);
  const len = s.length;
  const match = (i: number, c: string) => i < len && s[i] === c.charCodeAt(0) && !esc[i];
  const elems: Elem[] = [];
  const findClosing = (start: number, pre: number): number => {
    for (let i = start; i < len - 1; i++) if (s[i] === pre && s[i + 1] === 0x5d && !esc[i] && !esc[i + 1]) return i;
    return -1;
  };
  const starDigitsClose = (idx: number): boolean => {
    if (!match(idx, '*')) return false;
    for (let i = idx + 1; i < len; i++) if (!(s[i]! >= 0x30 && s[i]! <= 0x39) || esc[i]) return match(i, ']');
    return false;
  };
  /** [c*n] at start (the char after '['): -1 no match, else index of ']'. */
  const bracketedRepeat = (start: number): { close: number; c: number; n: number; big: bigint } | null => {
    if (!match(start + 1, '*')) return null;
    for (let i = start + 2; i < len && !esc[i]; i++) {
      if (s[i] === 0x5d) {
        const digits = s.slice(start + 2, i);
        let big = 0n;
        if (digits.length > 0) {
          const text = String.fromCharCode(...digits);
          const octal = text[0] === '0';
          const ok = octal ? /^[0-7]+$/.test(text) : /^[0-9]+$/.test(text);
          big = ok ? BigInt(octal ? '0o' + text : text) : -1n;
          if (big < 0n || big > MAX_COUNT) throw new TrError(`invalid repeat count ${gnuQuote(printableStr(digits))} in [c*n] construct`);
        }
        return { close: i, c: s[start]!, n: Number(big), big };
      }
    }
    return null;
  };
  let i = 0;
  while (i + 2 < len) {
    if (match(i, '[')) {
      let tryRepeat = true;
      if (match(i + 1, ':') || match(i + 1, '=')) {
        const close = findClosing(i + 2, s[i + 1]!);
        if (close >= 0) {
          const opnd = s.slice(i + 2, close);
          if (opnd.length === 0) {
            throw new TrError(s[i + 1] === 0x3a ? "missing character class name '[::]'" : "missing equivalence class character '[==]'");
          }
          if (s[i + 1] === 0x3a) {
            const name = String.fromCharCode(...opnd);
            if (CLASSES.includes(name)) {
              elems.push({ t: 'class', name });
              i = close + 2;
              continue;
            }
            if (!starDigitsClose(i + 2)) throw new TrError(`invalid character class ${gnuQuote(printableStr(opnd))}`);
          } else {
            if (opnd.length === 1) {
              elems.push({ t: 'equiv', c: opnd[0]! });
              i = close + 2;
              continue;
            }
            if (!starDigitsClose(i + 2)) throw new TrError(`${printableStr(opnd)}: equivalence class operand must be a single character`);
          }
        }
      }
      if (tryRepeat) {
        const r = bracketedRepeat(i + 1);
        if (r) {
          elems.push({ t: 'repeat', c: r.c, n: r.n, big: r.big });
          i = r.close + 1;
          continue;
        }
      }
      tryRepeat = false;
    }
    if (match(i + 1, '-')) {
      const a = s[i]!;
      const b = s[i + 2]!;
      if (b < a) throw new TrError(`range-endpoints of '${printableChar(a)}-${printableChar(b)}' are in reverse collating sequence order`);
      elems.push({ t: 'range', a, b });
      i += 3;
    } else {
      elems.push({ t: 'char', c: s[i]! });
      i++;
    }
  }
  for (; i < len; i++) elems.push({ t: 'char', c: s[i]! });
  return { elems, length: 0, indefinite: 0, indefiniteElem: null, hasEquiv: false, hasCharClass: false, hasRestricted: false };
}

type UL = 'none' | 'upper' | 'lower';

/** GNU's get_next walk over a spec list. */
class Walker {
  private idx = 0;
  /** Position inside the current element (-1: new element). */
  private state = -1;
  private members: number[] = [];
  constructor(private readonly spec: Spec) {}

  next(): { c: number; cls: UL } {
    const elems = this.spec.elems;
    for (;;) {
      const p = elems[this.idx];
      if (!p) return { c: -1, cls: 'none' };
      switch (p.t) {
        case 'char':
        case 'equiv':
          this.idx++;
          this.state = -1;
          return { c: p.c, cls: 'none' };
        case 'range': {
          this.state = this.state === -1 ? p.a : this.state + 1;
          const c = this.state;
          if (c === p.b) this.skip();
          return { c, cls: 'none' };
        }
        case 'class': {
          if (this.state === -1) {
            this.members = classMembers(p.name);
            this.state = 0;
          }
          const c = this.members[this.state++]!;
          if (this.state >= this.members.length) this.skip();
          return { c, cls: p.name === 'upper' ? 'upper' : p.name === 'lower' ? 'lower' : 'none' };
        }
        case 'repeat':
          if (p.n === 0) {
            this.skip();
            continue;
          }
          this.state = this.state === -1 ? 1 : this.state + 1;
          if (this.state === p.n) this.skip();
          return { c: p.c, cls: 'none' };
      }
    }
  }

  skip(): void {
    this.idx++;
    this.state = -1;
  }

  /** How many more times the [c*n] being walked gives its char (0 outside one). */
  repeatLeft(): number {
    const p = this.spec.elems[this.idx];
    return p?.t === 'repeat' && this.state !== -1 ? p.n - this.state : 0;
  }

  /** Skip k of those (k <= repeatLeft()). */
  advance(k: number): void {
    this.state += k;
    if (this.state >= (this.spec.elems[this.idx] as { n: number }).n) this.skip();
  }

  get atNewElement(): boolean {
    return this.state === -1;
  }
}

function specStats(s: Spec): void {
  let length = 0n;
  s.indefinite = 0;
  for (const p of s.elems) {
    let len = 0n;
    switch (p.t) {
      case 'char': len = 1n; break;
      case 'range': len = BigInt(p.b - p.a + 1); break;
      case 'class':
        s.hasCharClass = true;
        len = BigInt(classMembers(p.name).length);
        if (p.name !== 'upper' && p.name !== 'lower') s.hasRestricted = true;
        break;
      case 'equiv': len = 1n; s.hasEquiv = true; break;
      case 'repeat':
        if (p.n > 0) len = p.big ?? BigInt(p.n);
        else {
          s.indefiniteElem = p;
          s.indefinite++;
        }
        break;
    }
    length += len;
    if (length > MAX_COUNT) throw new TrError('too many characters in set');
  }
  s.length = Number(length);
}

/** The chars of an element (a [c*n] gives its char once), for walks where only the set matters. */
function elemChars(p: Elem): number[] {
  switch (p.t) {
    case 'char': case 'equiv': return [p.c];
    case 'range': return Array.from({ length: p.b - p.a + 1 }, (_, i) => p.a + i);
    case 'class': return classMembers(p.name);
    case 'repeat': return p.n > 0 ? [p.c] : [];
  }
}

function setOf(s: Spec): Uint8Array {
  const set = new Uint8Array(256);
  for (const p of s.elems) for (const c of elemChars(p)) set[c] = 1;
  return set;
}

function setInitialize(s: Spec, complement: boolean, into: Uint8Array): void {
  const set = setOf(s);
  for (let i = 0; i < 256; i++) into[i] = complement ? 1 - set[i]! : set[i]!;
}

function validate(s1: Spec, s2: Spec | null, o: { complement: boolean; translating: boolean; truncate: boolean }): void {
  specStats(s1);
  if (o.complement) s1.length = 256 - setOf(s1).reduce((a, b) => a + b, 0);
  if (s1.indefinite > 0) throw new TrError('the [c*] repeat construct may not appear in string1');
  if (!s2) return;
  specStats(s2);
  if (s1.length >= s2.length && s2.indefinite === 1) {
    (s2.indefiniteElem as { n: number }).n = s1.length - s2.length;
    s2.length = s1.length;
  }
  if (s2.indefinite > 1) throw new TrError('only one [c*] repeat construct may appear in string2');
  if (o.translating) {
    if (s2.hasEquiv) throw new TrError('[=c=] expressions may not appear in string2 when translating');
    if (s2.hasRestricted) throw new TrError("when translating, the only character classes that may appear in\nstring2 are 'upper' and 'lower'");
    validateCaseClasses(s1, s2, o.complement);
    if (s1.length > s2.length && !o.truncate) {
      if (s2.length === 0) throw new TrError('when not truncating set1, string2 must be non-empty');
      const last = s2.elems[s2.elems.length - 1]!;
      let c: number;
      switch (last.t) {
        case 'char': c = last.c; break;
        case 'range': c = last.b; break;
        case 'repeat': c = last.c; break;
        case 'class': throw new TrError('when translating with string1 longer than string2,\nthe latter string must not end with a character class');
        default: c = 0;
      }
      s2.elems.push({ t: 'repeat', c, n: s1.length - s2.length });
      s2.length = s1.length;
    }
    if (o.complement && s1.hasCharClass && !(s2.length === s1.length && homogeneous(s2))) {
      throw new TrError('when translating with complemented character classes,\nstring2 must map all characters in the domain to one');
    }
  } else if (s2.indefinite > 0) {
    throw new TrError('the [c*] construct may appear in string2 only when translating');
  }
}

function homogeneous(s: Spec): boolean {
  let b = -1;
  for (const p of s.elems) {
    for (const c of elemChars(p)) {
      if (b === -1) b = c;
      else if (c !== b) return false;
    }
  }
  return b !== -1;
}

function validateCaseClasses(s1: Spec, s2: Spec, complement: boolean): void {
  if (complement || !s2.hasCharClass) return;
  const w1 = new Walker(s1);
  const w2 = new Walker(s2);
  let new1 = true;
  let new2 = true;
  let c1 = 0;
  let c2 = 0;
  while (c1 !== -1 && c2 !== -1) {
    const r1 = w1.next();
    const r2 = w2.next();
    c1 = r1.c;
    c2 = r2.c;
    if (new2 && r2.cls !== 'none' && !(new1 && r1.cls !== 'none')) throw new TrError('misaligned [:upper:] and/or [:lower:] construct');
    if (r2.cls !== 'none') {
      w1.skip();
      w2.skip();
      s1.length -= (r1.cls === 'upper' || r1.cls === 'lower' ? 26 : 1) - 1;
      s2.length -= 26 - 1;
    }
    new1 = w1.atNewElement;
    new2 = w2.atNewElement;
  }
}

function buildXlate(s1: Spec, s2: Spec, complement: boolean): Uint8Array {
  const xlate = new Uint8Array(256);
  for (let i = 0; i < 256; i++) xlate[i] = i;
  if (complement) {
    const in1 = setOf(s1);
    const w2 = new Walker(s2);
    for (let i = 0; i < 256; i++) {
      if (!in1[i]) {
        const ch = w2.next().c;
        if (ch === -1) break;
        xlate[i] = ch;
      }
    }
    return xlate;
  }
  const w1 = new Walker(s1);
  const w2 = new Walker(s2);
  for (;;) {
    const r1 = w1.next();
    const r2 = w2.next();
    if (r1.cls === 'lower' && r2.cls === 'upper') {
      for (let i = 97; i <= 122; i++) xlate[i] = i - 32;
    } else if (r1.cls === 'upper' && r2.cls === 'lower') {
      for (let i = 65; i <= 90; i++) xlate[i] = i + 32;
    } else {
      if (r1.c === -1 || r2.c === -1) break;
      xlate[r1.c] = r2.c;
      // Two [c*n] side by side map the same pair again and again: skip (counts go to 2^64).
      const k = Math.min(w1.repeatLeft(), w2.repeatLeft());
      if (k > 0) {
        w1.advance(k);
        w2.advance(k);
      }
    }
    if (r2.cls !== 'none') {
      w1.skip();
      w2.skip();
    }
  }
  return xlate;
}
