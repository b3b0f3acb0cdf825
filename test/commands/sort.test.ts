// sort behaviour the GNU fixtures cannot show: speed and correctness over a 10 MB input,
// -o through the Vfs (same file as an input, read-only zones, no temp files left), and
// the flags nosh deliberately leaves out.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTree, run, tempDir } from '../helpers.js';

const root = tempDir('nosh-sort-');
let lines: Buffer[] = [];

beforeAll(() => {
  // ~10 MB of pseudo-random lines: words, numbers, shared prefixes, some bytes >= 0x80.
  let seed = 12345;
  const rnd = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
    return seed % n;
  };
  const parts: Buffer[] = [];
  let size = 0;
  while (size < 10 * 1024 * 1024) {
    const len = rnd(60);
    const b = Buffer.alloc(len + 1);
    const prefix = rnd(4) === 0 ? 8 : 0; // long common prefixes defeat the prefix shortcut
    for (let i = 0; i < len; i++) b[i] = i < prefix ? 0x61 : 0x20 + rnd(rnd(10) === 0 ? 224 : 95);
    for (let i = 0; i < len; i++) if (b[i] === 0x0a) b[i] = 0x2e;
    b[len] = 0x0a;
    parts.push(b);
    size += b.length;
  }
  lines = parts;
  fs.writeFileSync(path.join(root, 'big.txt'), Buffer.concat(parts));
  const nums = [];
  for (let i = 0; i < 200_000; i++) nums.push(`${rnd(1000)} ${rnd(2000000) - 1000000}\n`);
  fs.writeFileSync(path.join(root, 'nums.txt'), nums.join(''));
}, 60_000);

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('sort over a 10 MB file', () => {
  // Its speed is measured in bench/ (bigfile/sort), not asserted here.
  it('gives byte order (C locale)', async () => {
    const out = await run(root, 'sort big.txt', { maxOutputBytes: 64 * 1024 * 1024 });
    expect(out.exitCode).toBe(0);
    const want = Buffer.concat([...lines].sort(Buffer.compare));
    expect(out.stdout.equals(want)).toBe(true);
  }, 60_000);

  it('sort -r -u matches a reference', async () => {
    const out = await run(root, 'sort -r -u big.txt', { maxOutputBytes: 64 * 1024 * 1024 });
    const uniq: Buffer[] = [];
    for (const l of [...lines].sort(Buffer.compare).reverse()) if (!uniq.length || !uniq[uniq.length - 1]!.equals(l)) uniq.push(l);
    expect(out.stdout.equals(Buffer.concat(uniq))).toBe(true);
  }, 60_000);

  it('sort -k2,2n -k1,1n on 200k lines matches a reference', async () => {
    const out = await run(root, 'sort -k2,2n -k1,1n nums.txt', { maxOutputBytes: 64 * 1024 * 1024 });
    const text = fs.readFileSync(path.join(root, 'nums.txt'), 'latin1').split('\n').slice(0, -1);
    const ref = text.map((l) => l.split(' ').map(Number)).map((p, i) => ({ p, l: text[i]! }));
    ref.sort((a, b) => a.p[1]! - b.p[1]! || a.p[0]! - b.p[0]! || (a.l < b.l ? -1 : a.l > b.l ? 1 : 0));
    expect(out.stdout.toString('latin1')).toBe(ref.map((r) => r.l + '\n').join(''));
  }, 60_000);
});

/** The number strnumcmp reads: blanks, '-', digits, '.', digits; as [sign, integer digits, fraction digits], normalised. */
function numberOf(line: string): [number, string, string] {
  const m = /^[ \t]*(-?)([0-9]*)(?:\.([0-9]*))?/.exec(line)!;
  const int = m[2]!.replace(/^0+/, '');
  const frac = (m[3] ?? '').replace(/0+$/, '');
  return [int === '' && frac === '' ? 0 : m[1] === '-' ? -1 : 1, int, frac];
}

/** Exact numeric order of two lines (decimal strings, no doubles), as GNU sort -n. */
function numericOrder(a: string, b: string): number {
  const [sa, ia, fa] = numberOf(a);
  const [sb, ib, fb] = numberOf(b);
  if (sa !== sb) return sa - sb;
  const mag = ia.length !== ib.length ? ia.length - ib.length : ia < ib ? -1 : ia > ib ? 1 : fa < fb ? -1 : fa > fb ? 1 : 0;
  return sa < 0 ? -mag : mag;
}

