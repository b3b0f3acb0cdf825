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
}
interface Row {
  dialect: RegexDialect;
  ignoreCase: boolean;
  pattern: string;
  input: string[];
  gnu: Result;
  deviation?: Result & { reason: string };
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
    return { rc: 2, out: [], err: ['grep: ' + e.message] };
  }
  const out: string[] = [];
  let matched = false;
  row.input.forEach((line, i) => {
    re.lastIndex = 0;
    while (re.lastIndex <= line.length) {
      const m = re.exec(line);
      if (!m) break;
      matched = true;
      if (m[0] === '') {
        re.lastIndex = m.index + 1;
        continue;
      }
      out.push(`${i + 1}:${m[0]}`);
      re.lastIndex = m.index + m[0].length;
    }
  });
  return { rc: matched ? 0 : 1, out, err: warnings.map((w) => 'grep: ' + w) };
}

const label = (r: Row) =>
  `${r.dialect}${r.ignoreCase ? ' -i' : ''} ${JSON.stringify(r.pattern)} <- ${JSON.stringify(r.input)}`;

describe('GNU grep 3.8 dialect table', () => {
  it('has at least 150 rows, few deviations', () => {
    expect(table.rows.length).toBeGreaterThanOrEqual(150);
    expect(table.rows.filter((r) => r.deviation).length).toBeLessThanOrEqual(5);
  });

  for (const row of table.rows) {
    if (row.deviation) {
      it(`${label(row)} (known deviation: ${row.deviation.reason})`, () => {
        const { reason: _r, ...ours } = row.deviation!;
        const got = grepO(row);
        expect(got).toEqual(ours);
        expect(got).not.toEqual(row.gnu);
      });
    } else {
      it(label(row), () => {
        expect(grepO(row)).toEqual(row.gnu);
      });
    }
  }
});
