// read's paging (issue 16, items 6 and 7): start_line/end_line/next_offset counted in lines for
// text, start_byte/end_byte/next_byte_offset in bytes for byte reads (base64, or byte_offset with
// utf-8/latin1), an explicit past_end, and hints that, followed, read a big file whole.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspace, type Ws } from './setup.js';

let ws: Ws;
beforeAll(async () => { ws = await workspace(); });
afterAll(async () => { await ws.close(); });

const lineCount = (s: string) => s.split('\n').length - (s.endsWith('\n') ? 1 : 0);

describe('read: line numbers of what comes back', () => {
  // returned = out.length counted blocks: 10 000 lines came back as lines 1-4759.
  it('a 20 000-line file cut by max_bytes says the lines it returned and where to continue', async () => {
    ws.put('twenty.txt', Array.from({ length: 20_000 }, (_, i) => String(i + 1).padStart(49, 'x') + '\n').join(''));
    const r = await ws.call('read', { path: 'twenty.txt', max_bytes: 500_000 });
    expect(lineCount(r.data.content)).toBe(10_000);
    expect(r.data).toMatchObject({ start_line: 1, end_line: 10_000, next_offset: 10_001, total_lines: 20_000, truncated: true });
    expect(r.message).toContain('offset 10001');
    const next = await ws.call('read', { path: 'twenty.txt', offset: r.data.next_offset, max_bytes: 500_000 });
    expect(next.data).toMatchObject({ start_line: 10_001, end_line: 20_000, next_offset: null, truncated: false });
    expect(next.data.content.slice(0, 50)).toBe(String(10_001).padStart(49, 'x') + '\n');
  });

  it('a 5-line file read whole ends at line 5, with nothing left', async () => {
    ws.put('five.txt', 'a\nb\nc\nd\ne\n');
    const r = await ws.call('read', { path: 'five.txt' });
    expect(r.data).toMatchObject({ content: 'a\nb\nc\nd\ne\n', start_line: 1, end_line: 5, total_lines: 5, next_offset: null, truncated: false });
    const mid = await ws.call('read', { path: 'five.txt', offset: 2, limit: 2 });
    expect(mid.data).toMatchObject({ content: 'b\nc\n', start_line: 2, end_line: 3, next_offset: 4 });
    expect(mid.message).toContain('offset 4');
  });

  it('reading past the end says so, with the line count', async () => {
    ws.put('five.txt', 'a\nb\nc\nd\ne\n');
    const r = await ws.call('read', { path: 'five.txt', offset: 9 });
    expect(r.success).toBe(true);
    expect(r.data).toMatchObject({ content: '', past_end: true, total_lines: 5, start_line: null, end_line: null, next_offset: null });
    expect(r.message).toBe('offset 9 is past the end of the file (5 lines)');
    const six = await ws.call('read', { path: 'five.txt', offset: 6 });
    expect(six.data.past_end).toBe(true);
    const five = await ws.call('read', { path: 'five.txt', offset: 5 });
    expect(five.data).toMatchObject({ content: 'e\n', start_line: 5, end_line: 5, next_offset: null });
    expect(five.data.past_end).toBeUndefined();
    ws.put('empty.txt', '');
    const empty = await ws.call('read', { path: 'empty.txt' });
    expect(empty.data).toMatchObject({ content: '', total_lines: 0, next_offset: null });
    expect(empty.data.past_end).toBeUndefined();
  });

  it('numbered lines page with the right numbers', async () => {
    ws.put('num.txt', Array.from({ length: 3000 }, (_, i) => `n${i + 1}\n`).join(''));
    let offset: number | null = 1;
    let expectLine = 1;
    while (offset != null) {
      const r: any = await ws.call('read', { path: 'num.txt', offset, line_numbers: true, max_bytes: 4096 });
      const lines = r.data.content.split('\n').slice(0, -1);
      expect(r.data.start_line).toBe(expectLine);
      expect(r.data.end_line).toBe(expectLine + lines.length - 1);
      for (const l of lines) expect(l).toBe(`${String(expectLine).padStart(6)}\tn${expectLine++}`);
      offset = r.data.next_offset;
      expect(expectLine).toBeLessThan(3002);
    }
    expect(expectLine).toBe(3001);
  });

  it('head, offset and tail agree on the numbers and the next offset', async () => {
    ws.put('ht.txt', Array.from({ length: 100 }, (_, i) => `${i + 1}\n`).join(''));
    const h = await ws.call('read', { path: 'ht.txt', head: 10 });
    expect(h.data).toMatchObject({ start_line: 1, end_line: 10, next_offset: 11 });
    const on = await ws.call('read', { path: 'ht.txt', offset: h.data.next_offset, limit: 10 });
    expect(on.data).toMatchObject({ content: '11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n', start_line: 11, end_line: 20, next_offset: 21 });
    const t = await ws.call('read', { path: 'ht.txt', tail: 5 });
    expect(t.data).toMatchObject({ content: '96\n97\n98\n99\n100\n', start_line: 96, end_line: 100, next_offset: null, truncated: false });
    // A tail cut by max_bytes names the earlier lines to read.
    const cut = await ws.call('read', { path: 'ht.txt', tail: 50, max_bytes: 12 });
    expect(cut.data).toMatchObject({ content: '98\n99\n100\n', start_line: 98, end_line: 100, truncated: true, next_offset: null });
    expect(cut.message).toContain('offset 51');
    expect(cut.message).toContain('limit 47');
  });

  it('latin1 lines page like utf-8 ones, byte for byte', async () => {
    const bytes = Buffer.from(Array.from({ length: 2000 }, (_, i) => `\xe9t\xe9 ${i} \xff\n`).join(''), 'latin1');
    ws.put('latin.txt', bytes);
    const parts: string[] = [];
    let offset: number | null = 1;
    while (offset != null) {
      const r: any = await ws.call('read', { path: 'latin.txt', offset, encoding: 'latin1', max_bytes: 1000 });
      parts.push(r.data.content);
      expect(r.data.end_line).toBe(r.data.start_line + lineCount(r.data.content) - 1);
      offset = r.data.next_offset;
      expect(parts.length).toBeLessThan(100);
    }
    expect(Buffer.from(parts.join(''), 'latin1').equals(bytes)).toBe(true);
  });

  it('a line longer than max_bytes comes back cut, and paging goes on after it', async () => {
    const long = 'é'.repeat(500); // 1000 bytes
    ws.put('longline.txt', `a\n${long}\nc\nd\n`);
    const p1 = await ws.call('read', { path: 'longline.txt', max_bytes: 100 });
    expect(p1.data).toMatchObject({ content: 'a\n', start_line: 1, end_line: 1, next_offset: 2, truncated: true });
    const p2 = await ws.call('read', { path: 'longline.txt', offset: p1.data.next_offset, max_bytes: 100 });
    expect(p2.data).toMatchObject({ content: 'é'.repeat(50), start_line: 2, end_line: 2, partial_line: true, next_offset: 3, next_byte_offset: 102 });
    expect(p2.message).toContain('byte_offset 102');
    // The rest of the long line, by bytes.
    const rest = await ws.call('read', { path: 'longline.txt', byte_offset: p2.data.next_byte_offset, byte_length: 900 });
    expect(rest.data).toMatchObject({ content: 'é'.repeat(450), start_byte: 102, end_byte: 1001, next_byte_offset: 1002 });
    const p3 = await ws.call('read', { path: 'longline.txt', offset: p2.data.next_offset, max_bytes: 100 });
    expect(p3.data).toMatchObject({ content: 'c\nd\n', start_line: 3, end_line: 4, next_offset: null, truncated: false });
    // latin1: the rest starts after the characters returned, one byte each in the file.
    ws.put('longlatin.txt', Buffer.from(`a\n${'\xe9'.repeat(300)}\nz\n`, 'latin1'));
    const l2 = await ws.call('read', { path: 'longlatin.txt', offset: 2, encoding: 'latin1', max_bytes: 100, line_numbers: true });
    expect(l2.data).toMatchObject({ content: '     2\t' + '\xe9'.repeat(46), partial_line: true, next_byte_offset: 48, next_offset: 3 });
    const lr = await ws.call('read', { path: 'longlatin.txt', encoding: 'latin1', byte_offset: 48 });
    expect(lr.data).toMatchObject({ content: '\xe9'.repeat(254) + '\nz\n', next_byte_offset: null });
  });

  it('following next_offset reads a 100 000-line file whole, byte-identical', async () => {
    const pieces = ['alpha', 'é', '€', '😀', ' ', 'tab\t', 'x'.repeat(90)];
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    const lines: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      let s = `${i + 1}:`;
      for (let k = rnd(6); k > 0; k--) s += pieces[rnd(pieces.length)];
      lines.push(s);
    }
    const text = lines.join('\n'); // no final newline
    ws.put('big.txt', text);
    const parts: string[] = [];
    let offset: number | null = 1;
    let calls = 0;
    while (offset != null) {
      const r: any = await ws.call('read', { path: 'big.txt', offset, max_bytes: 200_000 });
      expect(r.data.start_line).toBe(offset);
      expect(r.data.end_line).toBe(offset + lineCount(r.data.content) - 1);
      expect(r.data.total_lines).toBe(100_000);
      parts.push(r.data.content);
      offset = r.data.next_offset;
      expect(++calls).toBeLessThan(200);
    }
    expect(Buffer.from(parts.join('')).equals(Buffer.from(text))).toBe(true);
  }, 120_000);
});

