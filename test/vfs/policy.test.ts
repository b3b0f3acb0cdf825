// Defences 10 and 11: blocked name patterns, allowed extensions, read-only zones.
import * as fs from 'node:fs';
import { beforeEach, describe, expect, test } from 'vitest';
import { Minimatch } from 'minimatch';
import { buildTree, run, snapshotTree } from '../helpers.js';
import { BlockMatcher, DEFAULT_BLOCKED_PATTERNS } from '../../src/vfs/index.js';
import { expectVfsError, guardLeaks, makeZone, record, type Zone } from './fixture.js';

guardLeaks();

const BLOCKED = ['.env', '.env.*', '*.pem', '.ssh/', '.git/config', 'secrets*'];
const SECRETS = 'SECRET-VALUE';

let z: Zone;
beforeEach(() => {
  z = makeZone();
  buildTree(z.root, {
    '.env': SECRETS, '.ENV': SECRETS, '.env.local': SECRETS, 'sub/.env': SECRETS, 'cert.pem': SECRETS, 'CERT.PEM': SECRETS,
    '.ssh/id_rsa': SECRETS, '.ssh/config': SECRETS, '.git/config': SECRETS, '.git/HEAD': 'ref: main\n',
    'secrets.txt': SECRETS, 'SecretsDir/x.txt': SECRETS, 'ok.txt': 'ok\n', 'a/ok.txt': 'ok\n', 'sub/fine.txt': 'fine\n',
    'envdir/.env.production': SECRETS, 'mygit/config': '[core]\n\tfsmonitor = evil\n', 'keys/authorized_keys': 'ssh-ed25519 AAAA\n',
  });
});

const blocked = () => z.vfs({ blockedPatterns: BLOCKED });

const BLOCKED_PATHS = [
  '.env', '.ENV', './.env', 'a/../.env', '/sub/../.env', 'sub/.env', 'sub/./.env', '.env.local', '.Env.Local',
  'envdir/.env.production', 'cert.pem', 'CERT.PEM', '.ssh/id_rsa', '.SSH/id_rsa', '.ssh/config', 'sub/../.ssh/./id_rsa',
  '.git/config', '.GIT/CONFIG', 'secrets.txt', 'SecretsDir/x.txt', '.env/', 'cert.pem/',
];

