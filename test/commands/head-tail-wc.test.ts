// What the GNU fixtures cannot show for head, tail, wc, echo: the streaming split against a
// naive model, memory bounds of the stream ring, number parsing, refusals and zone policy.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { LastUnits } from '../../src/gnulib/head-tail.js';
import { parseCount, xstrtoumax } from '../../src/gnulib/gnu-number.js';
import { DEFAULT_BLOCKED_PATTERNS } from '../../src/vfs/index.js';
import { buildTree, run, tempDir } from '../helpers.js';

const blocked = { policy: { blockedPatterns: DEFAULT_BLOCKED_PATTERNS } };

const root = tempDir('nosh-headtail-');
buildTree(root, { 'a.txt': 'a\nb\nc\n', '.env': 'SECRET=1\n', 'notes.md': 'n\n' });
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** Naive model: all lines (a final unterminated piece is a line). */
function splitLines(data: Buffer, sep: number): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < data.length; i++) {
    if (data[i] === sep) {
      out.push(data.subarray(start, i + 1));
      start = i + 1;
    }
  }
  if (start < data.length) out.push(data.subarray(start));
  return out;
}

function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

describe('LastUnits (head -n -N / tail -n N on streams)', () => {
  it('splits any chunking of random input exactly like the naive model', () => {
    const rand = rng(42);
    for (let round = 0; round < 400; round++) {
      const len = Math.floor(rand() * 60);
      const data = Buffer.from(Array.from({ length: len }, () => (rand() < 0.3 ? 0x0a : 0x61 + Math.floor(rand() * 3))));
      const n = Math.floor(rand() * 6);
      for (const unit of ['lines', 'bytes'] as const) {
        const ring = new LastUnits(n, unit);
        const front: Buffer[] = [];
        let pos = 0;
        while (pos < data.length) {
          const size = 1 + Math.floor(rand() * 8);
          front.push(...ring.push(data.subarray(pos, pos + size)));
          pos += size;
        }
        const fin = ring.finish();
        front.push(...fin.front);
        const got = { front: Buffer.concat(front).toString(), kept: Buffer.concat(fin.kept).toString() };
        let want;
        if (unit === 'bytes') {
          const cut = Math.max(0, data.length - n);
          want = { front: data.subarray(0, cut).toString(), kept: data.subarray(cut).toString() };
        } else {
          const lines = splitLines(data, 0x0a);
          const cut = Math.max(0, lines.length - n);
          want = { front: Buffer.concat(lines.slice(0, cut)).toString(), kept: Buffer.concat(lines.slice(cut)).toString() };
        }
        expect(got, `${JSON.stringify(data.toString())} n=${n} ${unit}`).toEqual(want);
      }
    }
  });

  it('holds only about the last N lines of a long stream', () => {
    const ring = new LastUnits(2, 'lines');
    const chunk = Buffer.from('0123456789abcdef\n'.repeat(4096)); // ~68 KB, 4096 lines
    for (let i = 0; i < 1000; i++) ring.push(chunk);
    const held = (ring as unknown as { queue: { buf: Buffer }[] }).queue.reduce((s, q) => s + q.buf.length, 0);
    expect(held).toBeLessThanOrEqual(2 * 17);
    expect(Buffer.concat(ring.finish().kept).toString()).toBe('0123456789abcdef\n'.repeat(2));
  });
});

