// awk behaviour the GNU fixtures cannot show: it streams (an endless input ends when the
// program exits, records cross read chunks), and its number output on values GNU's cases
// rarely reach.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run, runArgv, tempDir } from '../helpers.js';

const scratch = tempDir('nosh-awk-');
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
let n = 0;
function zone(files: Record<string, string> = {}): string {
  const root = path.join(scratch, `z${n++}`, 'root');
  fs.mkdirSync(root, { recursive: true });
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(root, name), content);
  return root;
}

describe('awk streams its input', () => {
  it('an endless input: exit after three records ends the pipeline', async () => {
    const out = await run(zone(), "yes | awk 'NR == 3 { exit } { print NR, $0 }'");
    expect(out.exitCode).toBe(0);
    expect(out.stdout.toString()).toBe('1 y\n2 y\n');
  }, 30_000);

  it('an endless input read by fields and a regex RS, until a condition', async () => {
    const out = await run(zone(), "yes 'a b;c' | awk -v RS='[;\\n]' '{ n += NF } NR == 100000 { print n; exit }'");
    expect(out.stdout.toString()).toBe('150000\n');
  }, 60_000);

  it('records and paragraphs that cross the 256 KB read chunks', async () => {
    let text = '';
    const want: string[] = [];
    for (let i = 0; text.length < 1_200_000; i++) {
      const para = `p${i} ` + 'w'.repeat((i * 7919) % 3000) + '\nsecond line\n';
      text += para + '\n'.repeat(1 + (i % 3));
      want.push(`${i + 1} p${i} ${(i * 7919) % 3000 ? 4 : 3}`);
    }
    const root = zone({ 'big.txt': text });
    const out = await run(root, `awk 'BEGIN { RS = "" } { print NR, $1, NF }' big.txt`);
    expect(out.exitCode).toBe(0);
    expect(out.stdout.toString()).toBe(want.join('\n') + '\n');
    // RS as a regex: the separators are the runs of newlines
    const re = await run(root, `awk 'BEGIN { RS = "\\n\\n+" } END { print NR }' big.txt`);
    expect(re.stdout.toString()).toBe(`${want.length}\n`);
    const lines = await run(root, `awk 'END { print NR }' big.txt`);
    expect(lines.stdout.toString()).toBe(`${text.split('\n').length - 1}\n`);
  }, 60_000);

  it('getline < file beside the main input, both streamed', async () => {
    const a = Array.from({ length: 50_000 }, (_, i) => `a${i}`).join('\n') + '\n';
    const b = Array.from({ length: 50_000 }, (_, i) => `b${i}`).join('\n') + '\n';
    const root = zone({ 'a.txt': a, 'b.txt': b });
    const out = await runArgv(root, ['awk', '{ getline x < "b.txt"; if (substr(x, 2) != substr($0, 2)) bad++ } END { print NR, bad + 0, x }', 'a.txt']);
    expect(out.stdout.toString()).toBe('50000 0 b49999\n');
  }, 60_000);
});

describe('awk number output', () => {
  it('integers print as integers, others through OFMT/CONVFMT', async () => {
    const out = await runArgv(zone(), ['awk', 'BEGIN { print 2^53, 2^63, 1e30, 0.1, 1/3, 100/3, -1e-300, 1e300*1e300, -(1e300*1e300); x = 0.1; y = x ""; CONVFMT = "%.2f"; z = 3.14159 ""; print y, z, 17 "" }']);
    expect(out.stdout.toString()).toBe('9007199254740992 9223372036854775808 1000000000000000019884624838656 0.1 0.333333 33.3333 -1e-300 +inf -inf\n0.1 3.14 17\n');
  });
});
