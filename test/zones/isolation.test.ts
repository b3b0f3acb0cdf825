/**
 * Issue 4, "What it must show": two users (alice, bob), one group (team: alice only).
 * Alice writes in her storage; bob cannot reach it by any path, and neither can alice leave her
 * zone through symlinks planted on the host. (Her folder is "private": since issue 16 a name
 * containing "secret" is blocked by default.)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

let nosh: Nosh;
let base: string;
const ALICE = { user: 'alice' };
const BOB = { user: 'bob' };
const SECRET = 'alice secret 42\n';

async function sh(context: Record<string, unknown>, command: string, zone = 'storage', cwd = '/') {
  return nosh.exec({ zone, context, cwd, command });
}
/** stdout+stderr of a command that ran (fails the test if it was refused as a whole). */
async function out(context: Record<string, unknown>, command: string, zone = 'storage', cwd = '/') {
  const r = await sh(context, command, zone, cwd);
  if (!r.success) return `ERROR ${r.error.code} ${r.error.message}`;
  return r.data.stdout + r.data.stderr;
}

beforeAll(async () => {
  base = tempDir('nosh-zones-');
  nosh = await createNosh({ base, threads: 2, groups: { team: ['alice'] } });
  // Alice fills her storage by every writing means she has.
  for (const cmd of ['mkdir -p private/deep', 'touch private/touched.txt', 'cp README.txt private/copied.txt']) {
    const r = await sh(ALICE, cmd);
    expect(r.success && r.data.exit_code, cmd).toBe(0);
  }
  const w = await nosh.call('write', { context: ALICE, path: 'private/deep/w.txt', content: SECRET });
  expect(w.success).toBe(true);
  const r = await sh(BOB, 'mkdir mine');
  expect(r.success).toBe(true);
  await nosh.call('write', { context: BOB, path: 'mine/bob.txt', content: 'bob data\n' });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(base, { recursive: true, force: true });
});

describe('alice writes in storage', () => {
  it('the files land in users/alice/Storage on the host', () => {
    const s = path.join(base, 'users', 'alice', 'Storage', 'private');
    expect(fs.readFileSync(path.join(s, 'deep', 'w.txt'), 'utf8')).toBe(SECRET);
    expect(fs.existsSync(path.join(s, 'touched.txt'))).toBe(true);
    expect(fs.existsSync(path.join(s, 'copied.txt'))).toBe(true);
  });

  it('alice reads her own file', async () => {
    expect(await out(ALICE, 'cat private/deep/w.txt')).toBe(SECRET);
  });
});

