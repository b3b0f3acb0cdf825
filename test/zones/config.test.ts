/**
 * Issue 4 config: unknown keys and bad values are refused at start with a message naming the key.
 * Issue 16: every numeric limit within what the code handles; fractional quotas are whole bytes.
 */
import * as fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createNosh, type NoshConfig } from '../../src/index.js';
import * as CONFIG from '../../src/config.js';
import * as SCHEMA from '../../src/config-schema.js';
const { parseConfig } = SCHEMA;
import { NoshError } from '../../src/errors.js';
import { tempDir } from '../helpers.js';

const base = tempDir('nosh-config-');
const course = tempDir('nosh-config-course-');
afterAll(() => {
  fs.rmSync(base, { recursive: true, force: true });
  fs.rmSync(course, { recursive: true, force: true });
});

const BAD: [string, Record<string, unknown>, RegExp][] = [
  ['unknown top-level key', { bogus: 1 }, /bogus/],
  ['snake_case spelling of a key', { session_ttl_seconds: 5 }, /session_ttl_seconds/],
  ['unknown quota key', { quotas: { userGb: 1 } }, /userGb/],
  ['negative quota', { quotas: { userMb: -1 } }, /userMb/],
  ['quota of the wrong type', { quotas: { groupMb: '10' } }, /groupMb/],
  ['unknown zone kind', { zones: { downloads: {} } }, /downloads/],
  ['unknown policy key', { zones: { storage: { readOnly: true } } }, /readOnly/],
  ['bad policy value', { zones: { share: { readonly: 'yes' } } }, /readonly/],
  ['unknown mount key', { mounts: [{ name: 'course', path: '/tmp', allowed_extensions: ['.py'] }] }, /allowed_extensions/],
  ['bad mount name', { mounts: [{ name: 'Course Files', path: '/tmp' }] }, /name/],
  ['mount without a path', { mounts: [{ name: 'course' }] }, /path/],
  ['bad ttl', { sessionTtlSeconds: 0 }, /sessionTtlSeconds/],
  ['bad limit', { limits: { timeoutMs: 10_000_000 } }, /timeoutMs/],
  ['unknown limit', { limits: { cpu: 1 } }, /cpu/],
  ['groups not a map of lists', { groups: { team: 'alice' } }, /team/],
];

