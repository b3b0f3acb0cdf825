// read's line ranges against a plain model (split the whole text into lines, then pick and
// cap), over files that cross the 256 KiB chunks: the tool decodes only the wanted lines and
// counts the others as bytes, and cuts a too long line while reading it.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { workspace, type Ws } from './setup.js';

let ws: Ws;
beforeAll(async () => { ws = await workspace(); });
afterAll(async () => { await ws.close(); });

function cutStart(text: string, cap: number): string {
  const buf = Buffer.from(text);
  let n = Math.min(cap, buf.length);
  while (n > 0 && n < buf.length && (buf[n]! & 0xc0) === 0x80) n--;
  return buf.subarray(0, n).toString();
}

/** What read must return, computed from the whole text. */
function model(text: string, first: number, last: number, cap: number, numbers: boolean) {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const out: string[] = [];
  let bytes = 0;
  let truncated = false;
  let partial = false;
  for (let n = first; n <= Math.min(last, lines.length); n++) {
    const t = numbers ? `${String(n).padStart(6)}\t${lines[n - 1]}` : lines[n - 1]!;
    const len = Buffer.byteLength(t);
    if (bytes + len > cap) {
      truncated = true;
      if (out.length === 0) {
        out.push(cutStart(t, cap));
        partial = true;
      }
      break;
    }
    out.push(t);
    bytes += len;
  }
  return { content: out.join(''), total_lines: lines.length, truncated, start_line: out.length ? first : null, end_line: out.length ? first + out.length - 1 : null, partial: partial || undefined };
}

describe('read: line ranges of big files', () => {
  test('random files, ranges, caps and numbering agree with the model', async () => {
    let seed = 3;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    const pieces = ['a', 'b', ' ', 'é', '€', '😀', 'x'.repeat(40)];
    for (let round = 0; round < 12; round++) {
      const lines: string[] = [];
      const count = 200 + rnd(30000);
      for (let i = 0; i < count; i++) {
        const long = rnd(500) === 0 ? 300_000 + rnd(200_000) : rnd(120);
        let s = '';
        while (s.length < long) s += pieces[rnd(pieces.length)];
        lines.push(s);
      }
      const text = lines.join('\n') + (rnd(2) ? '\n' : '');
      ws.put(`r${round}.txt`, text);
      for (let q = 0; q < 8; q++) {
        const first = 1 + rnd(count + 5);
        const limit = rnd(3) === 0 ? undefined : 1 + rnd(2000);
        const cap = [100, 5000, 1_000_000, 5_000_000][rnd(4)]!;
        const numbers = rnd(3) === 0;
        const args = { path: `r${round}.txt`, offset: first, ...(limit ? { limit } : {}), max_bytes: cap, line_numbers: numbers };
        const r = await ws.call('read', args);
        expect(r.success, JSON.stringify(args)).toBe(true);
        const want = model(text, first, limit ? first + limit - 1 : Infinity, cap, numbers);
        const got = { content: r.data.content, total_lines: r.data.total_lines, truncated: r.data.truncated, start_line: r.data.start_line, end_line: r.data.end_line, partial: r.data.partial_line };
        expect(got, JSON.stringify(args)).toEqual(want);
      }
    }
  }, 120_000);

  test('tail of a file whose last lines span several chunks', async () => {
    const long = 'q'.repeat(700_000);
    ws.put('tail.txt', `first\n${long}\n${long}x`);
    const r = await ws.call('read', { path: 'tail.txt', tail: 2, max_bytes: 2_000_000 });
    expect(r.data).toMatchObject({ content: `${long}\n${long}x`, start_line: 2, end_line: 3, total_lines: 3, truncated: false });
    const cut = await ws.call('read', { path: 'tail.txt', tail: 1, max_bytes: 10 });
    expect(cut.data).toMatchObject({ content: 'qqqqqqqqqx', partial_line: true, total_lines: 3 });
  });

  test('a one-line file much bigger than the cap: its start, and one line counted', async () => {
    ws.put('one.txt', 'é'.repeat(3_000_000));
    const r = await ws.call('read', { path: 'one.txt', max_bytes: 1001 });
    expect(r.data).toMatchObject({ content: 'é'.repeat(500), total_lines: 1, truncated: true, partial_line: true, start_line: 1, end_line: 1 });
  });
});
