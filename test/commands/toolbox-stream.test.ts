// dos2unix/unix2dos (in place and -n) and csplit stream: inputs of several read chunks with CRs and
// line ends on chunk boundaries give the real tools' bytes; memory use is shown by bench/soak-toolbox.mjs.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { executeTask } from '../../src/exec/index.js';
import { defaultPolicy } from '../../src/vfs/index.js';
import { setMemoryBudget } from '../../src/runtime/memory.js';
import { tempDir } from '../helpers.js';

setMemoryBudget(512);
const scratch = tempDir('nosh-stream-');
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
let n = 0;

async function run(root: string, argv: string[], stdin?: Buffer): Promise<{ out: Buffer; err: string; code: number }> {
  const res = await executeTask({
    root, policy: defaultPolicy(), cwd: '/', stages: [{ argv }], ...(stdin ? { stdin } : {}),
    limits: { maxOutputBytes: 1 << 24, maxResults: 1000, maxBufferBytes: 1 << 26 },
  });
  if (!res.ok) throw new Error(JSON.stringify(res.error));
  const r = res.result!;
  return { out: Buffer.from(r.stdout), err: Buffer.from(r.stderr).toString(), code: r.exitCode };
}

async function piped(root: string, stages: string[][], signal?: AbortSignal, stdin?: Buffer): Promise<{ out: Buffer; code: number }> {
  const res = await executeTask({
    root, policy: defaultPolicy(), cwd: '/', stages: stages.map((argv) => ({ argv })), ...(stdin ? { stdin } : {}),
    limits: { maxOutputBytes: 1 << 26, maxResults: 1000, maxBufferBytes: 1 << 26 },
  }, signal);
  if (!res.ok) throw new Error(JSON.stringify(res.error));
  return { out: Buffer.from(res.result!.stdout), code: res.result!.exitCode };
}

/** Pseudo-random bytes from an alphabet (seeded). */
function bytes(len: number, alphabet: number[], seed: number): Buffer {
  const b = Buffer.alloc(len);
  let x = seed;
  for (let i = 0; i < len; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    b[i] = alphabet[(x >>> 16) % alphabet.length]!;
  }
  return b;
}

describe('dos2unix / unix2dos stream', () => {
  for (const tool of ['dos2unix', 'unix2dos']) {
    it(`${tool} -n and in place on 1 MB of CR/LF runs equal the real tool`, async () => {
      const root = path.join(scratch, `d${n++}`);
      fs.mkdirSync(root);
      const inputs = [
        Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes(1 << 20, [0x0d, 0x0a, 0x61, 0x0d, 0x62], 7)]),
        bytes((1 << 20) + 3, [0x0d, 0x0a, 0x0d, 0x0d, 0x61], 11),
        Buffer.from('\r'), Buffer.from('\n'), Buffer.from('\r\r\n\r\r\r\n\r\r\r\r\na\r\n\n\r'), Buffer.from(''), Buffer.from('\xef\xbb'), Buffer.from('a\r\n'),
      ];
      for (const [i, data] of inputs.entries()) {
        for (const opts of [[], ['-m'], ['-r'], ['-b']]) {
          fs.writeFileSync(path.join(root, 'in'), data);
          fs.writeFileSync(path.join(root, 'inplace'), data);
          const gnuOut = path.join(root, 'gnu');
          execFileSync(tool, ['-q', ...opts, '-n', path.join(root, 'in'), gnuOut]);
          const want = fs.readFileSync(gnuOut);
          const r = await run(root, [tool, '-q', ...opts, '-n', 'in', 'out']);
          expect(r.code).toBe(0);
          expect(fs.readFileSync(path.join(root, 'out')).equals(want), `${tool} ${opts} input ${i}`).toBe(true);
          await run(root, [tool, '-q', ...opts, 'inplace']);
          expect(fs.readFileSync(path.join(root, 'inplace')).equals(want), `${tool} ${opts} in place, input ${i}`).toBe(true);
          const s = await run(root, [tool, ...opts], data);
          expect(s.out.equals(want), `${tool} ${opts} stdin, input ${i}`).toBe(true);
        }
      }
    });
  }
});

