/** for-in order (gawk's: string keys, then integer keys ascending), PROCINFO["sorted_in"], asort/asorti. */
import type { Rt } from './runtime.js';
import { S } from './runtime.js';
import { AwkArr, compare, isIntSubscript, isNumeric, SN, toNum, toStr, type V } from './values.js';

const SIZES = [13, 127, 1021, 8191, 16381, 32749, 65497, 131101, 262147, 524309, 1048583, 2097169, 4194319, 8388617,
  16777259, 33554467, 67108879, 134217757, 268435459, 536870923, 1073741827];

/** gawk's awk_hash of a subscript (sdbm, kept to 32 bits). */
function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 65599) + s.charCodeAt(i)) >>> 0;
  return h;
}

/**
 * The order gawk's str_array lists these keys in when they were inserted in this order: a
 * chained hash table of prime size (13, then grown when entries / size > 2), new entries at
 * the head of their chain, buckets listed from 0.
 */
function strOrder(keys: (string | [string])[]): string[] {
  if (keys.length < 2) return keys as string[];
  let size = 13;
  let buckets: string[][] = Array.from({ length: size }, () => []);
  const codes = new Map<string, number>();
  let count = 0;
  for (const ev of keys) {
    if (typeof ev !== 'string') {
      const k = ev[0];
      const b = buckets[codes.get(k)! % size]!;
      const at = b.indexOf(k);
      if (at >= 0) b.splice(at, 1);
      count--;
      continue;
    }
    const k = ev;
    const code = hash(k);
    codes.set(k, code);
    count++;
    if (Math.floor(count / size) > 2) {
      const ns = SIZES.find((s) => s > size) ?? size;
      if (ns !== size) {
        const nb: string[][] = Array.from({ length: ns }, () => []);
        for (const b of buckets) for (const kk of b) nb[codes.get(kk)! % ns]!.unshift(kk);
        buckets = nb;
        size = ns;
      }
    }
    buckets[code % size]!.unshift(k);
  }
  const out: string[] = [];
  for (const b of buckets) for (const k of b) out.push(k);
  return out;
}

/** gawk's unsorted for-in order (see strOrder; an array whose first subscript was an integer lists its other keys first, then its integers ascending). */
function defaultOrder(m: AwkArr): string[] {
  if (!m.intFirst) return strOrder(m.events ?? [...m.keys()]);
  const keys = [...m.keys()];
  const strs: string[] = [];
  const neg: string[] = [];
  const ints: string[] = [];
  for (const k of keys) {
    if (!isIntSubscript(k)) strs.push(k);
    else if (k[0] === '-') neg.push(k);
    else ints.push(k);
  }
  let sorted = true;
  for (let i = 1; i < ints.length && sorted; i++) if (ints[i - 1]!.length > ints[i]!.length || (ints[i - 1]!.length === ints[i]!.length && ints[i - 1]! > ints[i]!)) sorted = false;
  if (!sorted) ints.sort((a, b) => Number(a) - Number(b));
  if (strs.length === 0 && neg.length === 0) return ints;
  // gawk keeps negative integers in an int_array listed before the others: closest to zero first
  if (neg.length > 1) neg.sort((a, b) => Number(b) - Number(a));
  return strOrder(strs).concat(neg, ints);
}

const strCmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** gawk's value order: numbers before strings (then arrays), numbers numerically, strings as strings. */
function valCmp(x: V, y: V, convfmt: string): number {
  const nx = isNumeric(x) && !(x instanceof SN && x.s === '');
  const ny = isNumeric(y) && !(y instanceof SN && y.s === '');
  if (nx && ny) { const a = toNum(x), b = toNum(y); return a < b ? -1 : a > b ? 1 : 0; }
  if (nx) return -1;
  if (ny) return 1;
  return strCmp(toStr(x, convfmt), toStr(y, convfmt));
}

export function orderKeys(m: AwkArr, how: string, rt: Rt): string[] | null {
  const convfmt = rt.convfmt;
  const keys = [...m.keys()];
  const val = (k: string): V => { const v = m.get(k); return v instanceof AwkArr ? undefined : v; };
  const numKey = (k: string): number => toNum(k);
  switch (how) {
    case '@ind_str_asc': return keys.sort(strCmp);
    case '@ind_str_desc': return keys.sort((a, b) => strCmp(b, a));
    case '@ind_num_asc': return keys.sort((a, b) => numKey(a) - numKey(b) || strCmp(a, b));
    case '@ind_num_desc': return keys.sort((a, b) => numKey(b) - numKey(a) || strCmp(b, a));
    case '@val_num_asc': return keys.sort((a, b) => toNum(val(a)) - toNum(val(b)) || strCmp(a, b));
    case '@val_num_desc': return keys.sort((a, b) => toNum(val(b)) - toNum(val(a)) || strCmp(b, a));
    case '@val_str_asc': return keys.sort((a, b) => strCmp(toStr(val(a), convfmt), toStr(val(b), convfmt)) || strCmp(a, b));
    case '@val_str_desc': return keys.sort((a, b) => strCmp(toStr(val(b), convfmt), toStr(val(a), convfmt)) || strCmp(b, a));
    case '@val_type_asc': return keys.sort((a, b) => valCmp(val(a), val(b), convfmt) || strCmp(a, b));
    case '@val_type_desc': return keys.sort((a, b) => valCmp(val(b), val(a), convfmt) || strCmp(b, a));
    case '@unsorted': return defaultOrder(m);
  }
  const f = rt.userCompare(how);
  if (f) return keys.sort((a, b) => f([a, val(a)], [b, val(b)]));
  return null;
}

export function sortedKeys(rt: Rt, m: AwkArr): string[] {
  const pi = (rt.g[S.PROCINFO] as AwkArr).get('sorted_in');
  if (pi !== undefined) {
    const how = toStr(pi, rt.convfmt);
    if (how !== '') {
      const r = orderKeys(m, how, rt);
      if (r) return r;
    }
  }
  return defaultOrder(m);
}

/** asort / asorti: dest gets 1..n; returns n. */
export function asort(rt: Rt, src: AwkArr, dest: AwkArr, how: string | undefined, indices: boolean): number {
  const convfmt = rt.convfmt;
  let items: V[];
  if (indices) {
    const keys = how ? orderKeys(src, how, rt) ?? [...src.keys()].sort(strCmp) : [...src.keys()].sort(strCmp);
    items = keys.map((k) => k);
  } else if (how) {
    const keys = orderKeys(src, how, rt) ?? [...src.keys()];
    items = keys.map((k) => src.get(k));
  } else {
    items = [...src.values()].sort((x, y) => valCmp(x, y, convfmt));
  }
  dest.clear();
  items.forEach((v, i) => dest.set(String(i + 1), v));
  void compare;
  return items.length;
}