describe('sort -n (numbers compared as doubles first, exactly when those are equal)', () => {
  const rnd = (() => {
    let seed = 99;
    return (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) % n;
  })();
  const digits = (n: number) => Array.from({ length: n }, () => String(rnd(10))).join('');
  const lines = Array.from({ length: 20_000 }, () => {
    const int = rnd(20) === 0 ? '' : '0'.repeat(rnd(3)) + digits([1, 1, 2, 3, 6, 16, 17, 30, 400][rnd(9)]!);
    const frac = rnd(3) === 0 ? '.' + digits([0, 1, 2, 7, 20][rnd(5)]!) : '';
    return [' ', '', '', '\t'][rnd(4)]! + ['', '', '-'][rnd(3)]! + int + frac + ['', ' x', 'abc', '.5', '-3', 'e5', ' 12'][rnd(7)]!;
  });
  const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const file = lines.join('\n') + '\n';

  it('-n and -rn give the exact order, ties broken by the whole line', async () => {
    const r = tempDir('nosh-sort-n-');
    buildTree(r, { 'n.txt': file });
    const n = await run(r, 'sort -n n.txt', { maxOutputBytes: 5_000_000 });
    const want = [...lines].sort((a, b) => numericOrder(a, b) || byteOrder(a, b));
    expect(n.stdout.toString('latin1')).toBe(want.map((l) => l + '\n').join(''));
    const rn = await run(r, 'sort -rn n.txt', { maxOutputBytes: 5_000_000 });
    expect(rn.stdout.toString('latin1')).toBe(want.reverse().map((l) => l + '\n').join(''));
  });

  it('-k2,2n on a second field', async () => {
    const r = tempDir('nosh-sort-n-');
    const keyed = lines.map((l, i) => `${i % 7}\t${l.replace(/\t/g, ' ')}`);
    buildTree(r, { 'k.txt': keyed.join('\n') + '\n' });
    const out = await run(r, "sort -t '\t' -k2,2n k.txt", { maxOutputBytes: 5_000_000 });
    const key = (l: string) => l.slice(l.indexOf('\t') + 1);
    const want = [...keyed].sort((a, b) => numericOrder(key(a), key(b)) || byteOrder(a, b));
    expect(out.stdout.toString('latin1')).toBe(want.map((l) => l + '\n').join(''));
  });
});

describe('sort -k on a text key (first 6 bytes compared as a double first)', () => {
  it('-k2,2 and -k2,2r give byte order of the field, ties broken by the whole line', async () => {
    const rnd = (() => {
      let seed = 7;
      return (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) % n;
    })();
    const words = ['', 'a', 'ab', 'abcdef', 'abcdefg', 'abcdefh', 'abcdef\x01', 'abcde', 'b', 'B', '\xff', 'z z'];
    const lines = Array.from({ length: 20_000 }, () => `${rnd(50)},${words[rnd(words.length)]}${['', '1', '12'][rnd(3)]},${rnd(9)}`);
    const r = tempDir('nosh-sort-k-');
    fs.writeFileSync(path.join(r, 'k.txt'), Buffer.from(lines.join('\n') + '\n', 'latin1'));
    const field = (l: string) => l.split(',')[1]!;
    const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    const want = [...lines].sort((a, b) => byteOrder(field(a), field(b)) || byteOrder(a, b));
    const out = await run(r, 'sort -t, -k2,2 k.txt', { maxOutputBytes: 5_000_000 });
    expect(out.stdout.toString('latin1')).toBe(want.map((l) => l + '\n').join(''));
    const rev = await run(r, 'sort -t, -k2,2r k.txt', { maxOutputBytes: 5_000_000 });
    const wantRev = [...lines].sort((a, b) => byteOrder(field(b), field(a)) || byteOrder(a, b));
    expect(rev.stdout.toString('latin1')).toBe(wantRev.map((l) => l + '\n').join(''));
  });
});