describe('csplit stream', () => {
  it('pieces and counts of a 1.5 MB input over many read chunks equal GNU csplit (file and stdin)', async () => {
    const root = path.join(scratch, `c${n++}`);
    fs.mkdirSync(root);
    const lines: string[] = [];
    for (let i = 0; i < 60000; i++) lines.push(i % 997 === 0 ? `x marker ${i}` : i % 1231 === 0 ? `y other ${i}` : `line ${i} ${'z'.repeat(i % 37)}`);
    fs.writeFileSync(path.join(root, 'in.txt'), lines.join('\n') + '\nno newline at end');
    const cases = [['/^x/', '{*}'], ['/^x/-3', '{*}'], ['/^y/-3', '{*}'], ['/^x/+2', '{20}'], ['%^y%+2', '/^x/', '{3}'], ['1000', '{5}'], ['-z', '/^x/', '{*}'],
      ['--suppress-matched', '/^y/', '{*}'], ['%^y%-2', '/^x/-1', '{5}'], ['/^x/-700', '{*}']];
    for (const args of cases) {
      for (const [i, stdin] of [false, true].entries()) {
        const gnuDir = path.join(root, `gnu${i}`);
        fs.rmSync(gnuDir, { recursive: true, force: true });
        fs.mkdirSync(gnuDir);
        const src = path.join(root, 'in.txt');
        const opts = args.filter((a) => a === '-z' || a === '--suppress-matched');
        const pats = args.filter((a) => a !== '-z' && a !== '--suppress-matched');
        const g = spawnSync('csplit', [...opts, '-f', path.join(gnuDir, 'xx'), stdin ? '-' : src, ...pats], { input: stdin ? fs.readFileSync(src) : undefined, env: { ...process.env, LC_ALL: 'C' } });
        const ours = path.join(root, `ours${i}`);
        fs.rmSync(ours, { recursive: true, force: true });
        fs.mkdirSync(ours);
        const r = await run(root, ['csplit', ...opts, '-f', `ours${i}/xx`, stdin ? '-' : 'in.txt', ...pats], stdin ? fs.readFileSync(src) : undefined);
        expect([r.code, r.err, r.out.toString()], `${args.join(' ')} ${stdin ? 'stdin' : 'file'}`).toEqual([g.status, g.stderr.toString(), g.stdout.toString()]);
        const names = fs.readdirSync(gnuDir).sort();
        expect(fs.readdirSync(ours).sort()).toEqual(names);
        for (const f of names) expect(fs.readFileSync(path.join(ours, f)).equals(fs.readFileSync(path.join(gnuDir, f))), `${args.join(' ')} ${f}`).toBe(true);
      }
    }
  }, 300_000);
});

describe('fmt: one paragraph over many read chunks', () => {
  it('a 3 MB one-paragraph input is formatted in pieces exactly as GNU fmt does', async () => {
    const root = path.join(scratch, `f${n++}`);
    fs.mkdirSync(root);
    const lines: string[] = [];
    for (let i = 0; i < 100000; i++) lines.push(`k${String(i).padStart(10, '0')} ${i * 7919 % 100003} word\tword ${i % 13 === 0 ? 'end.' : 'w'}`);
    fs.writeFileSync(path.join(root, 'in.txt'), lines.join('\n') + '\n');
    for (const opts of [[], ['-w', '40', '-u'], ['-s'], ['-t', '-w', '100']]) {
      const want = execFileSync('fmt', [...opts, path.join(root, 'in.txt')], { env: { ...process.env, LC_ALL: 'C' }, maxBuffer: 1 << 26 });
      const r = await run(root, ['fmt', ...opts, 'in.txt']);
      expect(r.code).toBe(0);
      expect(r.out.length).toBe(want.length);
      expect(r.out.equals(want), `fmt ${opts.join(' ')}`).toBe(true);
    }
  }, 300_000);
});

