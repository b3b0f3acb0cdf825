// awk's byte-level record reader (a one-character RS): records, fields and numbers are read
// from the input's bytes and decoded only when the program reads them. These cases check it
// gives what gawk 5.2 gives (expected outputs recorded from gawk under LC_ALL=C) where the
// fast path and the text path meet: a record held while getline reads on past the reader's
// buffers, RS changed between records, numbers converted straight from bytes, print of a
// field or $0 copied as bytes between text writes.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runArgv, tempDir } from '../helpers.js';

const scratch = tempDir('nosh-awkb-');
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
let n = 0;
function zone(files: Record<string, string | Buffer> = {}): string {
  const root = path.join(scratch, `z${n++}`, 'root');
  fs.mkdirSync(root, { recursive: true });
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(root, name), content);
  return root;
}

describe('awk byte records', () => {
  it('$0 stays the record while getline var reads megabytes past it', async () => {
    const lines = Array.from({ length: 200_000 }, (_, i) => `line ${i} ${'x'.repeat(i % 37)}`);
    const root = zone({ 'f.txt': 'first record here\n' + lines.join('\n') + '\n' });
    const out = await runArgv(root, ['awk', 'NR == 1 { while ((getline x) > 0) { k++; last = x } print $0; print $2, NF, k; print last }', 'f.txt']);
    expect(out.exitCode).toBe(0);
    expect(out.stdout.toString()).toBe(`first record here\nrecord 3 200000\n${lines[199_999]}\n`);
  }, 60_000);

  it('records longer than the read buffers, and the last one without newline, in END', async () => {
    const long = 'a '.repeat(700_000) + 'end';
    const root = zone({ 'f.txt': 'x 1\n' + long + '\ny 2\n' + 'b '.repeat(600_000) + 'tail' });
    const out = await runArgv(root, ['awk', '{ s += $2 == "" ? 0 : 1; n = length($0) } END { print NR, s, n, $NF, NF, length($0) }', 'f.txt']);
    expect(out.stdout.toString()).toBe('4 4 1200004 tail 600001 1200004\n');
  }, 60_000);

  it('RS changed between records: bytes, then text, then bytes again', async () => {
    const root = zone({ 'rs.txt': 'a\nb\nc;d;e\nf\n' });
    const out = await runArgv(root, ['awk', 'NR==2{RS=";"} NR==4{RS="\\n"} {print NR": "$0"|"RT"|"$1}', 'rs.txt']);
    expect(out.stdout.toString()).toBe('1: a|\n|a\n2: b|\n|b\n3: c|;|c\n4: d|;|d\n5: e|\n|e\n6: f|\n|f\n');
  });

  it('numbers converted from the bytes of fields as strtod does', async () => {
    const nums = [' 12', '-0', '1e3', '0x1A', '.5', '5.', '+inf', '12abc', '00012.500', '123456789012345678', '0.1',
      '1.7976931348623157e308', '\t\v7 ', '-.', '+', '.', '0.000000000000000000000000123', '9007199254740993', '999999999999999', '-12.25e'];
    const root = zone({ 'n.csv': nums.map((v) => `${v},x\n`).join('') });
    const out = await runArgv(root, ['awk', '-F,', '{ x = -$1; printf "%s %.17g %d %.17g|", x, $1 * 1, $1, $1+0 }', 'n.csv']);
    const big = '179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368';
    expect(out.stdout.toString()).toBe(
      '-12 12 12 12|0 -0 0 0|-1000 1000 1000 1000|0 0 0 0|-0.5 0.5 0 0.5|-5 5 5 5|-inf +inf +inf +inf|-12 12 12 12|' +
      '-12.5 12.5 12 12.5|-123456789012345680 1.2345678901234568e+17 123456789012345680 1.2345678901234568e+17|' +
      `-0.1 0.10000000000000001 0 0.10000000000000001|-${big} 1.7976931348623157e+308 ${big} 1.7976931348623157e+308|` +
      '-7 7 7 7|0 0 0 0|0 0 0 0|0 0 0 0|-1.23e-25 1.23e-25 0 1.23e-25|-9007199254740992 9007199254740992 9007199254740992 9007199254740992|' +
      '-999999999999999 999999999999999 999999999999999 999999999999999|12.25 -12.25 -12 -12.25|');
  });

  it('print of a field or $0 as bytes keeps its order with printf and text', async () => {
    const root = zone({ 't.tsv': 'id\tname\tv\n1\ta b\t2.5\n2\t\t3\n', 'w.txt': '  x  y\tz  \n\t\n q\n', 'p.txt': 'a|b|c\n|x|\n', 'l.bin': Buffer.from('caf\xe9 \xff\x80 z\n', 'latin1') });
    const t = await runArgv(root, ['awk', '-F\\t', '{ printf "[%s]", $2; print $1; s += $3 } END { print s, NF, $0 }', 't.tsv']);
    expect(t.stdout.toString()).toBe('[name]id\n[a b]1\n[]2\n5.5 3 2\t\t3\n');
    const w = await runArgv(root, ['awk', '{ print $1; printf "%d<%s>", NF, $2; print }', 'w.txt']);
    expect(w.stdout.toString()).toBe('x\n3<y>  x  y\tz  \n\n0<>\t\nq\n1<> q\n');
    const p = await runArgv(root, ['awk', '-F|', '{ print $2; n += $3 } END { print n, $0, NF }', 'p.txt']);
    expect(p.stdout.toString()).toBe('b\nx\n0 |x| 3\n');
    const l = await runArgv(root, ['awk', '{ print $2; print; print length($1) }', 'l.bin']);
    expect(l.stdout).toEqual(Buffer.from('\xff\x80\ncaf\xe9 \xff\x80 z\n4\n', 'latin1'));
  });
});
