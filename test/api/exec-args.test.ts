/**
 * exec's hand check (execArgsOf, issue #27: no zod on the one-shot CLI's path or per served call)
 * against its schema (ExecParams): for every sample, the hand check either gives exactly what the
 * schema gives, or passes the sample on (undefined) to the schema, which then answers as before.
 * It must never accept what the schema refuses.
 */
import { describe, expect, it } from 'vitest';
import { execArgsOf } from '../../src/api/exec.js';
import { ExecParams } from '../../src/api/params-schema.js';
import { LIMITS } from '../../src/limits.js';

const VALUES: unknown[] = ['', 'ls', 'x'.repeat(10_001), 0, -1, 1, 1.5, 2 ** 53, LIMITS.timeoutMs.max, LIMITS.timeoutMs.max + 1,
  LIMITS.maxOutputBytes.max + 1, Number.NaN, Infinity, null, true, [], ['a'], ['a', 1], {}, { user: 'u' }, 'owner', 'group', 'owner_ro', 'admin'];
const KEYS = ['zone', 'cwd', 'command', 'cmd', 'args', 'stdin', 'timeout_ms', 'max_output_bytes', 'stdout_file', 'message', 'group_mode', 'context', 'bogus', '__proto__', 'constructor'];
const CONTEXTS: unknown[] = [{}, { user: 'u' }, { user: 1 }, { role: 'critic' }, { role: 'root' }, { groups: ['g'] }, { groups: Array(1001).fill('g') },
  { groups: Array(1000).fill('g') }, { groups: 'g' }, { session: 's', conversation: 'c' }, { extra: 1 }, { user: undefined }, null, [], 'u',
  JSON.parse('{"__proto__": {"role": "admin"}}')];

function samples(): unknown[] {
  const out: unknown[] = [{}, undefined, null, [], 'ls', 1, { command: 'ls', zone: undefined }, JSON.parse('{"command":"ls","__proto__":{"x":1}}'),
    Object.create(null), Object.assign(Object.create({ command: 'inherited' }), { cmd: 'ls' })];
  for (const k of KEYS) for (const v of VALUES) out.push({ command: 'cat f', [k]: v });
  for (const c of CONTEXTS) out.push({ command: 'ls', context: c }, { cmd: 'ls', args: ['-la'], context: c, timeout_ms: 5 });
  // pairs of keys with plausible values
  const good: Record<string, unknown> = { zone: 'documents', cwd: '/a', cmd: 'ls', args: ['-l'], stdin: 'in', timeout_ms: 100, max_output_bytes: 10,
    stdout_file: 'o.txt', message: 'm', group_mode: 'owner_ro', context: { user: 'u', role: 'developer' } };
  const keys = Object.keys(good);
  for (const a of keys) for (const b of keys) out.push({ command: 'ls', [a]: good[a], [b]: good[b] });
  return out;
}

describe('execArgsOf agrees with ExecParams', () => {
  it('never accepts what the schema refuses, and gives the schema\'s answer when it accepts', () => {
    let fast = 0;
    for (const s of samples()) {
      const mine = execArgsOf(s);
      const theirs = ExecParams.safeParse(s);
      if (mine === undefined) continue;
      fast++;
      expect(theirs.success, JSON.stringify(s)).toBe(true);
      expect(mine, JSON.stringify(s)).toEqual(theirs.data);
    }
    expect(fast).toBeGreaterThan(150); // the common shapes do take the hand check
  });

  it('takes the shapes callers send', () => {
    for (const s of [{}, { command: 'ls -la' }, { cmd: 'ls', args: [] }, { command: 'x', context: { user: 'u', groups: [] }, zone: 'group:g', timeout_ms: 1000 }]) {
      expect(execArgsOf(s), JSON.stringify(s)).toEqual(ExecParams.parse(s));
    }
  });
});
