// The block-at-a-time paths of sed (one s///g: a literal on bytes, a line-local regex on
// blocks of lines), cut -f, sort, paste and base64 checked against the real GNU tools on inputs
// of several read chunks (256 KiB each): matches and lines across chunk boundaries, long lines,
// a last line without newline, several files, -z, -s, -i and stdin.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runArgv, tempDir } from '../helpers.js';
import { Helper, setHelper } from '../../commands/grep/parallel.js';

const scratch = tempDir('nosh-bigfast-');
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
let z = 0;
function zone(files: Record<string, string | Buffer>): string {
  const root = path.join(scratch, `z${z++}`);
  fs.mkdirSync(root, { recursive: true });
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(root, name), content);
  return root;
}

function gnu(root: string, argv: string[], stdin?: Buffer): { status: number; stdout: Buffer } {
  const r = spawnSync(argv[0]!, argv.slice(1), { cwd: root, input: stdin, env: { PATH: process.env.PATH, LC_ALL: 'C' }, maxBuffer: 1 << 30 });
  return { status: r.status ?? -1, stdout: r.stdout };
}

/** Seeded text: words, `a`-rich, lines of 0-200 bytes, some far longer than a chunk. */
function text(seed: number, bytes: number, opts: { longLines?: boolean; delim?: string; tail?: boolean } = {}): Buffer {
  let s = seed >>> 0;
  const rnd = (n: number) => { s = (Math.imul(s, 1103515245) + 12345) >>> 0; return (s >>> 8) % n; };
  const words = ['a', 'aa', 'banana', 'alpha', 'x,y', 'tab\there', 'needle', 'b', 'A', 'zeta', '', ' ', 'ab,c', 'é'];
  const parts: string[] = [];
  let n = 0;
  while (n < bytes) {
    let line = '';
    const len = opts.longLines && rnd(40) === 0 ? 300_000 + rnd(200_000) : rnd(200);
    while (line.length < len) line += words[rnd(words.length)]! + (rnd(3) === 0 ? ',' : ' ');
    parts.push(line);
    n += line.length + 1;
  }
  const d = opts.delim ?? '\n';
  return Buffer.from(parts.join(d) + (opts.tail === false ? '' : d), 'latin1');
}

async function same(root: string, argv: string[], stdin?: Buffer): Promise<void> {
  const want = gnu(root, argv, stdin);
  const got = await runArgv(root, argv, { stdin, maxOutputBytes: 1 << 28 });
  expect(got.exitCode).toBe(want.status);
  // compare digests first (a diff of megabytes is unreadable), then the first difference
  if (!got.stdout.equals(want.stdout)) {
    let i = 0;
    while (i < got.stdout.length && got.stdout[i] === want.stdout[i]) i++;
    expect({ at: i, len: got.stdout.length, got: got.stdout.subarray(Math.max(0, i - 40), i + 40).toString('latin1') })
      .toEqual({ at: i, len: want.stdout.length, got: want.stdout.subarray(Math.max(0, i - 40), i + 40).toString('latin1') });
  }
}

const big = text(1, 1_500_000, { longLines: true });
const bigNoEol = text(2, 700_000, { longLines: true, tail: false });
const small = text(3, 3000, { tail: false });
const nul = text(4, 900_000, { delim: '\0' });

describe('sed s///g on blocks of lines', () => {
  const root = zone({ 'big.txt': big, 'noeol.txt': bigNoEol, 'small.txt': small, 'nul.txt': nul, 'empty.txt': '' });
  it.each([
    ['s/a/b/g'], ['s/a/XY/g'], ['s/an/&&/g'], ['s/ana/-/g'], ['s/a/\\n/g'], ['s/,/\\t/g'],
    ['s/a.a/<&>/g'], ['s/[ab]n/N/g'], ['s/ba\\(na\\)/\\1/g'], ['s/A/b/gi'], ['s/\\xe9/e/g'], ['s/x,y/\\//g'],
  ])('sed %s', async (script) => {
    for (const f of ['big.txt', 'noeol.txt', 'small.txt']) await same(root, ['sed', script, f]);
  }, 60_000);
  it('several files, the first without a last newline, and an empty one', async () => {
    await same(root, ['sed', 's/a/b/g', 'noeol.txt', 'empty.txt', 'small.txt', 'big.txt']);
    await same(root, ['sed', 's/a.a/<&>/g', 'small.txt', 'noeol.txt']);
    await same(root, ['sed', '-s', 's/a/b/g', 'noeol.txt', 'small.txt']);
  }, 60_000);
  it('-z, stdin, a missing file', async () => {
    await same(root, ['sed', '-z', 's/a/b/g', 'nul.txt']);
    await same(root, ['sed', '-z', 's/a.a/b/g', 'nul.txt']);
    await same(root, ['sed', 's/a/b/g'], big);
    await same(root, ['sed', 's/a/b/g', 'small.txt', 'missing.txt', 'noeol.txt']);
  }, 60_000);
  it('-i edits the file as GNU does', async () => {
    const r2 = zone({ 'f.txt': bigNoEol });
    const g2 = zone({ 'f.txt': bigNoEol });
    const got = await runArgv(r2, ['sed', '-i', 's/a/bb/g', 'f.txt']);
    expect(got.exitCode).toBe(0);
    expect(gnu(g2, ['sed', '-i', 's/a/bb/g', 'f.txt']).status).toBe(0);
    expect(fs.readFileSync(path.join(r2, 'f.txt')).equals(fs.readFileSync(path.join(g2, 'f.txt')))).toBe(true);
  }, 60_000);
});

