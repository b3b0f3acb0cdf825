/**
 * Replays test/regex/fixtures/table.json (recorded from the real GNU grep 3.8 by
 * test/regex/record.py) against src/regex, emulating `grep -o -n`.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileRegex, RegexSyntaxError, translateRegex, type RegexDialect } from '../../src/regex/index.js';

interface Result {
  rc: number;
  out: string[];
  err: string[];
  /** `grep -c`: number of selected lines (null on a syntax error) */
  count: number | null;
}
interface Row {
  dialect: RegexDialect;
  ignoreCase: boolean;
  pattern: string;
  input: string[];
  gnu: Result;
  /** fields where we knowingly differ from GNU, and why */
  deviation?: Partial<Result> & { reason: string };
}

const table = JSON.parse(readFileSync(new URL('./fixtures/table.json', import.meta.url), 'utf8')) as {
  rows: Row[];
};

/** `grep -o -n`: successive non-empty matches per line; empty matches select the line but print nothing. */
export function grepO(row: Pick<Row, 'dialect' | 'ignoreCase' | 'pattern' | 'input'>): Result {
  const opts = { dialect: row.dialect, ignoreCase: row.ignoreCase };
  let re: RegExp;
  let warnings: string[];
  try {
    warnings = translateRegex(row.pattern, opts).warnings;
    re = compileRegex(row.pattern, opts, 'g');
  } catch (e) {
    if (!(e instanceof RegexSyntaxError)) throw e;
    return { rc: 2, out: [], err: ['grep: ' + e.message], count: null };
  }
  const out: string[] = [];
  let count = 0;
  row.input.forEach((line, i) => {
    re.lastIndex = 0;
    let selected = false;
    while (re.lastIndex <= line.length) {
      const m = re.exec(line);
      if (!m) break;
      if (!selected) count++;
      selected = true;
      if (m[0] === '') {
        re.lastIndex = m.index + 1;
        continue;
      }
      out.push(`${i + 1}:${m[0]}`);
      re.lastIndex = m.index + m[0].length;
    }
  });
  return { rc: count > 0 ? 0 : 1, out, err: warnings.map((w) => 'grep: ' + w), count };
}

const label = (r: Row) =>
  `${r.dialect}${r.ignoreCase ? ' -i' : ''} ${JSON.stringify(r.pattern)} <- ${JSON.stringify(r.input)}`;

describe('GNU grep 3.8 dialect table', () => {
  it('has at least 150 rows, few deviations', () => {
    expect(table.rows.length).toBeGreaterThanOrEqual(150);
    expect(table.rows.filter((r) => r.deviation).length).toBeLessThanOrEqual(8);
  });

  for (const row of table.rows) {
    if (row.deviation) {
      it(`${label(row)} (known deviation: ${row.deviation.reason})`, () => {
        const { reason: _r, ...differs } = row.deviation!;
        const got = grepO(row);
        expect(got).toEqual({ ...row.gnu, ...differs });
        for (const k of Object.keys(differs) as Array<keyof Result>) expect(got[k]).not.toEqual(row.gnu[k]);
      });
    } else {
      it(label(row), () => {
        expect(grepO(row)).toEqual(row.gnu);
      });
    }
  }
});