describe('read_many pages like read', () => {
  it('each result has its own line numbers and next offsets', async () => {
    ws.put('m1.txt', 'a\nb\nc\nd\n');
    ws.put('m2.txt', 'x\n');
    const r = await ws.call('read_many', { paths: ['m1.txt', 'm2.txt'], max_bytes_per_file: 4 });
    expect(r.data.results[0].data).toMatchObject({ content: 'a\nb\n', start_line: 1, end_line: 2, next_offset: 3, truncated: true });
    expect(r.data.results[1].data).toMatchObject({ content: 'x\n', start_line: 1, end_line: 1, next_offset: null });
    const b = await ws.call('read_many', { paths: ['m1.txt'], encoding: 'base64', max_bytes_per_file: 4 });
    expect(b.data.results[0].data).toMatchObject({ content: Buffer.from('a\nb').toString('base64'), start_byte: 0, end_byte: 2, next_byte_offset: 3 });
  });
});

describe('read: bytes', () => {
  const size = 10 * 1024 * 1024;
  let bin: Buffer;
  beforeAll(() => {
    bin = randomBytes(size);
    ws.put('big.bin', bin);
  });

  // The first chunk came back with message "ok", and offset: 2 returned it again.
  it('base64 says how to continue, and the next chunk is the next bytes', async () => {
    const r = await ws.call('read', { path: 'big.bin', encoding: 'base64' });
    const first = Buffer.from(r.data.content, 'base64');
    expect(first.length % 3).toBe(0);
    expect(first.equals(bin.subarray(0, first.length))).toBe(true);
    expect(r.data).toMatchObject({ size, start_byte: 0, end_byte: first.length - 1, next_byte_offset: first.length, truncated: true });
    expect(r.message).toContain(`byte_offset ${first.length}`);
    const again = await ws.call('read', { path: 'big.bin', encoding: 'base64', byte_offset: r.data.next_byte_offset });
    expect(Buffer.from(again.data.content, 'base64').equals(bin.subarray(first.length, 2 * first.length))).toBe(true);
    // Line offsets mean nothing for base64: an error, not the first chunk again.
    const lines = await ws.call('read', { path: 'big.bin', encoding: 'base64', offset: 2 });
    expect(lines.success).toBe(false);
    expect(lines.error.code).toBe('INVALID_ARGUMENT');
    expect(lines.error.hint).toContain('byte_offset');
  });

  it('byte_length returns exactly that range; past the end says so', async () => {
    const r = await ws.call('read', { path: 'big.bin', encoding: 'base64', byte_offset: 1000, byte_length: 7 });
    expect(Buffer.from(r.data.content, 'base64').equals(bin.subarray(1000, 1007))).toBe(true);
    expect(r.data).toMatchObject({ start_byte: 1000, end_byte: 1006, next_byte_offset: 1007, truncated: false });
    const tail = await ws.call('read', { path: 'big.bin', encoding: 'base64', byte_offset: size - 5 });
    expect(tail.data).toMatchObject({ start_byte: size - 5, end_byte: size - 1, next_byte_offset: null, truncated: false });
    const past = await ws.call('read', { path: 'big.bin', encoding: 'base64', byte_offset: size });
    expect(past.success).toBe(true);
    expect(past.data).toMatchObject({ content: '', past_end: true, size, next_byte_offset: null });
    expect(past.message).toBe(`byte_offset ${size} is past the end of the file (${size} bytes)`);
  });

  it('following next_byte_offset reads a 10 MB binary file whole; the base64 chunks concatenate', async () => {
    const parts: string[] = [];
    let at: number | null = 0;
    let calls = 0;
    while (at != null) {
      const r: any = await ws.call('read', { path: 'big.bin', encoding: 'base64', byte_offset: at, max_bytes: 1_000_000 });
      expect(r.data.start_byte).toBe(at);
      parts.push(r.data.content);
      at = r.data.next_byte_offset;
      if (at !== null) expect(r.data.content).not.toContain('=');
      expect(++calls).toBeLessThan(20);
    }
    expect(Buffer.from(parts.join(''), 'base64').equals(bin)).toBe(true);
  }, 120_000);

  it('latin1 by bytes pages a binary file too', async () => {
    const small = bin.subarray(0, 300_000);
    ws.put('small.bin', small);
    const parts: Buffer[] = [];
    let at: number | null = 0;
    while (at != null) {
      const r: any = await ws.call('read', { path: 'small.bin', encoding: 'latin1', byte_offset: at, max_bytes: 65_536 });
      const got = Buffer.from(r.data.content, 'latin1');
      expect(r.data.end_byte - r.data.start_byte + 1).toBe(got.length);
      parts.push(got);
      at = r.data.next_byte_offset;
      expect(parts.length).toBeLessThan(10);
    }
    expect(Buffer.concat(parts).equals(small)).toBe(true);
  });

  it('utf-8 by bytes never splits a character at the end', async () => {
    ws.put('chars.txt', '€€€€'); // 12 bytes
    const r = await ws.call('read', { path: 'chars.txt', byte_offset: 0, byte_length: 5 });
    expect(r.data).toMatchObject({ content: '€', start_byte: 0, end_byte: 2, next_byte_offset: 3 });
    const bad = await ws.call('read', { path: 'chars.txt', byte_offset: 0, offset: 1 });
    expect(bad.error.code).toBe('INVALID_ARGUMENT');
  });
});