describe('paste, base64, sort and cut over several chunks', () => {
  const lines = (seed: number, n: number) => text(seed, n, { longLines: false });
  const root = zone({
    'a.txt': lines(5, 900_000), 'b.txt': text(6, 400_000, { tail: false }), 'big.txt': big, 'noeol.txt': bigNoEol,
    'nul.txt': nul, 'empty.txt': '',
  });
  it('paste of files of different lengths, long lines, no last newline, -d lists', async () => {
    await same(root, ['paste', 'a.txt', 'b.txt']);
    await same(root, ['paste', '-d,', 'b.txt', 'a.txt', 'big.txt']);
    await same(root, ['paste', '-d', ',:\\0', 'noeol.txt', 'empty.txt', 'a.txt', 'b.txt']);
    await same(root, ['paste', '-z', 'nul.txt', 'nul.txt']);
    await same(root, ['paste', '-', 'b.txt', '-'], lines(7, 600_000));
    await same(root, ['paste', '-s', '-d,', 'a.txt', 'noeol.txt']);
  }, 60_000);
  it('base64 at several wraps, and back', async () => {
    for (const w of ['0', '1', '5', '76', '100', '4096']) await same(root, ['base64', '-w', w, 'big.txt']);
    await same(root, ['base64', 'noeol.txt']);
    await same(root, ['base64', 'empty.txt']);
    await same(root, ['base64'], big.subarray(0, 1_000_001));
    await same(root, ['base64', '--wrap=76', 'missing.txt']);
    const enc = gnu(root, ['base64', 'big.txt']).stdout;
    await same(root, ['base64', '-d'], enc);
    await same(root, ['base32', 'noeol.txt']);
  }, 60_000);
  it('base64 -d and base32 / base32 -d of files of many chunks, a bad character late, -i', async () => {
    const enc64 = gnu(root, ['base64', 'big.txt']).stdout;
    const enc32 = gnu(root, ['base32', '-w', '61', 'big.txt']).stdout;
    fs.writeFileSync(path.join(root, 'e64.txt'), enc64);
    fs.writeFileSync(path.join(root, 'e32.txt'), enc32);
    const bad = (b: Buffer, at: number, c: string) => Buffer.concat([b.subarray(0, at), Buffer.from(c), b.subarray(at)]);
    fs.writeFileSync(path.join(root, 'b64.txt'), bad(enc64, 1_000_003, '*'));
    fs.writeFileSync(path.join(root, 'b32.txt'), bad(enc32, 900_001, 'a'));
    for (const w of ['0', '76', '61']) await same(root, ['base32', '-w', w, 'big.txt']);
    await same(root, ['base32', 'noeol.txt']);
    for (const name of ['e64.txt', 'b64.txt']) {
      await same(root, ['base64', '-d', name]);
      await same(root, ['base64', '-d', '-i', name]);
    }
    for (const name of ['e32.txt', 'b32.txt']) {
      await same(root, ['base32', '-d', name]);
      await same(root, ['base32', '-d', '-i', name]);
    }
  }, 60_000);
  it('sort of one file read whole, with and without a last newline', async () => {
    for (const f of ['big.txt', 'noeol.txt', 'a.txt', 'empty.txt']) await same(root, ['sort', f]);
    await same(root, ['sort', '-r', 'noeol.txt']);
    await same(root, ['sort', '-u', 'a.txt']);
    await same(root, ['sort', '-z', 'nul.txt']);
    await same(root, ['sort', 'noeol.txt', 'b.txt']);
    await same(root, ['sort', '.']);
    await same(root, ['sort', 'missing.txt']);
  }, 60_000);
  it('cut -f and -d', async () => {
    await same(root, ['cut', '-d', ' ', '-f', '2', 'big.txt']);
    await same(root, ['cut', '-d,', '-f', '1,3-', 'noeol.txt']);
    await same(root, ['cut', '-s', '-d,', '-f2', 'a.txt']);
    await same(root, ['cut', '-z', '-d', ' ', '-f', '1,2', 'nul.txt']);
    // The one-pass path (cutLines): several ranges, open ranges, --complement, a wider output
    // delimiter, -s, lines without the delimiter, lines longer than a piece or a chunk, stdin.
    await same(root, ['cut', '-d', ' ', '-f', '1,3,5-7,40-', 'big.txt']);
    await same(root, ['cut', '-d', 'a', '--complement', '-f', '2-3', 'big.txt']);
    await same(root, ['cut', '-d', ' ', '-f', '2-4', '--output-delimiter=<=>', 'noeol.txt']);
    await same(root, ['cut', '-s', '-d', '\t', '-f', '1,2', 'big.txt']);
    await same(root, ['cut', '-d', '\t', '-f', '2', 'big.txt']);
    await same(root, ['cut', '-s', '-d', ',', '-f', '3-', '--output-delimiter=', 'a.txt', '-', 'noeol.txt'], lines(8, 500_000));
    await same(root, ['cut', '-z', '-s', '-d', ',', '--complement', '-f', '1', 'nul.txt']);
  }, 60_000);
});

