/** for-in order (gawk's: string keys, then integer keys ascending), PROCINFO["sorted_in"], asort/asorti. */
import type { Rt } from './runtime.js';
import { S } from './runtime.js';
import { AwkArr, compare, isNumeric, SN, toNum, toStr, type V } from './values.js';

const INT_KEY = /^(?:0|-?[1-9]\d{0,14})$/;

/** User comparison functions for sorted_in, set by the runner: (i1, v1, i2, v2) => number. */
export let userCompare: ((name: string) => ((a: [string, V], b: [string, V]) => number) | null) = () => null;
export function setUserCompare(f: typeof userCompare): void {
  userCompare = f;
}

function defaultOrder(m: AwkArr): string[] {
  const strs: string[] = [];
  const ints: string[] = [];
  for (const k of m.keys()) (INT_KEY.test(k) ? ints : strs).push(k);
  if (ints.length > 1) ints.sort((a, b) => Number(a) - Number(b));
  return strs.length === 0 ? ints : ints.length === 0 ? strs : strs.concat(ints);
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
  const f = userCompare(how);
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
