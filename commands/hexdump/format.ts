// hexdump's format strings (util-linux 2.38 parse.c): `[iterations]/[byte_count] "format"`
// units, broken into print units, one conversion each; the block size; printf as C does it.

export class Fatal extends Error {}

export type Kind = 'text' | 'addr' | 'char' | 'int' | 'uint' | 'dbl' | 'str' | 'c' | 'p' | 'u' | 'bpad';

export interface PR {
  kind: Kind;
  /** Text before the '%' (all of it for 'text'). */
  prefix: string;
  flags: string;
  width: number;
  prec: number | undefined;
  conv: string;
  bcnt: number;
  /** The last print unit of a repeated unit ends in a space: left off on the last repetition. */
  nospace: boolean;
}

export interface FU {
  reps: number;
  bcnt: number;
  setRep: boolean;
  ignore: boolean;
  fmt: string;
  prs: PR[];
}

export interface FS {
  fus: FU[];
  bcnt: number;
}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isSpace = (c: string | undefined) => c !== undefined && ' \t\n\v\f\r'.includes(c);
const SPEC = '.#-+ 0123456789';

function escape(s: string): string {
  const map: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && i + 1 < s.length) {
      const c = s[++i]!;
      out += map[c] ?? c;
    } else out += s[i];
  }
  return out;
}

/** add_fmt(): one -e string. */
export function addFmt(fmt: string): FS {
  const fs: FS = { fus: [], bcnt: 0 };
  const bad = () => new Fatal(`bad format {${fmt}}`);
  let p = 0;
  const skip = () => { while (isSpace(fmt[p])) p++; };
  for (;;) {
    skip();
    if (p >= fmt.length) break;
    const fu: FU = { reps: 1, bcnt: 0, setRep: false, ignore: false, fmt: '', prs: [] };
    fs.fus.push(fu);
    if (isDigit(fmt[p])) {
      const s = p;
      while (isDigit(fmt[p])) p++;
      if (!isSpace(fmt[p]) && fmt[p] !== '/') throw bad();
      fu.reps = Number(fmt.slice(s, p));
      fu.setRep = true;
      p++;
      skip();
    }
    if (fmt[p] === '/') {
      p++;
      skip();
    }
    if (isDigit(fmt[p])) {
      const s = p;
      while (isDigit(fmt[p])) p++;
      if (!isSpace(fmt[p])) throw bad();
      fu.bcnt = Number(fmt.slice(s, p));
      p++;
      skip();
    }
    if (fmt[p] !== '"') throw bad();
    const s = ++p;
    while (fmt[p] !== '"') if (p++ >= fmt.length) throw bad();
    fu.fmt = escape(fmt.slice(s, p));
    p++;
  }
  return fs;
}

/** block_size(): the bytes one pass of the format string reads. */
export function blockSize(fs: FS): number {
  let size = 0;
  for (const fu of fs.fus) {
    if (fu.bcnt) {
      size += fu.bcnt * fu.reps;
      continue;
    }
    let bcnt = 0;
    let prec = 0;
    const f = fu.fmt;
    for (let i = 0; i < f.length;) {
      if (f[i] !== '%') {
        i++;
        continue;
      }
      i++;
      while (i < f.length && SPEC.slice(1).includes(f[i]!)) i++;
      if (f[i] === '.' && isDigit(f[i + 1])) {
        i++;
        const s = i;
        while (isDigit(f[i])) i++;
        prec = Number(f.slice(s, i));
      }
      const c = f[i];
      if (c === 'c') bcnt += 1;
      else if (c !== undefined && 'diouxX'.includes(c)) bcnt += 4;
      else if (c !== undefined && 'eEfgG'.includes(c)) bcnt += 8;
      else if (c === 's') bcnt += prec;
      else if (c === '_') {
        const d = f[++i];
        if (d === 'c' || d === 'p' || d === 'u') bcnt += 1;
      }
      i++;
    }
    size += bcnt * fu.reps;
  }
  return size;
}

