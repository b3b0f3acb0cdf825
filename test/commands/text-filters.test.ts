// tee, uniq, cut and tr behaviour the GNU fixtures cannot show: read-only zones, atomic
// writes, streaming of large inputs through pipes, and results against JS references.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTree, run, tempDir } from '../helpers.js';

const root = tempDir('nosh-filters-');
let big = Buffer.alloc(0);

beforeAll(() => {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < 20 * 1024 * 1024; i++) {
    const line = `${i % 97}:${'ab'.repeat(i % 50)}:${i % 3 === 0 ? 'x' : 'y'}\t${i}\n`;
    parts.push(line, line); // every line twice in a row: uniq halves it
    size += 2 * line.length;
  }
  big = Buffer.from(parts.join('') + 'last:no:newline');
  fs.writeFileSync(path.join(root, 'big.txt'), big);
}, 60_000);

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const zone = (tree: Record<string, unknown>) => {
  const r = tempDir('nosh-filters-z-');
  buildTree(r, tree);
  return r;
};

describe('tee', () => {
  it('is refused in a read-only zone, and nothing is written', async () => {
    const r = zone({});
    const out = await run(r, 'tee a', { stdin: 'x\n', policy: { readonly: true } });
    expect(out.error?.code).toBe('ZONE_READONLY');
    expect(fs.readdirSync(r)).toEqual([]);
  });
  it('copies a 20 MB pipe to stdout and to every file, leaving no temp file', async () => {
    const out = await run(root, 'cat big.txt | tee t1 t2 | wc -c');
    expect(out.stdout.toString()).toBe(`${big.length}\n`);
    expect(fs.readFileSync(path.join(root, 't1')).equals(big)).toBe(true);
    expect(fs.readFileSync(path.join(root, 't2')).equals(big)).toBe(true);
    expect(fs.readdirSync(root).sort()).toEqual(['big.txt', 't1', 't2']);
    fs.rmSync(path.join(root, 't1'));
    fs.rmSync(path.join(root, 't2'));
  }, 60_000);
  it('-a appends to the old content atomically; errors on one file do not stop the others', async () => {
    const r = zone({ old: 'a\n', d: null });
    const out = await run(r, 'tee -a old d new', { stdin: 'b\n' });
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toBe('tee: d: Is a directory\n');
    expect(out.stdout.toString()).toBe('b\n');
    expect(fs.readFileSync(path.join(r, 'old'), 'utf8')).toBe('a\nb\n');
    expect(fs.readFileSync(path.join(r, 'new'), 'utf8')).toBe('b\n');
    expect(fs.readdirSync(r).sort()).toEqual(['d', 'new', 'old']);
  });
  it('a reader that stops early (head) still leaves complete-so-far files, no temp', async () => {
    const r = zone({ 'big.txt': { base64: big.subarray(0, 4 * 1024 * 1024).toString('base64') } });
    const out = await run(r, 'cat big.txt | tee copy | head -n 1');
    expect(out.stdout.toString()).toBe('0::x\t0\n');
    const copy = fs.readFileSync(path.join(r, 'copy'));
    expect(big.subarray(0, copy.length).equals(copy)).toBe(true);
    expect(fs.readdirSync(r).sort()).toEqual(['big.txt', 'copy']);
  });
  it('-p and --output-error are not supported (usage error naming the flag)', async () => {
    const r = zone({});
    const out = await run(r, 'tee -p f', { stdin: 'x\n' });
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toContain("invalid option -- 'p'");
    expect(fs.existsSync(path.join(r, 'f'))).toBe(false);
  });
});

describe('uniq', () => {
  it('OUTPUT is refused in a read-only zone; plain uniq is not', async () => {
    const r = zone({ a: 'x\nx\n' });
    const refused = await run(r, 'uniq a out', { policy: { readonly: true } });
    expect(refused.error?.code).toBe('ZONE_READONLY');
    const ok = await run(r, 'uniq a -', { policy: { readonly: true } });
    expect(ok.stdout.toString()).toBe('x\n');
    const ok2 = await run(r, 'uniq -c a', { policy: { readonly: true } });
    expect(ok2.stdout.toString()).toBe('      2 x\n');
  });
  it('streams 20 MB through a pipe and matches a reference', async () => {
    const out = await run(root, 'cat big.txt | uniq -c | wc -l');
    const lines = big.toString('latin1').split('\n');
    let groups = 0;
    for (let i = 0; i < lines.length; i++) if (i === 0 || lines[i] !== lines[i - 1]) groups++;
    expect(out.stdout.toString()).toBe(`${groups}\n`);
    const d = await run(root, 'uniq -u big.txt');
    expect(d.stdout.toString()).toBe('last:no:newline\n');
  }, 60_000);
});

describe('lines longer than many chunks (records joined once they end)', () => {
  it('uniq and cut over a 1 MB line from a file and from a pipe', async () => {
    const line = 'ab'.repeat(500_000);
    const r = zone({ l: `${line}\n${line}\nshort\n${line}` });
    for (const input of ['l', '- < l']) {
      const src = input === 'l' ? 'l' : '';
      const pre = input === 'l' ? '' : 'cat l | ';
      const u = await run(r, `${pre}uniq -c ${src}`);
      expect(u.stdout.toString()).toBe(`      2 ${line}\n      1 short\n      1 ${line}\n`);
      const c = await run(r, `${pre}cut -c2-4 ${src}`);
      expect(c.stdout.toString()).toBe('bab\nbab\nhor\nbab\n');
    }
  }, 60_000);
});

describe('cut and tr over 20 MB', () => {
  it('cut -d: -f1,3 matches a reference, from a file and through a pipe', async () => {
    const ref = big.toString('latin1').split('\n').map((l) => {
      const f = l.split(':');
      return f.length === 1 ? l : [f[0], f[2]].filter((x) => x !== undefined).join(':');
    });
    const want = ref.join('\n') + '\n';
    for (const line of ['cut -d: -f1,3 big.txt', 'cat big.txt | cut -d: -f1,3']) {
      const out = await run(root, line, { maxOutputBytes: 64 * 1024 * 1024 });
      expect(out.stdout.toString('latin1') === want).toBe(true);
    }
  }, 60_000);
  it('cut -c keeps memory flat on a single long line', async () => {
    const r = zone({ long: 'z'.repeat(8 * 1024 * 1024) + '\n' });
    const out = await run(r, 'cut -c 2-4 long');
    expect(out.stdout.toString()).toBe('zzz\n');
  });
  it('tr -d / -s stream through a pipe', async () => {
    const out = await run(root, "cat big.txt | tr -d 'ab' | tr -s '\\n' | wc -c");
    const ref = big.toString('latin1').replace(/[ab]/g, '').replace(/\n+/g, '\n');
    expect(out.stdout.toString()).toBe(`${ref.length}\n`);
  }, 60_000);
  it('tr maps bytes >= 0x80 byte for byte (no UTF-8 assumption)', async () => {
    const r = zone({ b: { base64: Buffer.from([0xc3, 0xa9, 0x41, 0xff, 0x0a]).toString('base64') } });
    const out = await run(r, "cat b | tr '\\303\\377' 'XY'");
    expect([...out.stdout]).toEqual([0x58, 0xa9, 0x41, 0x59, 0x0a]);
  });
});
