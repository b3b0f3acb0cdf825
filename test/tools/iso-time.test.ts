import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/tools/common.js';

describe('isoTime', () => {
  it('equals Date#toISOString, within a second and across seconds', () => {
    let seed = 7;
    const rand = () => ((seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32);
    let t = 1;
    for (let i = 0; i < 20_000; i++) {
      // Mostly small steps (files of one folder), sometimes a jump to any date up to year 9999.
      t = rand() < 0.9 ? t + rand() * 400 : rand() * 253_402_300_799_999;
      expect(isoTime(t)).toBe(new Date(Math.floor(t)).toISOString());
    }
  });

  it('is null for unknown times and keeps the extended form past year 9999', () => {
    for (const t of [0, -1, NaN, Infinity, 8.64e15 + 1]) expect(isoTime(t)).toBeNull();
    expect(isoTime(8.64e15)).toBe('+275760-09-13T00:00:00.000Z');
    expect(isoTime(253_402_300_800_000)).toBe('+010000-01-01T00:00:00.000Z');
    expect(isoTime(999.9)).toBe('1970-01-01T00:00:00.999Z');
  });
});