describe('bob cannot reach alice\'s files', () => {
  const attempts = [
    'cat ../alice/Storage/private/deep/w.txt',
    'cat ../../alice/Storage/private/deep/w.txt',
    'cat ../../../users/alice/Storage/private/deep/w.txt',
    'cat /../../alice/Storage/private/deep/w.txt',
    'cat /../../../../../../users/alice/Storage/private/deep/w.txt',
    'cat mine/../../alice/Storage/private/deep/w.txt',
    'cat /../*/Storage/private/deep/*',
    'cat /../*/Storage/*',
    'cat ../*/Storage/private/deep/w.txt',
    'cat ../../*/*/Storage/private/deep/w.txt',
    'ls ../*',
    'ls -laR /..',
    'ls -R ../..',
    'grep -r alice ../..',
    'grep -r secret /..',
    'find ../.. -name w.txt',
    'find / -name "*.txt"',
    'tree ../..',
    'head -c 100 ../../alice/Storage/private/deep/w.txt',
    'wc -c ../../alice/Storage/private/deep/w.txt',
  ];
  for (const cmd of attempts) {
    it(`bob: ${cmd}`, async () => {
      const text = await out(BOB, cmd);
      expect(text).not.toContain('alice secret');
      expect(text).not.toContain('w.txt\n');
      expect(text).not.toContain('touched');
      expect(text).not.toContain('copied');
      expect(text).not.toContain(base);
    });
  }

  it('host-path-looking arguments are virtual paths inside bob\'s zone', async () => {
    const host = path.join(base, 'users', 'alice', 'Storage', 'private', 'deep', 'w.txt');
    for (const cmd of [`cat ${host}`, `cat ..${host}`, `ls ${path.dirname(host)}`, `grep -r alice ${base}`]) {
      const text = await out(BOB, cmd);
      expect(text).not.toContain('alice secret');
      expect(text).toMatch(/No such file or directory|^$/);
    }
    const r = await nosh.call('read', { context: BOB, path: host });
    expect(r.success).toBe(false);
    if (!r.success) expect(r.error.code).toBe('FILE_NOT_FOUND');
  });

  it('a cwd outside the zone is clamped to the zone root', async () => {
    expect(await out(BOB, 'ls', 'storage', '/../../alice/Storage')).not.toContain('private');
    const r = await sh(BOB, 'cat private/deep/w.txt', 'storage', '/../../alice/Storage');
    expect(r.success ? r.data.stdout : r.error.code).not.toContain('alice secret');
  });

  it('bob\'s view of his storage holds only his files', async () => {
    expect(await out(BOB, 'ls -A /')).toBe('README.txt\nmine\n');
    expect(await out(BOB, 'find /')).toBe('/\n/README.txt\n/mine\n/mine/bob.txt\n');
    const l = await nosh.call('list', { context: BOB, path: '/..' });
    expect(l.success && (l.data as { entries: { name: string }[] }).entries.map((e) => e.name)).toEqual(['README.txt', 'mine']);
  });

  it('the typed tools refuse the same paths', async () => {
    for (const p of ['../alice/Storage/private/deep/w.txt', '/../../alice/Storage/private/deep/w.txt']) {
      const r = await nosh.call('read', { context: BOB, path: p });
      expect(r.success).toBe(false);
    }
    const s = await nosh.call('search', { context: BOB, pattern: 'alice', path: '/..' });
    expect(JSON.stringify(s)).not.toContain('alice secret');
  });

  it('transfer cannot name another user\'s zone', async () => {
    for (const from of ['storage:alice', 'storage/../alice', 'users/alice', '../alice']) {
      const r = await nosh.call('transfer', { context: BOB, from, to: 'share', path: 'private' });
      expect(r.success, from).toBe(false);
      if (!r.success) expect(['INVALID_ZONE', 'INVALID_ARGUMENT', 'INVALID_ID']).toContain(r.error.code);
    }
    const up = await nosh.call('transfer', { context: BOB, from: 'storage', to: 'share', path: '../../alice/Storage/private' });
    expect(up.success).toBe(false);
    expect(fs.readdirSync(path.join(base, 'share'))).not.toContain('private');
    // Naming alice's zone with a zone suffix is refused, never quietly bob's own zone.
    const r = await sh(BOB, 'ls', 'storage:alice');
    expect(r.success ? 'ran' : r.error.code).toBe('INVALID_ZONE');
  });

  it('alice is not reachable through the context either: invalid user ids are refused', async () => {
    const bad = ['../alice', 'alice/..', '.alice', 'a..b', 'x'.repeat(129), '', 'al\0ice', 'alice/Storage', 'a b', '..', '.', '/alice'];
    for (const user of bad) {
      const r = await sh({ user }, 'ls');
      expect(r.success, JSON.stringify(user)).toBe(false);
      if (!r.success) expect(r.error.code).toBe('INVALID_ID');
    }
    expect((await sh({ user: 'x'.repeat(128) }, 'ls')).success).toBe(true);
    expect((await sh({ user: 'a.b-c_D9' }, 'ls')).success).toBe(true);
  });

  it('conversation, group and session ids are validated the same way', async () => {
    for (const id of ['../alice', 'alice/..', '.alice', 'a..b', 'x'.repeat(129), '', 'a\0b']) {
      const conv = await sh({ user: 'bob', conversation: id }, 'ls', 'uploads');
      expect(!conv.success && conv.error.code, `conversation ${JSON.stringify(id)}`).toBe('INVALID_ID');
      const grp = await sh({ user: 'alice', groups: [id] }, 'ls', `group:${id}`);
      expect(!grp.success && grp.error.code, `group ${JSON.stringify(id)}`).toBe('INVALID_ID');
      const ses = await sh({ user: 'bob' }, 'ls', `session:${id}`);
      expect(!ses.success && ses.error.code, `session ${JSON.stringify(id)}`).toBe('INVALID_ID');
      const ses2 = await sh({ user: 'bob', session: id }, 'ls', 'session');
      expect(!ses2.success && ses2.error.code, `context.session ${JSON.stringify(id)}`).toBe('INVALID_ID');
    }
    // Nothing was created outside the expected folders (the audit log holds the refusals; locks/
    // holds the cross-process order and quota counters of the zones that were used).
    expect(fs.readdirSync(base).filter((n) => n !== 'share').sort()).toEqual(['audit.log', 'locks', 'users']);
    expect(fs.readdirSync(path.join(base, 'users')).sort()).toEqual(['a.b-c_D9', 'alice', 'bob', 'x'.repeat(128)]);
  });
});

