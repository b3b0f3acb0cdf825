// The byte-budgeted LRU under the worker caches (content cache, sqlite result cache).
import { describe, expect, it } from 'vitest';
import { ByteLru, budgeted } from '../../src/runtime/byte-lru.js';

describe('ByteLru', () => {
  it('drops the least recently used past its budget; a get makes an entry the most recent', () => {
    const c = new ByteLru<string, number>(10);
    c.set('a', 1, 4);
    c.set('b', 2, 4);
    expect(c.get('a')).toBe(1); // a is now newer than b
    c.set('c', 3, 4); // 12 > 10: b goes
    expect([c.get('b'), c.get('a'), c.get('c')]).toEqual([undefined, 1, 3]);
    expect(c.size).toBe(8);
    c.set('a', 9, 2); // replaced, not counted twice
    expect([c.size, c.entries, c.get('a')]).toEqual([6, 2, 9]);
  });

  it('deleteWhere, setBudget and clear keep the byte count right', () => {
    const c = new ByteLru<number, string>(100);
    for (let i = 0; i < 10; i++) c.set(i, i % 2 ? 'odd' : 'even', 10);
    expect(c.deleteWhere((v) => v === 'odd')).toBe(5);
    expect([c.size, c.entries]).toEqual([50, 5]);
    c.setBudget(25); // the oldest go: 0, 2, 4
    expect([c.size, c.get(0), c.get(4), c.get(6), c.get(8)]).toEqual([20, undefined, undefined, 'even', 'even']);
    c.clear();
    expect([c.size, c.entries]).toEqual([0, 0]);
  });

  it('budgeted: a cache for a budget, the same one with a new budget, none (emptied) for 0', () => {
    const a = budgeted(null, 1000, (b) => new ByteLru<string, string>(b))!;
    a.set('k', 'v', 10);
    expect(a.limit).toBe(1000);
    const same = budgeted(a, 500, () => { throw new Error('not made again'); });
    expect(same).toBe(a);
    expect(a.limit).toBe(500);
    expect(budgeted(a, 0, (b) => new ByteLru<string, string>(b))).toBeNull();
    expect(a.entries).toBe(0);
  });
});