describe('blocked patterns', () => {
  test('blocked names are refused on read, stat and exists, whatever the spelling', () => {
    const vfs = blocked();
    for (const p of BLOCKED_PATHS) {
      expectVfsError(() => vfs.readFile(p), ['EBLOCKED', 'ENOENT']);
      expectVfsError(() => [...vfs.readChunks(p)], ['EBLOCKED', 'ENOENT']);
      expectVfsError(() => vfs.stat(p), ['EBLOCKED', 'ENOENT']);
      expectVfsError(() => vfs.lstat(p), ['EBLOCKED', 'ENOENT']);
      expect(vfs.exists(p)).toBe(false);
    }
    // the ones that exist with that exact spelling must be EBLOCKED, not merely missing
    for (const p of ['.env', './.env', 'a/../.env', 'sub/.env', '.ssh/id_rsa', '.git/config', 'SecretsDir/x.txt', '.ENV', 'CERT.PEM']) {
      expectVfsError(() => vfs.readFile(p), 'EBLOCKED');
    }
    expect(vfs.readFile('.git/HEAD').toString()).toBe('ref: main\n');
  });

  test('blocked names are refused on every write, delete and rename', () => {
    const vfs = blocked();
    for (const p of ['.env', 'sub/.env', 'new.pem', '.env.prod', '.ssh/authorized_keys', '.git/config', 'secrets2', 'a/.Env']) {
      expectVfsError(() => vfs.writeFile(p, 'pwned'), 'EBLOCKED');
      expectVfsError(() => vfs.createWriter(p), 'EBLOCKED');
      expectVfsError(() => vfs.writeFile(p, 'pwned', '/', { append: true }), 'EBLOCKED');
      expectVfsError(() => vfs.rename('ok.txt', p), 'EBLOCKED');
    }
    for (const p of ['.env', '.ssh/id_rsa', '.git/config', 'cert.pem']) {
      expectVfsError(() => vfs.unlink(p), 'EBLOCKED');
      expectVfsError(() => vfs.rename(p, 'exposed.txt'), 'EBLOCKED');
      expectVfsError(() => vfs.chmod(p, 0o644), 'EBLOCKED');
      expectVfsError(() => vfs.utimes(p, 1, 1), 'EBLOCKED');
    }
    expectVfsError(() => vfs.rmdir('.ssh'), 'EBLOCKED');
    expectVfsError(() => vfs.rename('.ssh', 'ssh'), 'EBLOCKED');
    expectVfsError(() => vfs.mkdir('secretsdir2'), 'EBLOCKED');
    expect(fs.readFileSync(z.at('.env'), 'utf8')).toBe(SECRETS);
    expect(fs.readFileSync(z.at('ok.txt'), 'utf8')).toBe('ok\n');
  });

  test('readdir hides blocked entries, matched case-insensitively; a blocked dir cannot be listed', () => {
    const vfs = blocked();
    const names = vfs.readdir('/').map((e) => e.name).sort();
    expect(names).toEqual(['.git', 'a', 'envdir', 'keys', 'mygit', 'ok.txt', 'sub']);
    expect(vfs.readdir('.git').map((e) => e.name)).toEqual(['HEAD']);
    expect(vfs.readdir('sub').map((e) => e.name)).toEqual(['fine.txt']);
    expect(vfs.readdir('envdir')).toEqual([]);
    expectVfsError(() => vfs.readdir('.ssh'), 'EBLOCKED');
    expectVfsError(() => vfs.readdir('./sub/../.ssh/'), 'EBLOCKED');
  });

  test('a blocked directory name cannot be created by mkdir or by renaming a folder onto it', () => {
    // Planting ~/.ssh/authorized_keys in a mounted home folder: build it elsewhere, then move it.
    const vfs = blocked();
    fs.rmSync(z.at('.ssh'), { recursive: true });
    expectVfsError(() => vfs.mkdir('.ssh'), 'EBLOCKED');
    expectVfsError(() => vfs.mkdir('sub/.SSH'), 'EBLOCKED');
    expectVfsError(() => vfs.rename('keys', '.ssh'), 'EBLOCKED');
    expectVfsError(() => vfs.rename('keys', 'sub/.ssh'), 'EBLOCKED');
    expect(fs.existsSync(z.at('.ssh'))).toBe(false);
    expect(fs.existsSync(z.at('sub/.ssh'))).toBe(false);
    vfs.rename('keys', 'keys2'); // an unblocked name is fine
  });

  test('renaming a folder must not expose or plant a file matched by a multi-component pattern', () => {
    const vfs = blocked();
    // '.git/config' is blocked; moving '.git' would expose it as g/config ...
    expectVfsError(() => vfs.rename('.git', 'g'), 'EBLOCKED');
    expectVfsError(() => vfs.readFile('g/config'), 'ENOENT');
    // ... and moving a folder holding 'config' to '.git' would plant it (git runs core.fsmonitor).
    fs.rmSync(z.at('.git'), { recursive: true });
    expectVfsError(() => vfs.rename('mygit', '.git'), 'EBLOCKED');
    expect(fs.existsSync(z.at('.git'))).toBe(false);
    expect(fs.readFileSync(z.at('mygit/config'), 'utf8')).toContain('fsmonitor');
    // renaming unrelated folders still works
    vfs.rename('a', 'b');
    expect(vfs.readFile('b/ok.txt').toString()).toBe('ok\n');
  });

  test('symlinks cannot launder blocked names (followSymlinks: true)', () => {
    fs.symlinkSync('.env', z.at('innocent'));
    fs.symlinkSync('.git', z.at('g'));
    fs.symlinkSync('.ssh', z.at('keysdir'));
    fs.symlinkSync('ok.txt', z.at('.env.link-named'));
    fs.symlinkSync('ok.txt', z.at('secrets-link'));
    const vfs = z.vfs({ blockedPatterns: BLOCKED, followSymlinks: true });
    expectVfsError(() => vfs.readFile('innocent'), 'EBLOCKED');
    expectVfsError(() => vfs.readFile('g/config'), 'EBLOCKED');
    expectVfsError(() => vfs.readFile('keysdir/id_rsa'), 'EBLOCKED');
    expectVfsError(() => vfs.writeFile('innocent', 'pwned'), 'EBLOCKED');
    expectVfsError(() => vfs.writeFile('g/config', 'pwned'), 'EBLOCKED');
    // a link whose own name is blocked is hidden from readdir, so it is refused by name too
    expect(vfs.readdir('/').map((e) => e.name)).not.toContain('secrets-link');
    expectVfsError(() => vfs.readFile('secrets-link'), 'EBLOCKED');
    expectVfsError(() => vfs.readFile('.env.link-named'), 'EBLOCKED');
    expect(fs.readFileSync(z.at('.env'), 'utf8')).toBe(SECRETS);
  });

  test('the default pattern list blocks the usual suspects', async () => {
    buildTree(z.root, { 'home/.aws/credentials': SECRETS, 'home/.netrc': SECRETS, 'home/id_ed25519': SECRETS, 'home/server.key': SECRETS });
    const { DEFAULT_BLOCKED_PATTERNS } = await import('../../src/vfs/index.js');
    const vfs = z.vfs({ blockedPatterns: DEFAULT_BLOCKED_PATTERNS });
    for (const p of ['home/.aws/credentials', 'home/.netrc', 'home/id_ed25519', 'home/server.key', '.env', '.ssh/id_rsa', '.git/config', 'cert.pem']) {
      expectVfsError(() => vfs.readFile(p), 'EBLOCKED');
    }
    expect(vfs.readdir('home')).toEqual([]);
  });

  test('through the runner: cat and globs never print a blocked file', async () => {
    const policy = { blockedPatterns: BLOCKED };
    for (const p of ['.env', './.ENV', 'sub/.env', 'a/../.env', '.ssh/id_rsa', '.git/config', 'CERT.PEM']) {
      const r = await run(z.root, `cat ${p}`, { policy });
      expect(r.exitCode).toBe(1);
      expect(r.stdout.toString()).not.toContain(SECRETS);
      expect(r.stderr).toContain('blocked by zone policy');
      record(new Error(r.stderr));
    }
    for (const line of ['cat * .* */* .*/* */.*', 'cat .e* sub/.e* .git/*']) {
      const r = await run(z.root, line, { policy });
      expect(r.stdout.toString()).not.toContain(SECRETS);
      record(new Error(r.stderr));
    }
  });
});