describe('sort -o', () => {
  const zone = (tree: Record<string, unknown>) => {
    const r = tempDir('nosh-sort-o-');
    buildTree(r, tree);
    return r;
  };
  it('may name one of its inputs, and leaves no temp file', async () => {
    const r = zone({ 'a.txt': 'c\nb\na\n' });
    const out = await run(r, 'sort -o a.txt a.txt');
    expect(out.exitCode).toBe(0);
    expect(fs.readFileSync(path.join(r, 'a.txt'), 'utf8')).toBe('a\nb\nc\n');
    expect(fs.readdirSync(r)).toEqual(['a.txt']);
  });
  it('is refused in a read-only zone; plain sort is not', async () => {
    const r = zone({ 'a.txt': 'b\na\n' });
    const refused = await run(r, 'sort -o b.txt a.txt', { policy: { readonly: true } });
    expect(refused.error?.code).toBe('ZONE_READONLY');
    const refused2 = await run(r, 'sort --output=b.txt a.txt', { policy: { readonly: true } });
    expect(refused2.error?.code).toBe('ZONE_READONLY');
    const ok = await run(r, 'sort -r a.txt', { policy: { readonly: true } });
    expect(ok.stdout.toString()).toBe('b\na\n');
    expect(fs.existsSync(path.join(r, 'b.txt'))).toBe(false);
  });
  it('a failed read leaves the output untouched', async () => {
    const r = zone({ 'a.txt': 'b\na\n', out: 'old\n' });
    const res = await run(r, 'sort -o out a.txt missing');
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toBe("sort: cannot read: missing: No such file or directory\n");
    expect(fs.readFileSync(path.join(r, 'out'), 'utf8')).toBe('old\n');
  });
});

describe('sort options GNU accepts that the fixtures cannot pin down', () => {
  it('--batch-size: the most is 1021 (the open-file limit GNU sees with the usual 1024, less 3)', async () => {
    const r = tempDir('nosh-sort-x-');
    const ok = await run(r, 'sort --batch-size=1021', { stdin: 'b\na\n' });
    expect([ok.exitCode, ok.stdout.toString()]).toEqual([0, 'a\nb\n']);
    const big = await run(r, 'sort --batch-size=1022', { stdin: 'b\na\n' });
    expect(big.exitCode).toBe(2);
    expect(big.stderr).toBe("sort: --batch-size argument '1022' too large\nsort: maximum --batch-size argument with current rlimit is 1021\n");
  });
  it('--parallel with a huge count is accepted (GNU may run out of memory there; nosh never uses it)', async () => {
    const r = tempDir('nosh-sort-x-');
    const out = await run(r, 'sort --parallel=99999999999999999999 -S 50%', { stdin: 'b\na\n' });
    expect([out.exitCode, out.stdout.toString()]).toEqual([0, 'a\nb\n']);
  });
  it('-R without --random-source: equal keys together, a new order each run', async () => {
    const r = tempDir('nosh-sort-x-');
    const input = Array.from({ length: 300 }, (_, i) => `k${i % 60}\n`).join('');
    const a = (await run(r, 'sort -R', { stdin: input })).stdout.toString().split('\n').slice(0, -1);
    const b = (await run(r, 'sort -R', { stdin: input })).stdout.toString().split('\n').slice(0, -1);
    expect([...a].sort()).toEqual(input.split('\n').slice(0, -1).sort());
    for (let i = 0; i < a.length; i += 5) expect(new Set(a.slice(i, i + 5)).size, a.slice(i, i + 5).join()).toBe(1);
    expect(a).not.toEqual(b);
  });
  it('-R on the 10 MB file is a permutation of it', async () => {
    expect((await run(root, 'sort -R --random-source=nums.txt -o rand.txt big.txt')).exitCode).toBe(0);
    expect((await run(root, 'sort -o s1.txt rand.txt')).exitCode).toBe(0);
    expect((await run(root, 'sort -o s2.txt big.txt')).exitCode).toBe(0);
    const read = (f: string) => fs.readFileSync(path.join(root, f));
    expect(read('s1.txt').equals(read('s2.txt'))).toBe(true);
    expect(read('rand.txt').equals(read('s2.txt'))).toBe(false);
    for (const f of ['rand.txt', 's1.txt', 's2.txt']) fs.rmSync(path.join(root, f));
  }, 120_000);
  it('--random-source is read through the Vfs: a file outside the zone is refused without a host path', async () => {
    const r = tempDir('nosh-sort-x-');
    const out = await run(r, 'sort -R --random-source=../../etc/hostname', { stdin: 'b\na\n' });
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toMatch(/^sort: open failed: /);
    expect(out.stderr).not.toContain(r);
  });
  it('an obsolete key before -o still makes sort a writer (refused in a read-only zone)', async () => {
    const r = tempDir('nosh-sort-x-');
    fs.writeFileSync(path.join(r, 'a.txt'), 'x 2\ny 1\n');
    const refused = await run(r, 'sort +1 -2 -o b.txt a.txt', { policy: { readonly: true } });
    expect(refused.error?.code).toBe('ZONE_READONLY');
    const ok = await run(r, 'sort +1 -2 -o b.txt a.txt');
    expect(ok.exitCode).toBe(0);
    expect(fs.readFileSync(path.join(r, 'b.txt'), 'utf8')).toBe('y 1\nx 2\n');
  });
});