describe('fmt: standard input streamed', () => {

  it('paragraphs, long lines and a last line without newline, through a pipe of many chunks, as GNU fmt', async () => {
    const root = path.join(scratch, `s${n++}`);
    fs.mkdirSync(root);
    const lines: string[] = [];
    let x = 5;
    const rnd = (k: number) => { x = (x * 1103515245 + 12345) >>> 0; return (x >>> 16) % k; };
    for (let i = 0; i < 40000; i++) {
      const r = rnd(40);
      if (r === 0) lines.push('');
      else if (r === 1) lines.push(`${' '.repeat(rnd(6))}> quoted ${i} text.`);
      else if (r === 2) lines.push(`\tindented ${i}`);
      else if (i % 5000 === 17) lines.push(`long ${'word '.repeat(20000 + rnd(40000))}`); // lines longer than a read chunk
      else lines.push(`${i % 7 === 0 ? '  ' : ''}line ${i} ${'w '.repeat(rnd(12))}end${i % 5 === 0 ? '.' : ''}`);
    }
    const data = Buffer.from(lines.join('\n') + '\nno newline at the end');
    expect(data.length).toBeGreaterThan(1 << 20);
    fs.writeFileSync(path.join(root, 'in.txt'), data);
    for (const opts of [[], ['-w', '40', '-u'], ['-s'], ['-w', '100', '-g', '90'], ['-p', '>'], ['-p', '  > ', '-w', '30']]) {
      const want = execFileSync('fmt', opts, { input: data, env: { ...process.env, LC_ALL: 'C' }, maxBuffer: 1 << 26 });
      const r = await piped(root, [['cat', 'in.txt'], ['fmt', ...opts]]);
      expect(r.code).toBe(0);
      expect(r.out.length, `cat | fmt ${opts.join(' ')}`).toBe(want.length);
      expect(r.out.equals(want), `cat | fmt ${opts.join(' ')}`).toBe(true);
      const s = await piped(root, [['fmt', ...opts]], undefined, data);
      expect(s.out.equals(want), `fmt ${opts.join(' ')} < data`).toBe(true);
    }
  }, 300_000);

  it('an endless input is formatted as it comes (fmt | head ends the line; reading it whole never would)', async () => {
    const root = path.join(scratch, `s${n++}`);
    fs.mkdirSync(root);
    const want = execFileSync('sh', ['-c', "yes 'a b c.' | fmt -w 20 | head -n 3"], { env: { ...process.env, LC_ALL: 'C' } });
    const r = await piped(root, [['yes', 'a b c.'], ['fmt', '-w', '20'], ['head', '-n', '3']], AbortSignal.timeout(60_000));
    expect(r.out.toString()).toBe(want.toString());
  }, 120_000);
});

describe('numfmt of standard input', () => {
  it('many chunks of lines, fields converted and passed through, give the real numfmt\'s bytes and exit', async () => {
    const root = path.join(scratch, `nf${n++}`);
    fs.mkdirSync(root);
    const lines: string[] = [];
    for (let k = 0; k < 60000; k++) lines.push(`k${String(k).padStart(10, '0')} ${(k * 7919) % 1000003} ${k % 13 === 0 ? '  ' : ''}${k * 37}.${k % 10}\tx ${k * 1234567}`);
    const good = Buffer.from(lines.join('\n') + '\n');
    const bad = Buffer.concat([good, Buffer.from('k1 12x 3\nk2 5 6\n'), good.subarray(0, 300000)]);
    expect(good.length).toBeGreaterThan(1 << 20);
    for (const [data, opts] of [
      [good, ['--field=2', '--to=si']], [good, ['--field=2-3', '--to=iec', '--round=nearest']],
      [good, ['--field=5', '--to=iec-i', '--suffix=B', '--padding=12']], [good, ['--header=3', '--field=2', '--to=si']],
      [bad, ['--field=2', '--to=si']], [bad, ['--field=2', '--to=si', '--invalid=warn']], [bad, ['--field=2', '--to=si', '--invalid=ignore']],
    ] as [Buffer, string[]][]) {
      const want = spawnSync('numfmt', opts, { input: data, env: { ...process.env, LC_ALL: 'C' }, maxBuffer: 1 << 26 });
      const r = await piped(root, [['numfmt', ...opts]], undefined, data);
      expect(r.code, `numfmt ${opts.join(' ')}`).toBe(want.status);
      expect(r.out.equals(want.stdout), `numfmt ${opts.join(' ')}`).toBe(true);
    }
  }, 300_000);
});
