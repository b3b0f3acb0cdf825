/**
 * Issue 4 config: unknown keys and bad values are refused at start with a message naming the key.
 */
import * as fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createNosh, type NoshConfig } from '../../src/index.js';
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