describe('allowed extensions', () => {
  beforeEach(() => {
    buildTree(z.root, { 'doc.md': 'md\n', 'UPPER.TXT': 'upper\n', 'data.bin': 'BINARY-SECRET', 'noext': 'NOEXT-SECRET', 'dir.bin/inner.txt': 'inner\n', 'dir.bin/x.exe': 'exe' });
  });
  const ext = () => z.vfs({ allowedExtensions: ['.txt', '.md'] });

  test('other files are hidden from readdir, directories are not', () => {
    const vfs = ext();
    const names = vfs.readdir('/').map((e) => e.name);
    expect(names).toContain('doc.md');
    expect(names).toContain('UPPER.TXT');
    expect(names).toContain('dir.bin');
    expect(names).not.toContain('data.bin');
    expect(names).not.toContain('noext');
    expect(vfs.readdir('dir.bin').map((e) => e.name)).toEqual(['inner.txt']);
  });

  test('other files are refused on read and write; directories of any name work', () => {
    const vfs = ext();
    for (const p of ['data.bin', 'noext', 'dir.bin/x.exe']) {
      expectVfsError(() => vfs.readFile(p), 'EEXT');
      expectVfsError(() => vfs.writeFile(p, 'x'), 'EEXT');
    }
    expectVfsError(() => vfs.writeFile('new.sh', '#!/bin/sh'), 'EEXT');
    expect(vfs.readFile('dir.bin/inner.txt').toString()).toBe('inner\n');
    expect(vfs.readFile('UPPER.TXT').toString()).toBe('upper\n');
    vfs.mkdir('new.dir');
    vfs.writeFile('new.dir/ok.txt', 'fine');
  });

  test('a hidden file cannot be renamed to an allowed name and then read', () => {
    const vfs = ext();
    expectVfsError(() => vfs.rename('data.bin', 'data.txt'), 'EEXT');
    expectVfsError(() => vfs.readFile('data.txt'), 'ENOENT');
    expectVfsError(() => vfs.rename('ok.txt', 'ok.exe'), 'EEXT');
    vfs.rename('dir.bin', 'dir2'); // directories are not filtered
  });

  test('a hidden file is not revealed by stat / exists either', () => {
    const vfs = ext();
    expectVfsError(() => vfs.stat('data.bin'), 'EEXT');
    expectVfsError(() => vfs.lstat('noext'), 'EEXT');
    expect(vfs.exists('data.bin')).toBe(false);
    expect(vfs.stat('dir.bin').isDirectory()).toBe(true);
  });

  test('a followed symlink with an allowed name to a disallowed file is refused', () => {
    fs.symlinkSync('data.bin', z.at('alias.txt'));
    const vfs = z.vfs({ allowedExtensions: ['.txt'], followSymlinks: true });
    expectVfsError(() => vfs.readFile('alias.txt'), 'EEXT');
  });
});

