/**
 * gnulib/coreutils set-fields.c, shared by cut and numfmt: a list of "N", "N-", "N-M", "-M"
 * separated by commas or blanks, parsed with GNU's messages, sorted and merged as GNU does.
 */
import { UsageError } from '../command/options/errors.js';
import { gnuQuote } from './gnu-number.js';

export interface FieldRange { lo: number; hi: number }

/** The largest field number; a range open at its end goes to it. */
export const FIELD_MAX = Number.MAX_SAFE_INTEGER;

export interface SetFieldsOptions {
  /** cut -b / -c: messages speak of byte/character positions. */
  pos?: boolean;
  /** cut --complement: the ranges not named. */
  complement?: boolean;
  /** numfmt's SETFLD_ALLOW_DASH: "-" alone is every field. */
  allowDash?: boolean;
}

export function setFields(spec: string, o: SetFieldsOptions = {}): FieldRange[] {
  const pos = o.pos ?? false;
  const ranges: (FieldRange & { key: number })[] = [];
  let initial = 1;
  let initialKey = 1;
  let value = 0;
  let lhs = false;
  let rhs = false;
  let dash = false;
  let inDigits = false;
  let numStart = 0;
  let i = 0;
  if (o.allowDash && spec === '-') {
    value = 1;
    lhs = true;
    dash = true;
    i = 1;
  }
  const fromOne = pos ? 'byte/character positions are numbered from 1' : 'fields are numbered from 1';
  for (; ; i++) {
    const ch = i < spec.length ? spec[i]! : '\0';
    if (ch === '-') {
      inDigits = false;
      if (dash) throw new UsageError(pos ? 'invalid byte or character range' : 'invalid field range');
      dash = true;
      if (lhs && !value) throw new UsageError(fromOne);
      initial = lhs ? value : 1;
      initialKey = lhs ? sortKey(spec.slice(numStart, i)) : 1;
      value = 0;
    } else if (ch === ',' || ch === ' ' || ch === '\t' || ch === '\0') {
      inDigits = false;
      if (dash) {
        dash = false;
        if (!lhs && !rhs) throw new UsageError('invalid range with no endpoint: -');
        if (!rhs) ranges.push({ lo: initial, hi: FIELD_MAX, key: initialKey });
        else {
          if (value < initial) throw new UsageError('invalid decreasing range');
          ranges.push({ lo: initial, hi: value, key: initialKey });
        }
      } else {
        if (value === 0) throw new UsageError(fromOne);
        ranges.push({ lo: value, hi: value, key: sortKey(spec.slice(numStart, i)) });
      }
      value = 0;
      if (i >= spec.length) break;
      lhs = false;
      rhs = false;
    } else if (ch >= '0' && ch <= '9') {
      if (!inDigits) numStart = i;
      inDigits = true;
      if (dash) rhs = true;
      else lhs = true;
      value = value * 10 + (ch.charCodeAt(0) - 48);
      if (value >= FIELD_MAX && BigInt(spec.slice(numStart, i + 1)) >= (1n << 64n) - 1n) {
        const bad = /^[0-9]*/.exec(spec.slice(numStart))![0];
        throw new UsageError(pos ? `byte/character offset ${gnuQuote(bad)} is too large` : `field number ${gnuQuote(bad)} is too large`);
      }
      value = Math.min(value, FIELD_MAX - 1);
    } else {
      throw new UsageError(pos ? `invalid byte/character position ${gnuQuote(spec.slice(i))}` : `invalid field value ${gnuQuote(spec.slice(i))}`);
    }
  }
  if (ranges.length === 0) throw new UsageError(pos ? 'missing list of byte/character positions' : 'missing list of fields');
  ranges.sort((a, b) => a.key - b.key);
  const merged: FieldRange[] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r.lo <= last.hi) last.hi = Math.max(last.hi, r.hi);
    else merged.push({ lo: r.lo, hi: r.hi });
  }
  if (!o.complement) return merged;
  const c: FieldRange[] = [];
  if (merged[0]!.lo > 1) c.push({ lo: 1, hi: merged[0]!.lo - 1 });
  for (let k = 1; k < merged.length; k++) {
    if (merged[k - 1]!.hi + 1 === merged[k]!.lo) continue;
    c.push({ lo: merged[k - 1]!.hi + 1, hi: merged[k]!.lo - 1 });
  }
  if (merged[merged.length - 1]!.hi < FIELD_MAX) c.push({ lo: merged[merged.length - 1]!.hi + 1, hi: FIELD_MAX });
  return c;
}

/**
 * GNU 9.1 sorts the ranges by their start cast to int (compare_ranges): a start of 2^31 or
 * more sorts where its low 32 bits say, then swallows the ranges after it when merging.
 */
function sortKey(digits: string): number {
  return Number(BigInt.asIntN(32, BigInt(digits)));
}
