import * as fs from 'node:fs';
import { describe, expect, test } from 'vitest';
import { run } from '../helpers.js';
import { leftovers, zone } from './fileops-fixture.js';
import { parseDate, parsePosixStamp } from '../../src/gnulib/date.js';

const utc = (...a: [number, number, number, number?, number?, number?]) => Date.UTC(a[0], a[1] - 1, a[2], a[3] ?? 0, a[4] ?? 0, a[5] ?? 0) / 1000;
const times = (p: string) => { const st = fs.statSync(p); return { a: st.atimeMs / 1000, m: st.mtimeMs / 1000 }; };

describe('touch', () => {
  test('-d sets both times; the content of an existing file is unchanged', async () => {
    const z = zone({ f: 'content' });
    const r = await run(z.root, "touch -d '2020-05-06 07:08:09' f new");
    expect(r.exitCode).toBe(0);
    expect(times(z.at('f'))).toEqual({ a: utc(2020, 5, 6, 7, 8, 9), m: utc(2020, 5, 6, 7, 8, 9) });
    expect(times(z.at('new'))).toEqual({ a: utc(2020, 5, 6, 7, 8, 9), m: utc(2020, 5, 6, 7, 8, 9) });
    expect(fs.readFileSync(z.at('f'), 'utf8')).toBe('content');
    expect(fs.readFileSync(z.at('new'), 'utf8')).toBe('');
    expect(leftovers(z.root)).toEqual([]);
  });

  test('-a and -m change one time only; -t and -r give the time', async () => {
    const z = zone({ f: 'x', ref: 'r' });
    fs.utimesSync(z.at('f'), 100, 200);
    fs.utimesSync(z.at('ref'), 300, 400);
    await run(z.root, 'touch -a -t 202001020304.05 f');
    expect(times(z.at('f'))).toEqual({ a: utc(2020, 1, 2, 3, 4, 5), m: 200 });
    await run(z.root, 'touch -m -d @5 f');
    expect(times(z.at('f'))).toEqual({ a: utc(2020, 1, 2, 3, 4, 5), m: 5 });
    await run(z.root, 'touch -r ref f');
    expect(times(z.at('f'))).toEqual({ a: 300, m: 400 });
    await run(z.root, 'touch --time=mtime -d @7 f');
    expect(times(z.at('f'))).toEqual({ a: 300, m: 7 });
    await run(z.root, "touch -r ref -d '+1 day' f");
    expect(times(z.at('f'))).toEqual({ a: 300 + 86400, m: 400 + 86400 });
  });

  test('times before 1970 are kept (Node takes a negative number of seconds for now)', async () => {
    // GNU: touch -d @-1 gives mtime -1; '1969-07-20 20:17:40' gives -14182940 (stat -c %Y).
    const z = zone({ f: 'x' });
    expect((await run(z.root, 'touch -d @-1 f new')).exitCode).toBe(0);
    expect(times(z.at('f'))).toEqual({ a: -1, m: -1 });
    expect(times(z.at('new'))).toEqual({ a: -1, m: -1 });
    await run(z.root, "touch -m -d '1969-07-20 20:17:40' f");
    expect(times(z.at('f'))).toEqual({ a: -1, m: -14182940 });
  });

  test('without a time source the current time is used', async () => {
    const z = zone({ f: 'x' });
    fs.utimesSync(z.at('f'), 100, 200);
    const before = Date.now() / 1000 - 1;
    await run(z.root, 'touch f');
    const t = times(z.at('f'));
    expect(t.m).toBeGreaterThan(before);
    expect(t.a).toBeGreaterThan(before);
    await run(z.root, 'touch -d yesterday f');
    expect(Math.abs(times(z.at('f')).m - (Date.now() / 1000 - 86400))).toBeLessThan(5);
  });

  test("-c creates nothing; '-' is standard output, not a file", async () => {
    const z = zone();
    expect((await run(z.root, 'touch -c a b')).exitCode).toBe(0);
    expect((await run(z.root, 'touch -')).exitCode).toBe(0);
    expect(fs.readdirSync(z.root)).toEqual([]);
  });

  test('refused in a read-only zone, even when deleting is allowed', async () => {
    const z = zone({ f: 'x' });
    fs.utimesSync(z.at('f'), 100, 200);
    const r = await run(z.root, 'touch f g', { policy: { readonly: true, allowDelete: true } });
    expect(r.error?.code).toBe('ZONE_READONLY');
    expect(times(z.at('f'))).toEqual({ a: 100, m: 200 });
    expect(fs.existsSync(z.at('g'))).toBe(false);
  });

  test('a symlink is not followed: the target keeps its times', async () => {
    const z = zone();
    fs.utimesSync(`${z.outside}/keep.txt`, 100, 200);
    fs.symlinkSync(`${z.outside}/keep.txt`, z.at('out'));
    await run(z.root, 'touch -d @5 out');
    expect(times(`${z.outside}/keep.txt`)).toEqual({ a: 100, m: 200 });
  });

  test('dates outside the documented subset are refused clearly', async () => {
    const z = zone({ f: 'x' });
    const r = await run(z.root, "touch -d 'Jan 2 2024' f");
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe("touch: invalid date format 'Jan 2 2024'\n");
  });
});

