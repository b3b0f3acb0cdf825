/**
 * xxd's own argument walk (vim's xxd 2022-01-14): not getopt. Each word is matched on its
 * first two characters (`-pu` is -p; `--cols` is -c), a value is attached or the next word,
 * options stop at the first word that is not one. Errors print xxd's usage and exit 1.
 */
export const HEX_NORMAL = 0;
export const HEX_POSTSCRIPT = 1;
export const HEX_CINCLUDE = 2;
export const HEX_BITS = 3;
export const HEX_LITTLEENDIAN = 4;

export interface XxdOptions {
  autoskip: boolean;
  hextype: number;
  upper: boolean;
  capitalize: boolean;
  decimal: boolean;
  revert: boolean;
  ebcdic: boolean;
  version: boolean;
  cols: number;
  colsGiven: boolean;
  group: number;
  displayOff: bigint;
  seek: number;
  relSeek: boolean;
  negSeek: boolean;
  length: number;
  varname: string | undefined;
  operands: string[];
}

/** C strtol(s, NULL, 0) clamped to a C long; then cast as (int) where xxd casts. */
export function strtol(s: string): number {
  const m = /^[ \t\n\v\f\r]*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)?/.exec(s)!;
  if (!m[2]) return 0;
  const t = m[2];
  let v = t.startsWith('0x') || t.startsWith('0X') ? BigInt(t) : t.length > 1 && t[0] === '0' ? BigInt('0o' + t.slice(1)) : BigInt(t);
  if (m[1] === '-') v = -v;
  const max = (1n << 63n) - 1n;
  if (v > max) v = max;
  if (v < -max - 1n) v = -max - 1n;
  return Number(v);
}

const toInt = (n: number) => Number(BigInt.asIntN(32, BigInt(n)));

/** The options, or 'usage' when xxd would print its usage and exit 1. */
export function parseXxd(argv: string[]): XxdOptions | 'usage' {
  const o: XxdOptions = {
    autoskip: false, hextype: HEX_NORMAL, upper: false, capitalize: false, decimal: false, revert: false, ebcdic: false, version: false,
    cols: 0, colsGiven: false, group: -1, displayOff: 0n, seek: 0, relSeek: true, negSeek: false, length: -1, varname: undefined, operands: [],
  };
  let i = 0;
  const value = (pp: string, long: string): string | undefined => {
    if (pp.length > 2 && pp.slice(2, 2 + long.length) !== long) return pp.slice(2);
    if (i + 1 >= argv.length) return undefined;
    return argv[++i]!;
  };
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    const pp = a.startsWith('--') && a.length > 2 ? a.slice(1) : a;
    const k = pp.slice(0, 2);
    if (k === '-a') o.autoskip = !o.autoskip;
    else if (k === '-b') o.hextype = HEX_BITS;
    else if (k === '-e') o.hextype = HEX_LITTLEENDIAN;
    else if (k === '-u') o.upper = true;
    else if (k === '-p') o.hextype = HEX_POSTSCRIPT;
    else if (k === '-i') o.hextype = HEX_CINCLUDE;
    else if (k === '-C') o.capitalize = true;
    else if (k === '-d') o.decimal = true;
    else if (k === '-r') o.revert = true;
    else if (k === '-E') o.ebcdic = true;
    else if (k === '-v') {
      o.version = true;
      return o;
    } else if (k === '-c') {
      if (pp.length > 2 && pp.slice(2, 11) === 'apitalize') o.capitalize = true;
      else {
        const v = value(pp, 'ols');
        if (v === undefined) return 'usage';
        o.colsGiven = true;
        o.cols = toInt(strtol(v));
      }
    } else if (k === '-g') {
      const v = value(pp, 'roup');
      if (v === undefined) return 'usage';
      o.group = toInt(strtol(v));
    } else if (k === '-o') {
      const attached = pp.length > 2 && pp.slice(2, 7) !== 'ffset';
      const v = value(pp, 'ffset');
      if (v === undefined) return 'usage';
      if (attached) o.displayOff = BigInt.asUintN(64, BigInt(strtol(v)));
      else {
        const rel = v[0] === '+' ? 1 : 0;
        const neg = v[rel] === '-';
        const n = BigInt.asUintN(64, BigInt(strtol(v.slice(rel + (neg ? 1 : 0)))));
        o.displayOff = neg ? BigInt.asUintN(64, -n) : n;
      }
    } else if (k === '-s') {
      o.relSeek = false;
      o.negSeek = false;
      let v: string;
      if (pp.length > 2 && pp.slice(2, 5) !== 'kip' && pp.slice(2, 5) !== 'eek') v = pp.slice(2);
      else {
        if (i + 1 >= argv.length) return 'usage';
        v = argv[++i]!;
      }
      if (v[0] === '+') o.relSeek = true;
      const r = o.relSeek ? 1 : 0;
      if (v[r] === '-') o.negSeek = true;
      o.seek = strtol(v.slice(r + (o.negSeek ? 1 : 0)));
    } else if (k === '-l') {
      const v = value(pp, 'en');
      if (v === undefined) return 'usage';
      o.length = strtol(v);
    } else if (k === '-n') {
      const v = value(pp, 'ame');
      if (v === undefined) return 'usage';
      o.varname = v;
    } else if (pp === '--') {
      i++;
      break;
    } else if (pp[0] === '-' && pp.length > 1) return 'usage';
    else break;
  }
  o.operands = argv.slice(i);
  if (o.operands.length > 2) return 'usage';
  return o;
}

export const USAGE = `Usage:
       xxd [options] [infile [outfile]]
    or
       xxd -r [-s [-]offset] [-c cols] [-ps] [infile [outfile]]
Options:
    -a          toggle autoskip: A single '*' replaces nul-lines. Default off.
    -b          binary digit dump (incompatible with -ps,-i,-r). Default hex.
    -C          capitalize variable names in C include file style (-i).
    -c cols     format <cols> octets per line. Default 16 (-i: 12, -ps: 30).
    -E          show characters in EBCDIC. Default ASCII.
    -e          little-endian dump (incompatible with -ps,-i,-r).
    -g bytes    number of octets per group in normal output. Default 2 (-e: 4).
    -h          print this summary.
    -i          output in C include file style.
    -l len      stop after <len> octets.
    -n name     set the variable name used in C include output (-i).
    -o off      add <off> to the displayed file position.
    -ps         output in postscript plain hexdump style.
    -r          reverse operation: convert (or patch) hexdump into binary.
    -r -s off   revert with <off> added to file positions found in hexdump.
    -d          show offset in decimal instead of hex.
    -s [+][-]seek  start at <seek> bytes abs. (or +: rel.) infile offset.
    -u          use upper case hex letters.
    -v          show version: "xxd 2022-01-14 by Juergen Weigert et al.".
`;