describe('read-only zones', () => {
  const WRITES: [string, (v: ReturnType<Zone['vfs']>) => unknown][] = [
    ['writeFile', (v) => v.writeFile('ok.txt', 'x')],
    ['writeFile new', (v) => v.writeFile('new.txt', 'x')],
    ['append', (v) => v.writeFile('ok.txt', 'x', '/', { append: true })],
    ['createWriter', (v) => v.createWriter('new.txt')],
    ['mkdir', (v) => v.mkdir('newdir')],
    ['rename', (v) => v.rename('ok.txt', 'moved.txt')],
    ['rename dir', (v) => v.rename('a', 'b')],
    ['utimes', (v) => v.utimes('ok.txt', 1, 1)],
    ['chmod', (v) => v.chmod('ok.txt', 0o777)],
    ['writeFile missing parent', (v) => v.writeFile('nope/x.txt', 'x')],
    ['writeFile climbing', (v) => v.writeFile('../../x.txt', 'x')],
  ];

  test('every write method refuses with EROFS and nothing changes on disk', () => {
    const before = snapshotTree(z.root);
    for (const allowDelete of [false, true]) {
      const vfs = z.vfs({ readonly: true, allowDelete });
      for (const [, op] of WRITES) expectVfsError(() => op(vfs), 'EROFS');
      expect(vfs.changes).toEqual([]);
    }
    expect(snapshotTree(z.root)).toEqual(before);
  });

  test('without allowDelete, unlink and rmdir refuse too', () => {
    fs.mkdirSync(z.at('empty'));
    const vfs = z.vfs({ readonly: true, allowDelete: false });
    expectVfsError(() => vfs.unlink('ok.txt'), 'EROFS');
    expectVfsError(() => vfs.rmdir('empty'), 'EROFS');
    expect(fs.existsSync(z.at('ok.txt'))).toBe(true);
  });

  test('allowDelete permits unlink and rmdir only; reading still works', () => {
    fs.mkdirSync(z.at('empty'));
    const vfs = z.vfs({ readonly: true, allowDelete: true });
    expect(vfs.readFile('ok.txt').toString()).toBe('ok\n');
    vfs.unlink('ok.txt');
    vfs.rmdir('empty');
    expect(fs.existsSync(z.at('ok.txt'))).toBe(false);
    expect(fs.existsSync(z.at('empty'))).toBe(false);
    expectVfsError(() => vfs.rename('a/ok.txt', 'x.txt'), 'EROFS');
  });

  test('read-only and blocked at once: a blocked delete is still refused', () => {
    const vfs = z.vfs({ readonly: true, allowDelete: true, blockedPatterns: BLOCKED });
    expectVfsError(() => vfs.unlink('.env'), 'EBLOCKED');
    expectVfsError(() => vfs.writeFile('.env', 'x'), ['EROFS', 'EBLOCKED']);
  });

  test('through the runner: cat works in a read-only zone', async () => {
    const r = await run(z.root, 'cat ok.txt', { policy: { readonly: true } });
    expect(r.stdout.toString()).toBe('ok\n');
  });
});

