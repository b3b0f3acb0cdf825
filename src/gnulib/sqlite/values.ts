/**
 * How the sqlite3 shell (3.40) spells values: REAL through SQLite's printf "%!.15g" (text
 * conversion: list, csv, line, column...) or "%!.20g" (quote, json, .dump), integers in full,
 * text and blobs as bytes. Values come from sql.js with `useBigInt` (integers are bigint,
 * reals are number), so the storage class is known without sqlite3_column_type.
 */
import { sqlitePrintfG } from './printf-real.js';

export type Value = bigint | number | string | Uint8Array | null;

/** SQLite's "%!.Ng": %g with a decimal point always kept ("1.0", "1.0e+20"), digits as 3.40 computes them. */
export function formatReal(x: number, precision = 15): string {
  if (Number.isNaN(x)) return '';
  return sqlitePrintfG(x, precision);
}

/** A real as quote mode, json and .dump write it: "N.0" when integral, else "%!.20g". */
export function formatRealExact(x: number, inf: 'Inf' | '1e999'): string {
  if (x === Infinity) return inf === 'Inf' ? 'Inf' : '1e999';
  if (x === -Infinity) return inf === 'Inf' ? '-Inf' : '-1e999';
  if (Number.isInteger(x) && Math.abs(x) < 2 ** 63) return `${BigInt(x)}.0`;
  return formatReal(x, 20);
}

const utf8 = new TextDecoder('utf-8');

/** The value as sqlite3_column_text gives it (bytes of a blob as they are, latin1-safe through Buffer). */
export function textOf(v: Value): string | null {
  if (v === null) return null;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return formatReal(v);
  if (typeof v === 'string') return v;
  return utf8.decode(v);
}

/** A blob as raw bytes, for modes that write bytes (list, csv...). */
export function bytesOf(v: Value, nullValue: string): Buffer {
  if (v instanceof Uint8Array) return Buffer.from(v);
  const t = textOf(v);
  return Buffer.from(t ?? nullValue);
}

/** SQL literal of a value: quote mode and .dump. */
export function sqlLiteral(v: Value, inf: 'Inf' | '1e999'): string {
  if (v === null) return 'NULL';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return formatRealExact(v, inf);
  if (typeof v === 'string') return `'${v.replace(/'/g, "''")}'`;
  return `X'${Buffer.from(v).toString('hex')}'`;
}