it('the message names the key in plain words', async () => {
  await expect(createNosh({ base, quotas: { userMb: 'x' } } as never)).rejects.toThrow(
    'config: quotas.userMb: Invalid input: expected number, received string');
  await expect(createNosh({ base, bogus: 1 } as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
});

describe('createNosh refuses a bad config, naming the key', () => {
  for (const [what, cfg, key] of BAD) {
    it(what, async () => {
      await expect(createNosh({ base, threads: 1, ...cfg } as NoshConfig)).rejects.toThrow(key);
    });
  }

  it('a mount named like a built-in zone is refused', async () => {
    await expect(createNosh({ base, threads: 1, mounts: [{ name: 'storage', path: base }] })).rejects.toThrow(/storage/);
  });

  it('a good config starts, with defaults filled in', async () => {
    const nosh = await createNosh({ base, threads: 1, quotas: { userMb: 3 }, groups: { team: ['alice'] },
      mounts: [{ name: 'course', path: course, allowedExtensions: ['.py'] }] });
    try {
      expect(nosh.config.quotas).toEqual({ userMb: 3, groupMb: 2000, sessionMb: 100 });
      expect(nosh.config.sessionTtlSeconds).toBe(86400);
      expect(nosh.config.mounts[0]!.readonly).toBe(true);
      const r = await nosh.exec({ context: { user: 'alice' }, command: 'ls' });
      expect(r.success && r.data.stdout).toBe('README.txt\n');
    } finally {
      await nosh.close();
    }
  });
});

describe('issue 16: quotas in MB are whole bytes', () => {
  it('a fractional userMb (100.3) is converted once: writes work and the limit is whole bytes', async () => {
    const b = tempDir('nosh-config-frac-');
    const nosh = await createNosh({ base: b, threads: 1, quotas: { userMb: 100.3, sessionMb: 0.5 } });
    try {
      const r = await nosh.exec({ context: { user: 'alice' }, command: 'echo hi | tee a.txt' });
      expect(r.success ? r.data : r.error).toMatchObject({ exit_code: 0, stdout: 'hi\n' });
      expect(fs.readFileSync(`${b}/users/alice/Storage/a.txt`, 'utf8')).toBe('hi\n');
      const s = await nosh.exec({ context: { user: 'alice', session: 's1' }, zone: 'session:s1', command: 'echo x | tee x.txt' });
      expect(s.success ? s.data.exit_code : s.error).toBe(0);
      const st = await nosh.call('stats', { context: { user: 'alice' } });
      expect(st.success, JSON.stringify(st)).toBe(true);
      const quotas = (st as { data: { quotas: Record<string, { limit: number }> } }).data.quotas;
      expect(quotas['user:alice']!.limit).toBe(Math.floor(100.3 * 1024 * 1024));
    } finally {
      await nosh.close();
      fs.rmSync(b, { recursive: true, force: true });
    }
  });
});

describe('issue 16: every numeric limit is validated as the code needs it, naming the key', () => {
  const { MAX_FILE_SIZE_LIMIT, MAX_BUFFER_LIMIT, MAX_QUOTA_MB } = SCHEMA;
  /** Values no count, byte size or time may take: zero, negative, not a number, text, infinite. */
  const NOT_POSITIVE = [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 'NaN', '100', null, true];
  const at = (key: string, v: unknown): Record<string, unknown> => {
    const [head, ...rest] = key.split('.');
    if (head === 'mounts') return { mounts: [{ name: 'course', path: base, maxFileSize: v }] };
    let o: unknown = v;
    for (const k of rest.reverse()) o = { [k]: o };
    return { [head!]: o };
  };
  /** [key as the config spells it, its largest accepted value, whether it must be whole]. */
  const KEYS: [string, number, boolean][] = [
    ['limits.timeoutMs', 300_000, true],
    ['limits.memoryMb', 16_384, true],
    ['limits.maxOutputBytes', 5_000_000, true],
    ['limits.maxResults', 10_000_000, true],
    ['limits.maxFileSize', MAX_FILE_SIZE_LIMIT, true],
    ['limits.maxBufferBytes', MAX_BUFFER_LIMIT, true],
    ['quotas.userMb', MAX_QUOTA_MB, false],
    ['quotas.groupMb', MAX_QUOTA_MB, false],
    ['quotas.sessionMb', MAX_QUOTA_MB, false],
    ['sessionTtlSeconds', 10 * 365 * 24 * 3600, true],
    ['threads', 256, true],
    ['policy.maxFileSize', MAX_FILE_SIZE_LIMIT, true],
    ['zones.storage.maxFileSize', MAX_FILE_SIZE_LIMIT, true],
    ['mounts.0.maxFileSize', MAX_FILE_SIZE_LIMIT, true],
  ];

  for (const [key, max, whole] of KEYS) {
    const bad = [...NOT_POSITIVE, max + 1, max * 2 ** 20, 1e300, ...(whole ? [1.5, max - 0.5] : [1e-9])];
    it(`${key}: refuses ${bad.map((v) => JSON.stringify(v) ?? String(v)).join(', ')}`, async () => {
      for (const v of bad) {
        const err = await createNosh({ base, ...at(key, v) } as NoshConfig).then(
          async (n) => { await n.close(); return null; }, (e: unknown) => e);
        expect(err, `${key} = ${String(v)}`).toBeInstanceOf(NoshError);
        expect(err, `${key} = ${String(v)}`).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining(`config: ${key}:`) });
      }
    });
    it(`${key}: accepts its maximum${whole ? '' : ' and fractions'}`, () => {
      expect(() => parseConfig({ base, ...at(key, max) })).not.toThrow();
      if (!whole) expect(() => parseConfig({ base, ...at(key, 0.5) })).not.toThrow();
    });
  }
});

describe('resolveConfig: the plain shapes the CLI passes resolve without zod, exactly as the schema resolves them', () => {
  const PLAIN: Record<string, unknown>[] = [{}, { root: '/r' }, { base: '/b' }, { root: '/r', threads: 1 }, { base: '/b', threads: 256 }, { threads: 3 }];
  it.each(PLAIN.map((c) => [JSON.stringify(c), c]))('%s', (_, c) => {
    const fast = CONFIG.resolveConfig(c as NoshConfig);
    expect(fast).not.toBeInstanceOf(Promise); // the fast path answered
    expect(fast).toEqual(parseConfig(c));
    expect(CONFIG.resolveConfig(undefined)).toEqual(parseConfig(undefined));
  });
  it('any other shape goes through the schema (defaults, refusals and their messages unchanged)', async () => {
    const other: unknown[] = [{ root: '/r', threads: 0 }, { root: 1 }, { threads: 1.5 }, { root: '/r', limits: { timeoutMs: 5 } }, { base: '/b', bogus: 1 }, { root: undefined }, []];
    for (const c of other) {
      const got = CONFIG.resolveConfig(c as NoshConfig);
      expect(got).toBeInstanceOf(Promise);
      let want: unknown;
      try { want = parseConfig(c); } catch (e) { want = e; }
      if (want instanceof Error) await expect(got).rejects.toThrow(want.message);
      else expect(await got).toEqual(want);
    }
  });
});