describe('blocked-pattern matching: the compiled fast path agrees with minimatch', () => {
  // Plain globs (literals, '*', '?') are compiled to one RegExp each; minimatch decides the
  // rest and every name that is not printable ASCII. Both must give the same answers.
  const PATTERNS = [...DEFAULT_BLOCKED_PATTERNS, '*.{pem,key}', '[ab]*.txt', '?x*', 'a*b*c', 'UP?ER*', 'x/*.pem', 'we ird*',
    'é*', 'd-[0-9]', 'a.b', 'a+b', '*', '.*', 'x?/y*'];
  const opts = { nocase: true, dot: true, nonegate: true, nocomment: true };
  const compiled = new Map<string, Minimatch>();
  /** One Minimatch per glob (compiling them afresh for each of the names made this test slow). */
  const mm = (glob: string) => compiled.get(glob) ?? compiled.set(glob, new Minimatch(glob, opts)).get(glob)!;
  /** The matcher as it was: minimatch for every component. */
  function reference(parents: string[], name: string, isDir: boolean, patterns = PATTERNS): boolean {
    for (const raw of patterns) {
      const p = raw.replace(/^\/+/, '');
      if (p.endsWith('/') && !p.slice(0, -1).includes('/')) {
        if (isDir && mm(p.slice(0, -1)).match(name)) return true;
      } else if (!p.includes('/')) {
        if (mm(p).match(name)) return true;
      } else {
        const parts = p.replace(/\/+$/, '').split('/').map(mm);
        const n = parts.length;
        if (n - 1 > parents.length || !parts[n - 1]!.match(name)) continue;
        if (parts.slice(0, -1).every((m, i) => m.match(parents[parents.length - (n - 1) + i]!))) return true;
      }
    }
    return false;
  }

  test('names of every shape, as files and directories, with and without parents', () => {
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    const alphabet = ['a', 'b', 'c', 'e', 'n', 'v', 'E', 'N', 'V', '.', '-', '_', 'x', 'X', 'p', 'm', 'k', 'y', '1', ' ', '*', '?', '\n', 'é', 'K', 'ſ'];
    const names = ['.env', '.ENV', '.env.', '.env.local', '.Env.Local', 'x.pem', 'X.PEM', '.pem', 'pem', 'id_rsa', 'ID_RSA.pub', 'id_ed25519',
      'credentials', 'Credentials.json', 'secrets', 'SECRETS.txt', 'a.key.txt', 'server.key', '.ssh', '.SSH', '.git', 'config', 'CONFIG',
      'upper', 'UPPER', 'uPxER1', 'we ird', 'we irder', 'éa', 'Éa', 'd-5', 'a.b', 'aXb', 'a+b', 'abc', 'axbxc', 'xx', '.x', 'y',
      '\u212Aey.pem', 'ſecrets', 'é.pem', 'a\nb.pem', '.netrc', '.NPMRC', 'x.pem\n'];
    // Each pattern's own names, with its wildcards filled in, and stretched at either end.
    for (const p of PATTERNS) {
      for (const last of p.replace(/\/+$/, '').split('/')) {
        const filled = last.replace(/\*/g, 'zz').replace(/\?/g, 'q');
        names.push(filled, filled.toUpperCase(), filled + 'x', 'x' + filled, last.replace(/\*/g, ''), last);
      }
    }
    for (let i = 0; i < 3000; i++) names.push(Array.from({ length: 1 + rnd(9) }, () => alphabet[rnd(alphabet.length)]).join(''));
    const m = BlockMatcher.for(PATTERNS);
    const defaults = BlockMatcher.for(DEFAULT_BLOCKED_PATTERNS);
    let rejected = 0;
    const lastParts = PATTERNS.filter((p) => p.replace(/^\/+|\/+$/g, '').includes('/')).map((p) => new Minimatch(p.replace(/\/+$/, '').split('/').pop()!, opts));
    for (const name of names) {
      const bits = (reference([], name, false) ? 1 : 0) | (reference([], name, true) ? 2 : 0) | (lastParts.some((mm) => mm.match(name)) ? 4 : 0);
      expect(m.nameBits(name), JSON.stringify(name)).toBe(bits);
      // The quick first/last-byte test (active for the default list) never hides a match.
      const blockedSomehow = [[], ['.git'], ['x', '.GIT']].some((parents) => [false, true].some((isDir) => reference(parents, name, isDir, DEFAULT_BLOCKED_PATTERNS)));
      if (blockedSomehow) expect(defaults.mayBlock(name), JSON.stringify(name)).toBe(true);
      if (!defaults.mayBlock(name)) rejected++;
      expect(defaults.blocksComponent(['.git'], name, false)).toBe(reference(['.git'], name, false, DEFAULT_BLOCKED_PATTERNS));
      for (const parents of [[], ['.git'], ['x'], ['xa'], ['a', '.GIT']]) {
        for (const isDir of [false, true]) {
          expect(m.blocksComponent(parents, name, isDir), JSON.stringify({ parents, name, isDir })).toBe(reference(parents, name, isDir));
        }
      }
    }
    expect(rejected).toBeGreaterThan(1000);
  });
});