describe('date strings (src/command/date.ts)', () => {
  const now = Date.UTC(2026, 10, 22, 16, 2, 58, 250); // 2026-11-22 16:02:58.25
  const sec = (t: string) => parseDate(t, now)?.sec;
  test.each([
    ['2024-01-02', utc(2024, 1, 2)],
    ['2024-01-02 03:04:05', utc(2024, 1, 2, 3, 4, 5)],
    ['2024-01-02T03:04:05Z', utc(2024, 1, 2, 3, 4, 5)],
    ['2024-01-02T03:04', utc(2024, 1, 2, 3, 4)],
    ['2024-01-02T03:04:05+02:00', utc(2024, 1, 2, 1, 4, 5)],
    ['2024-01-02 03:04:05 +0100', utc(2024, 1, 2, 2, 4, 5)],
    ['2024-01-02 03:04:05 -05', utc(2024, 1, 2, 8, 4, 5)],
    ['2024-01-02 03:04:05-0530', utc(2024, 1, 2, 8, 34, 5)],
    ['2024-01-02 03:04:05 UTC', utc(2024, 1, 2, 3, 4, 5)],
    ['2024-1-2 3:04', utc(2024, 1, 2, 3, 4)],
    ['24-01-02', utc(2024, 1, 2)],
    ['20240102', utc(2024, 1, 2)],
    ['2024-01-02 03', utc(2024, 1, 2, 3)],
    ['@0', 0], ['@-1', -1], ['@ 5', 5], ['@1700000000', 1700000000],
    ['', utc(2026, 11, 22)],
    ['now', utc(2026, 11, 22, 16, 2, 58)],
    ['today', utc(2026, 11, 22, 16, 2, 58)],
    ['yesterday', utc(2026, 11, 21, 16, 2, 58)],
    ['tomorrow', utc(2026, 11, 23, 16, 2, 58)],
    ['2 days ago', utc(2026, 11, 20, 16, 2, 58)],
    ['+3 hours', utc(2026, 11, 22, 19, 2, 58)],
    ['-1 day', utc(2026, 11, 21, 16, 2, 58)],
    ['2 weeks ago', utc(2026, 11, 8, 16, 2, 58)],
    ['hour', utc(2026, 11, 22, 17, 2, 58)],
    ['last day', utc(2026, 11, 21, 16, 2, 58)],
    ['03:04:05', utc(2026, 11, 22, 3, 4, 5)],
    ['2024-01-02 +1 day', utc(2024, 1, 3)],
    ['2024-01-31 +1 month', utc(2024, 3, 2)],
    ['2024-01-02 3 days ago', utc(2023, 12, 30)],
    ['tomorrow 2024-01-02', utc(2024, 1, 3)],
    ['2024-01-02 now', utc(2024, 1, 2)],
    ['2024-01-02 12:00 +1 hour', utc(2024, 1, 2, 12)],
  ])('%j', (text, want) => {
    expect(sec(text)).toBe(want);
  });

  test('fractions', () => {
    expect(parseDate('@1.5', now)).toEqual({ sec: 1, nsec: 500_000_000 });
    expect(parseDate('@-1.25', now)).toEqual({ sec: -2, nsec: 750_000_000 });
    expect(parseDate('2024-01-02 03:04:05.123456789', now)).toEqual({ sec: utc(2024, 1, 2, 3, 4, 5), nsec: 123456789 });
    expect(parseDate('now', now)).toEqual({ sec: utc(2026, 11, 22, 16, 2, 58), nsec: 250_000_000 });
  });

  test.each(['foo', 'not a date', '25:00', '2024-01-02 24:00', '2020-02-30', '2020-13-01', '2024-01-02 23:59:60',
    'Jan 2 2024', '2 Jan 2024', 'ago', '0024-01-02', '2024-01-02 2024-01-03', '12:00 13:00', '5'])('refused: %j', (text) => {
    expect(parseDate(text, now)).toBeNull();
  });

  test('-t stamps', () => {
    expect(parsePosixStamp('202001020304.05', now)?.sec).toBe(utc(2020, 1, 2, 3, 4, 5));
    expect(parsePosixStamp('2001020304', now)?.sec).toBe(utc(2020, 1, 2, 3, 4));
    expect(parsePosixStamp('6901020304', now)?.sec).toBe(utc(1969, 1, 2, 3, 4));
    expect(parsePosixStamp('01020304', now)?.sec).toBe(utc(2026, 1, 2, 3, 4));
    expect(parsePosixStamp('202001020304.60', now)?.sec).toBe(utc(2020, 1, 2, 3, 5));
    for (const bad of ['1', '202001020360', '202013020304', '202002300304', '202001020304.61', '2020010203045', 'x0102030405']) {
      expect(parsePosixStamp(bad, now), bad).toBeNull();
    }
  });
});