describe('symlinks planted on the host', () => {
  let aliceStorage: string;
  beforeAll(() => {
    aliceStorage = path.join(base, 'users', 'alice', 'Storage');
    const bobStorage = path.join(base, 'users', 'bob', 'Storage');
    fs.symlinkSync(bobStorage, path.join(aliceStorage, 'to-bob-abs'));
    fs.symlinkSync('../../bob/Storage', path.join(aliceStorage, 'to-bob-rel'));
    fs.symlinkSync(path.join(bobStorage, 'mine', 'bob.txt'), path.join(aliceStorage, 'private', 'bobfile'));
    fs.symlinkSync('/etc/passwd', path.join(aliceStorage, 'passwd'));
  });

  const tries = [
    'cat to-bob-abs/mine/bob.txt', 'cat to-bob-rel/mine/bob.txt', 'cat private/bobfile', 'cat passwd',
    'cat to-bob-abs/*/*', 'cat to-bob-rel/mine/*', 'ls to-bob-abs/', 'ls -la to-bob-rel/mine', 'ls to-bob-abs/*',
    'grep -r bob .', 'grep -r "bob data" /', 'grep -R root .', 'find . -name bob.txt', 'find to-bob-abs/', 'tree',
    'wc -c private/bobfile', 'head private/bobfile', 'cp private/bobfile stolen.txt', 'cp -r to-bob-abs/mine stolen',
    'cp -r private private2', 'cp -a private private3', 'stat -L passwd', 'find -L . -name "*.txt"',
  ];
  for (const cmd of tries) {
    it(`alice cannot follow a link out: ${cmd}`, async () => {
      const text = await out(ALICE, cmd);
      expect(text).not.toContain('bob data');
      expect(text).not.toContain('root:');
      expect(text).not.toContain(base);
    });
  }

  it('nothing alice ran turned a link into a copy of bob\'s data or a new link', () => {
    const walk = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
      const p = path.join(dir, d.name);
      return d.isDirectory() ? walk(p) : [p];
    });
    const links = walk(aliceStorage).filter((p) => fs.lstatSync(p).isSymbolicLink()).map((p) => path.relative(aliceStorage, p)).sort();
    expect(links).toEqual(['passwd', 'private/bobfile', 'to-bob-abs', 'to-bob-rel']);
    for (const p of walk(aliceStorage)) {
      if (fs.lstatSync(p).isFile()) expect(fs.readFileSync(p, 'utf8')).not.toContain('bob data');
    }
  });

  it('the typed tools do not follow the links either', async () => {
    for (const p of ['to-bob-abs/mine/bob.txt', 'private/bobfile', 'passwd']) {
      const r = await nosh.call('read', { context: ALICE, path: p });
      expect(r.success, p).toBe(false);
      if (!r.success) expect(r.error.code).toBe('PATH_ESCAPE');
    }
    const c = await nosh.call('copy', { context: ALICE, from: 'private/bobfile', to: 'x.txt' });
    // The copy tool skips links (and says so): no copy of the target, no new link.
    expect(c.success && (c.data as { skipped: string[] }).skipped).toEqual(['/private/bobfile']);
    expect(fs.existsSync(path.join(aliceStorage, 'x.txt'))).toBe(false);
  });

  it('links show as links, their outside target is never printed', async () => {
    const text = await out(ALICE, 'ls -l');
    expect(text).toMatch(/^l.* to-bob-abs -> \(outside the zone\)$/m);
    expect(text).not.toContain(base);
    expect(text).not.toContain('/etc/passwd');
  });

  it('mv of a planted link moves the link itself (no copy of the target, no new link elsewhere)', async () => {
    const r = await sh(ALICE, 'mv private/bobfile moved-link');
    expect(r.success && r.data.exit_code).toBe(0);
    expect(fs.lstatSync(path.join(aliceStorage, 'moved-link')).isSymbolicLink()).toBe(true);
    expect(await out(ALICE, 'cat moved-link')).not.toContain('bob data');
    const back = await sh(ALICE, 'mv moved-link private/bobfile');
    expect(back.success && back.data.exit_code).toBe(0);
  });

  it('transfer refuses links and never produces one in the destination', async () => {
    for (const p of ['to-bob-abs', 'private/bobfile', 'passwd']) {
      const r = await nosh.call('transfer', { context: ALICE, from: 'storage', to: 'share', path: p });
      expect(r.success, p).toBe(false);
      if (!r.success) expect(r.error.code).toBe('PATH_ESCAPE');
    }
    // A folder holding a link: the link is refused, nothing of bob's arrives.
    await nosh.call('transfer', { context: ALICE, from: 'storage', to: 'group:team', path: 'private' });
    const walk = (dir: string): string[] => fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
      const p = path.join(dir, d.name);
      return d.isDirectory() ? walk(p) : [p];
    }) : [];
    for (const p of [...walk(path.join(base, 'share')), ...walk(path.join(base, 'groups'))]) {
      expect(fs.lstatSync(p).isSymbolicLink(), p).toBe(false);
      expect(fs.readFileSync(p, 'utf8')).not.toContain('bob data');
    }
  });

  it('bob\'s view never includes alice\'s files through her links', async () => {
    const text = await out(BOB, 'ls -laR /');
    expect(text).not.toMatch(/private|to-bob|touched/);
    expect(await out(BOB, 'grep -r "alice secret" /')).toBe('');
  });

  it('with followSymlinks on, links inside the zone work and links out of it still do not', async () => {
    const n2 = await createNosh({ base, threads: 1, zones: { storage: { followSymlinks: true } } });
    try {
      fs.symlinkSync('private/deep/w.txt', path.join(aliceStorage, 'inside'));
      const ok = await n2.exec({ context: ALICE, command: 'cat inside' });
      expect(ok.success && ok.data.stdout).toBe(SECRET);
      for (const cmd of ['cat to-bob-abs/mine/bob.txt', 'cat to-bob-rel/mine/bob.txt', 'cat private/bobfile', 'cat passwd', 'grep -r "bob data" .', 'cat to-bob-rel/*/*']) {
        const r = await n2.exec({ context: ALICE, command: cmd });
        const text = r.success ? r.data.stdout + r.data.stderr : r.error.message;
        expect(text, cmd).not.toContain('bob data');
        expect(text, cmd).not.toContain('root:');
      }
    } finally {
      fs.unlinkSync(path.join(aliceStorage, 'inside'));
      await n2.close();
    }
  });
});
