// Toolbox commands whose behaviour cannot be recorded from the real tools: date never sets the
// clock (GNU as root would: recording it changed the machine's time once), shuf without a
// random source.
import { afterAll, describe, expect, it } from 'vitest';
import * as fs from 'node:fs';
import { run, tempDir } from '../helpers.js';

const root = tempDir('nosh-toolbox-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('date refuses to set the clock', () => {
  it('-s STRING and an MMDDhhmm operand are refused with exit 1', async () => {
    for (const line of ["date -s '2024-01-01'", 'date 01010000', 'date 0101000024.30']) {
      const r = await run(root, line);
      expect(r.exitCode, line).toBe(1);
      expect(r.stdout.length).toBe(0);
      expect(r.stderr).toMatch(/^date: cannot set date: Operation not permitted/);
    }
  });
  it('an operand that is no date is an invalid date, as GNU says', async () => {
    const r = await run(root, 'date 0101');
    expect(r.stderr).toBe("date: invalid date '0101'\n");
  });
});

describe('shuf without --random-source', () => {
  it('prints a permutation of its input', async () => {
    const r = await run(root, 'shuf -i 1-50');
    expect(r.exitCode).toBe(0);
    expect(r.stdout.toString().trim().split('\n').map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });
  it('-r without -n stops at the output cap', async () => {
    const r = await run(root, 'shuf -r -e a b', { maxOutputBytes: 1000 });
    expect(r.truncated).toBe(true);
  });
});