/** rewrite_rules(): print units, their byte counts, repetitions filling the block. `endfu` gets the %_A unit. */
export function rewrite(fs: FS, blocksize: number, setEnd: (fu: FU) => void): void {
  for (const fu of fs.fus) {
    let nconv = 0;
    let f = fu.fmt;
    while (f.length > 0) {
      let p1 = f.indexOf('%');
      if (p1 < 0) {
        fu.prs.push({ kind: 'text', prefix: f, flags: '', width: 0, prec: undefined, conv: '', bcnt: 0, nospace: false });
        break;
      }
      const prefix = f.slice(0, p1);
      let sokay: 'bcnt' | 'prec' | 'no';
      let prec = 0;
      const specStart = p1 + 1;
      if (fu.bcnt) {
        sokay = 'bcnt';
        for (p1++; p1 < f.length && SPEC.includes(f[p1]!); p1++);
      } else {
        p1++;
        while (p1 < f.length && SPEC.slice(1).includes(f[p1]!)) p1++;
        if (f[p1] === '.' && isDigit(f[p1 + 1])) {
          sokay = 'prec';
          p1++;
          const s = p1;
          while (isDigit(f[p1])) p1++;
          prec = Number(f.slice(s, p1));
        } else sokay = 'no';
      }
      const spec = f.slice(specStart, p1);
      const m = /^([-+ #0]*)(\d*)(?:\.(\d*))?/.exec(spec)!;
      const cs = f[p1] ?? '';
      let p2 = p1 < f.length ? p1 + 1 : p1;
      const pr: PR = { kind: 'text', prefix, flags: m[1]!, width: Number(m[2] || 0), prec: m[3] !== undefined ? Number(m[3] || 0) : undefined, conv: cs, bcnt: 0, nospace: false };
      const badcnt = (s: string) => new Fatal(`bad byte count for conversion character ${s}`);
      const badconv = (s: string) => new Fatal(`bad conversion character %${s}`);
      if (cs === 'c') {
        pr.kind = 'char';
        if (fu.bcnt > 1) throw badcnt(cs);
        pr.bcnt = 1;
      } else if (cs === 'd' || cs === 'i' || cs === 'o' || cs === 'u' || cs === 'x' || cs === 'X') {
        pr.kind = cs === 'd' || cs === 'i' ? 'int' : 'uint';
        if (fu.bcnt === 0) pr.bcnt = 4;
        else if ([1, 2, 4, 8].includes(fu.bcnt)) pr.bcnt = fu.bcnt;
        else throw badcnt(cs);
      } else if ('eEfgG'.includes(cs) && cs !== '') {
        pr.kind = 'dbl';
        if (fu.bcnt === 0) pr.bcnt = 8;
        else if (fu.bcnt === 4 || fu.bcnt === 8) pr.bcnt = fu.bcnt;
        else throw badcnt(cs);
      } else if (cs === 's') {
        pr.kind = 'str';
        if (sokay === 'no') throw new Fatal('%s requires a precision or a byte count');
        pr.bcnt = sokay === 'bcnt' ? fu.bcnt : prec;
      } else if (cs === '_') {
        p2++;
        const c1 = f[p1 + 1] ?? '';
        if (c1 === 'A' || c1 === 'a') {
          if (c1 === 'A') {
            setEnd(fu);
            fu.ignore = true;
          }
          pr.kind = 'addr';
          p2++;
          const c2 = f[p1 + 2] ?? '';
          if (c2 === '' || !'dox'.includes(c2)) throw badconv(f.slice(p1, p1 + 3));
          pr.conv = c2;
        } else if (c1 === 'c' || c1 === 'p' || c1 === 'u') {
          pr.kind = c1;
          if (fu.bcnt > 1) throw badcnt(f.slice(p1, p1 + 2));
          pr.bcnt = 1;
        } else throw badconv(f.slice(p1, p1 + 2));
      } else throw badconv(cs);
      fu.prs.push(pr);
      f = f.slice(p2);
      if (pr.kind !== 'addr' && fu.bcnt && nconv++) throw new Fatal('byte count with multiple conversion characters');
    }
    if (!fu.bcnt) for (const pr of fu.prs) fu.bcnt += pr.bcnt;
  }
  fs.fus.forEach((fu, k) => {
    if (k === fs.fus.length - 1 && fs.bcnt < blocksize && !fu.setRep && fu.bcnt) fu.reps += Math.floor((blocksize - fs.bcnt) / fu.bcnt);
    if (fu.reps > 1 && fu.prs.length > 0) {
      const pr = fu.prs[fu.prs.length - 1]!;
      if (pr.kind === 'text' && isSpace(pr.prefix[pr.prefix.length - 1])) pr.nospace = true;
    }
  });
}

/** C's printf of one integer conversion (d i o u x X) with flags, width and precision. */
export function fmtInt(pr: PR, v: bigint, signed: boolean): string {
  const neg = signed && v < 0n;
  const mag = neg ? -v : v;
  const conv = pr.conv;
  let digits = conv === 'o' ? mag.toString(8) : conv === 'x' ? mag.toString(16) : conv === 'X' ? mag.toString(16).toUpperCase() : mag.toString(10);
  if (pr.prec !== undefined) digits = pr.prec === 0 && mag === 0n ? '' : digits.padStart(pr.prec, '0');
  let pre = neg ? '-' : signed && pr.flags.includes('+') ? '+' : signed && pr.flags.includes(' ') ? ' ' : '';
  if (pr.flags.includes('#')) {
    if (conv === 'o' && !digits.startsWith('0')) digits = '0' + digits;
    else if ((conv === 'x' || conv === 'X') && mag !== 0n) pre += conv === 'x' ? '0x' : '0X';
  }
  return pad(pr, pre, digits, pr.prec === undefined);
}

function pad(pr: PR, pre: string, body: string, zeroOk: boolean): string {
  const len = pre.length + body.length;
  if (len >= pr.width) return pre + body;
  if (pr.flags.includes('-')) return pre + body + ' '.repeat(pr.width - len);
  if (zeroOk && pr.flags.includes('0')) return pre + '0'.repeat(pr.width - len) + body;
  return ' '.repeat(pr.width - len) + pre + body;
}

/** %s / %c: space padded (glibc ignores 0 for them), %s cut at the precision. */
export function fmtStr(pr: PR, s: string): string {
  if (pr.prec !== undefined && pr.conv === 's') s = s.slice(0, pr.prec);
  return pad(pr, '', s, false);
}

export function fmtDbl(pr: PR, v: number): string {
  const conv = pr.conv;
  const upper = conv === 'E' || conv === 'G';
  const neg = v < 0 || Object.is(v, -0) || (Number.isNaN(v) && false);
  const a = Math.abs(v);
  let body: string;
  const prec = pr.prec ?? 6;
  const alt = pr.flags.includes('#');
  const expo = (s: string) => s.replace(/e([+-])(\d)$/, 'e$10$2');
  if (!Number.isFinite(a)) body = Number.isNaN(a) ? 'nan' : 'inf';
  else if (conv === 'f') body = (a >= 1e21 ? BigInt(a).toString() + (prec > 0 ? '.' + '0'.repeat(prec) : '') : a.toFixed(prec)) + (alt && prec === 0 ? '.' : '');
  else if (conv === 'e' || conv === 'E') body = expo(a.toExponential(prec));
  else {
    const P = prec === 0 ? 1 : prec;
    const X = a === 0 ? 0 : Number(a.toExponential(P - 1).split('e')[1]);
    if (P > X && X >= -4) body = a.toFixed(P - 1 - X);
    else body = expo(a.toExponential(P - 1));
    if (!alt && body.includes('.')) {
      const [mant, exp] = body.split('e');
      body = mant!.replace(/0+$/, '').replace(/\.$/, '') + (exp !== undefined ? 'e' + exp : '');
    }
  }
  if (upper) body = body.toUpperCase();
  const pre = neg ? '-' : pr.flags.includes('+') ? '+' : pr.flags.includes(' ') ? ' ' : '';
  return pad(pr, pre, body, Number.isFinite(a));
}