describe('sort of a big file on two threads (half of the lines on the helper thread)', () => {
  // Over 4 MiB: lines split by their first two bytes between the two threads.
  const mixed = Buffer.concat([text(9, 3_000_000, { longLines: true }), nul, text(10, 2_000_000, { tail: false })]);
  const skewed = Buffer.concat(Array.from({ length: 9 }, (_, i) => text(20 + i, 600_000).toString('latin1').replace(/^/gm, 'same prefix ')).map((t) => Buffer.from(t, 'latin1')));
  const root = zone({ 'mixed.txt': mixed, 'skewed.txt': skewed, 'nul.txt': Buffer.concat([nul, nul, nul, nul, nul, nul]) });
  afterAll(() => setHelper(true));
  it('prints what GNU prints, with the helper and without it', async () => {
    // The first big sort starts the helper: not up yet, both halves are done on this thread.
    const first = Helper.answered;
    await same(root, ['sort', 'skewed.txt']);
    const helper = Helper.get();
    for (let i = 0; i < 100 && helper && !helper.ready(); i++) await new Promise((r) => setTimeout(r, 20));
    const before = Helper.answered;
    await same(root, ['sort', 'mixed.txt']);
    await same(root, ['sort', 'skewed.txt']);
    await same(root, ['sort', '-z', 'nul.txt']);
    expect(Helper.answered - before).toBe(3);
    expect(before - first).toBeLessThanOrEqual(1);
    setHelper(false);
    await same(root, ['sort', 'mixed.txt']);
    expect(Helper.answered - before).toBe(3);
  }, 120_000);
});

/** Lines `key<sep>rest` in key order, keys shared by groups of 1-6 lines, some keys only on one side. */
function keyed(seed: number, bytes: number, sep: string): Buffer {
  let s = seed >>> 0;
  const rnd = (n: number) => { s = (Math.imul(s, 1103515245) + 12345) >>> 0; return (s >>> 8) % n; };
  const out: string[] = [];
  let n = 0;
  for (let k = 0; n < bytes; k++) {
    if (rnd(4) === 0) continue;
    const key = `k${String(k).padStart(7, '0')}`;
    for (let g = 1 + (rnd(3) === 0 ? rnd(6) : 0); g > 0; g--) {
      const line = `${key}${sep}${'x'.repeat(rnd(30))}${sep}${rnd(1000)}${rnd(9) === 0 ? '' : sep + 'tail'}`;
      out.push(line);
      n += line.length + 1;
    }
  }
  return Buffer.from(out.join('\n') + '\n', 'latin1');
}

describe('join over several chunks', () => {
  const j1 = keyed(11, 800_000, ',');
  const j2 = keyed(12, 900_000, ',');
  const unsorted = Buffer.concat([j1.subarray(400_000), j1.subarray(0, 400_000)]);
  const root = zone({ 'j1.csv': j1, 'j2.csv': j2, 'b1.txt': keyed(13, 600_000, ' '), 'b2.txt': keyed(14, 600_000, '  '),
    'noeol.csv': j2.subarray(0, j2.length - 1), 'unsorted.csv': unsorted, 'empty.txt': '' });
  it('groups across chunk boundaries, unpaired lines, -o, -e, blanks, stdin', async () => {
    await same(root, ['join', '-t,', 'j1.csv', 'j2.csv']);
    await same(root, ['join', '-t,', '-a1', '-a2', '-e', 'NONE', '-o', 'auto', 'j1.csv', 'noeol.csv']);
    await same(root, ['join', '-t,', '-v2', 'j1.csv', 'j2.csv']);
    await same(root, ['join', '-t,', '-o', '0,2.3,1.2', 'j1.csv', 'j2.csv']);
    await same(root, ['join', 'b1.txt', 'b2.txt']);
    await same(root, ['join', '-i', '-a1', 'b1.txt', 'b2.txt']);
    await same(root, ['join', '-t,', '-', 'j2.csv'], j1);
    await same(root, ['join', '-t,', 'j1.csv', 'empty.txt']);
  }, 60_000);
  it('unsorted input: the warning and exit status, and --check-order', async () => {
    await same(root, ['join', '-t,', 'unsorted.csv', 'j2.csv']);
    await same(root, ['join', '-t,', '--check-order', 'j1.csv', 'unsorted.csv']);
    await same(root, ['join', '-t,', '--nocheck-order', 'unsorted.csv', 'j2.csv']);
  }, 60_000);
});