describe('many lines: whole chunks counted at once (head -n N, tail -n +N, wc -l over 3.6 MB)', () => {
  // 200 000 lines of 1-40 letters, a NUL before every 7th newline, no final newline: the
  // counts cross the 256 KiB chunks and the 1 000-line threshold of nthSeparator.
  let seed = 5;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
  const parts: string[] = [];
  for (let i = 0; i < 200000; i++) {
    const len = 1 + rnd(40);
    let s = '';
    for (let k = 0; k < len; k++) s += String.fromCharCode(97 + rnd(26));
    parts.push(s + (i % 7 === 0 ? '\0' : '') + (i === 199999 ? '' : '\n'));
  }
  const dir = tempDir('nosh-manylines-');
  fs.writeFileSync(`${dir}/f.txt`, Buffer.from(parts.join(''), 'latin1'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  // sha256 (first 16 hex digits) of GNU's stdout for each line, LC_ALL=C.
  const GNU: [string, string][] = [
    ['head -n 150000 f.txt', '9f35160621636951'],
    ['tail -n +150001 f.txt', 'ea02949bff15b857'],
    ['head -n 1001 f.txt', '985b40627deab205'],
    ['tail -n +1002 f.txt', 'acdd9d134878e0a1'],
    ['head -n 199999 f.txt', '8bb002c05b1b66fd'],
    ['head -n 250000 f.txt', 'e1ac45b51e19b644'],
    ['tail -n +250000 f.txt', 'e3b0c44298fc1c14'],
    ['cat f.txt | head -n 150000', '9f35160621636951'],
    ['cat f.txt | tail -n +150001', 'ea02949bff15b857'],
    ['head -z -n 20000 f.txt', 'a10e09a9adc2eff8'],
    ['tail -z -n +20000 f.txt', 'a5cfcb9babe2bece'],
    ['tail -n 150000 f.txt', 'be2274777a028155'],
    ['cat f.txt | tail -n 150000', 'be2274777a028155'],
    ['wc -l f.txt', 'e6ccb0ec816b35f8'],
    ['cat f.txt | wc -l', '00d9cd208c4bb685'],
    ['head -n -150000 f.txt', '0a74032cf13301ec'],
    // stdin named several times: each head -c reads on where the previous one stopped
    ['cat f.txt | head -c 300000 - -', 'b99f708862b5855a'],
    ['cat f.txt | head -c 70000 - - -', 'bb8afbdb68e879f5'],
    ['cat f.txt | head -c 1000000 -q - - - -', 'e1ac45b51e19b644'],
    ['cat f.txt | head -z -c 262145 - -', '3c70be6471e24559'],
  ];
  it.each(GNU)('%s', async (line, sha) => {
    const r = await run(dir, line);
    expect(r.exitCode).toBe(0);
    expect(createHash('sha256').update(r.stdout).digest('hex').slice(0, 16)).toBe(sha);
  });
});

describe('GNU number arguments', () => {
  it('takes suffixes as xstrtoumax does', () => {
    const v = (s: string) => xstrtoumax(s, 'bkKmMGTPEZY0');
    expect(v('5').value).toBe(5n);
    expect(v('2b').value).toBe(1024n);
    expect(v('1K').value).toBe(1024n);
    expect(v('1kB').value).toBe(1000n);
    expect(v('1KiB').value).toBe(1024n);
    expect(v('3MB').value).toBe(3_000_000n);
    expect(v('1G').value).toBe(1n << 30n);
    expect(v('K').value).toBe(1024n);
    expect(v(' +7').value).toBe(7n);
    expect(v('-1').err).toBe('invalid');
    expect(v('1x').err).toBe('suffix');
    expect(v('1Y').err).toBe('overflow');
    expect(v('18446744073709551616').err).toBe('overflow');
  });

  it('words the errors as GNU', () => {
    expect(parseCount('x', 'invalid number of lines')).toEqual({ error: "invalid number of lines: 'x'" });
    expect(parseCount('99999999999999999999', 'invalid number of bytes')).toEqual({
      error: "invalid number of bytes: '99999999999999999999': Value too large for defined data type",
    });
    expect(parseCount('18446744073709551615', 'n')).toEqual({ value: Infinity });
  });
});

describe('refusals and policy', () => {
  it('tail -f, -F and --follow on a file are refused with what to do instead, nothing printed', async () => {
    for (const cmd of ['tail -f a.txt', 'tail -3f a.txt', 'tail --follow a.txt', 'tail --follow=name a.txt', 'tail -F a.txt', 'tail -n1 -f a.txt']) {
      const out = await run(root, cmd);
      expect(out.exitCode, cmd).toBe(1);
      expect(out.stderr, cmd).toBe('tail: following a file (-f, -F, --follow) is not supported: nosh runs each command to completion; run tail again to see what was added\n');
      expect(out.stdout.length).toBe(0);
    }
    // Standard input (a pipe) is not followed, as GNU: its tail is printed.
    const piped = await run(root, 'tail -f -n 1', { stdin: 'a\nb\n' });
    expect([piped.exitCode, piped.stdout.toString()]).toEqual([0, 'b\n']);
    // A usage error met first is still reported as GNU does.
    expect((await run(root, 'tail -n x -f a.txt')).stderr).toBe("tail: invalid number of lines: 'x'\n");
  });

  it('blocked files are refused like unreadable files, the others still printed', async () => {
    const h = await run(root, 'head -n 1 .env a.txt', blocked);
    expect(h.exitCode).toBe(1);
    expect(h.stderr).toBe("head: cannot open '.env' for reading: Permission denied (blocked by zone policy)\n");
    expect(h.stdout.toString()).toBe('==> a.txt <==\na\n');
    const t = await run(root, 'tail -n 1 .env', blocked);
    expect(t.stderr).toMatch(/^tail: cannot open '.env' for reading: Permission denied/);
    const w = await run(root, 'wc -l .env a.txt', blocked);
    expect(w.stderr).toBe('wc: .env: Permission denied (blocked by zone policy)\n');
    expect(w.stdout.toString()).toBe('3 a.txt\n3 total\n');
  });

  it('allowed extensions apply to head/tail/wc operands', async () => {
    const out = await run(root, 'tail -n 1 a.txt notes.md', { policy: { allowedExtensions: ['.md'] } });
    expect(out.stdout.toString()).toBe('==> notes.md <==\nn\n');
    expect(out.stderr).toMatch(/^tail: cannot open 'a.txt' for reading: Permission denied/);
  });

  it('head of a file read in growing chunks (16 KiB first): lines and bytes cut at every size', async () => {
    const rand = rng(7);
    const lines: string[] = [];
    for (let size = 0; size < 700_000;) {
      const l = 'x'.repeat(Math.floor(rand() * 120)) + '\n';
      lines.push(l);
      size += l.length;
    }
    const data = Buffer.from(lines.join(''));
    fs.writeFileSync(`${root}/big.txt`, data);
    for (const n of [1, 100, 300, 1500, 8000, lines.length - 1, lines.length + 5]) {
      const out = await run(root, `head -n ${n} big.txt`, { maxOutputBytes: 5_000_000 });
      expect(out.stdout.equals(Buffer.from(lines.slice(0, n).join(''))), `head -n ${n}`).toBe(true);
    }
    for (const c of [16 * 1024 - 1, 16 * 1024, 16 * 1024 + 1, 80 * 1024, 345 * 1024, 700_000]) {
      const out = await run(root, `head -c ${c} big.txt`, { maxOutputBytes: 5_000_000 });
      expect(out.stdout.equals(data.subarray(0, c)), `head -c ${c}`).toBe(true);
    }
    const elided = await run(root, 'head -n -5 big.txt', { maxOutputBytes: 5_000_000 });
    expect(elided.stdout.equals(Buffer.from(lines.slice(0, -5).join('')))).toBe(true);
  });

  it('stdin is read once: a second - sees end of input', async () => {
    const out = await run(root, 'wc -l - -', { stdin: 'x\ny\n' });
    expect(out.stdout.toString()).toBe('      2 -\n      0 -\n      2 total\n');
  });

  it('echo --help alone is generated from the declaration; with more arguments it is text', async () => {
    const help = await run(root, 'echo --help');
    expect(help.stdout.toString()).toMatch(/^Usage: echo \[OPTION\]\.\.\. \[STRING\]\.\.\./);
    expect(help.stdout.toString()).toMatch(/-n +do not output the trailing newline/);
    const text = await run(root, 'echo --help me');
    expect(text.stdout.toString()).toBe('--help me\n');
  });

  it('tail --help lists the flags, and -f / --follow as refused for a file', async () => {
    const out = await run(root, 'tail --help');
    expect(out.stdout.toString()).toMatch(/--lines=\[\+\]NUM/);
    expect(out.stdout.toString()).toMatch(/^ +--follow\[=\{name\|descriptor\}\]\n +ignored for standard input \(a pipe\), as GNU; refused for a file/m);
  });
});
