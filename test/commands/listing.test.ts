// ls, stat, tree: what the GNU fixtures cannot show (zone policy, inode/device/ctime/birth
// fields, recent dates, symlink deviations) and the shared formatting helpers.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { buildTree, run, tempDir } from '../helpers.js';
import { devMajor, devMinor, humanSize, lsTime, modeString } from '../../src/gnulib/format.js';

const scratch = tempDir('nosh-listing-');
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
let n = 0;
function zone(tree: Record<string, unknown>): string {
  const root = path.join(scratch, `z${n++}`);
  buildTree(root, tree);
  return root;
}

const BLOCK = { policy: { blockedPatterns: ['.env'] } };
const hasGnuStat = spawnSync('stat', ['--version'], { encoding: 'utf8' }).stdout?.includes('GNU coreutils') ?? false;

describe('format helpers', () => {
  test('humanSize matches GNU ls -h (values recorded from ls 9.1)', () => {
    const gnu: [number, string][] = [
      [0, '0'], [1, '1'], [999, '999'], [1000, '1000'], [1023, '1023'], [1024, '1.0K'], [1025, '1.1K'], [1126, '1.1K'],
      [1127, '1.2K'], [2047, '2.0K'], [2048, '2.0K'], [9215, '9.0K'], [9216, '9.0K'], [10239, '10K'], [10240, '10K'],
      [10241, '11K'], [102400, '100K'], [1048575, '1.0M'], [1048576, '1.0M'], [1048577, '1.1M'], [1073741824, '1.0G'],
      [5000000000, '4.7G'], [1099511627776, '1.0T'],
    ];
    for (const [v, s] of gnu) expect(humanSize(v), String(v)).toBe(s);
  });

  test('modeString covers every type and special bit', () => {
    expect(modeString(0o100644)).toBe('-rw-r--r--');
    expect(modeString(0o040755)).toBe('drwxr-xr-x');
    expect(modeString(0o120777)).toBe('lrwxrwxrwx');
    expect(modeString(0o104755)).toBe('-rwsr-xr-x');
    expect(modeString(0o102644)).toBe('-rw-r-Sr--');
    expect(modeString(0o041777)).toBe('drwxrwxrwt');
    expect(modeString(0o041770)).toBe('drwxrwx--T');
    expect(modeString(0o010600)).toBe('prw-------');
    expect(modeString(0o140755)).toBe('srwxr-xr-x');
    expect(modeString(0o020620)).toBe('crw--w----');
    expect(modeString(0o060660)).toBe('brw-rw----');
  });

  test('lsTime: six-month rule, future dates are old', () => {
    const now = { sec: Date.UTC(2026, 10, 22, 12, 0, 0) / 1000, nsec: 0 };
    expect(lsTime({ sec: now.sec - 3600, nsec: 0 }, now)).toBe('Nov 22 11:00');
    expect(lsTime({ sec: now.sec - 15778476 + 1, nsec: 0 }, now)).toMatch(/^May 23 \d\d:\d\d$/);
    expect(lsTime({ sec: now.sec - 15778476 - 1, nsec: 0 }, now)).toBe('May 23  2026');
    expect(lsTime({ sec: now.sec + 60, nsec: 0 }, now)).toBe('Nov 22  2026');
    expect(lsTime({ sec: Date.UTC(2024, 0, 2, 3, 4, 5) / 1000, nsec: 0 }, now)).toBe('Jan  2  2024');
  });

  test('device numbers split as glibc does', () => {
    expect([devMajor(0xfe00), devMinor(0xfe00)]).toEqual([254, 0]);
    expect([devMajor(0x803), devMinor(0x803)]).toEqual([8, 3]);
    expect([devMajor(0x100300), devMinor(0x100300)]).toEqual([3, 256]);
  });
});

describe('blocked files (zone policy)', () => {
  const tree = { '.env': 'SECRET=1', 'a.txt': 'a', 'sub/.env': 'x', 'sub/b': 'b' };

  test('ls hides them in listings and refuses them as operands', async () => {
    const root = zone(tree);
    let r = await run(root, 'ls -a', BLOCK);
    expect(r.stdout.toString()).toBe('.\n..\na.txt\nsub\n');
    r = await run(root, 'ls -AR', BLOCK);
    expect(r.stdout.toString()).toBe('.:\na.txt\nsub\n\n./sub:\nb\n');
    r = await run(root, 'ls -l', BLOCK);
    expect(r.stdout.toString()).not.toContain('.env');
    r = await run(root, 'ls .env a.txt', BLOCK);
    expect(r.stderr).toBe("ls: cannot access '.env': Permission denied (blocked by zone policy)\n");
    expect(r.stdout.toString()).toBe('a.txt\n');
    expect(r.exitCode).toBe(2);
    r = await run(root, 'ls -l sub/.env', BLOCK);
    expect(r.stderr).toBe("ls: cannot access 'sub/.env': Permission denied (blocked by zone policy)\n");
    expect(r.exitCode).toBe(2);
  });

  test('stat refuses them', async () => {
    const root = zone(tree);
    const r = await run(root, 'stat -c %n .env a.txt', BLOCK);
    expect(r.stderr).toBe("stat: cannot statx '.env': Permission denied (blocked by zone policy)\n");
    expect(r.stdout.toString()).toBe('a.txt\n');
    expect(r.exitCode).toBe(1);
  });

  test('tree neither shows nor counts them, and says why a blocked root fails', async () => {
    const root = zone(tree);
    let r = await run(root, 'tree -a', BLOCK);
    expect(r.stdout.toString()).toBe(".\n|-- a.txt\n`-- sub\n    `-- b\n\n2 directories, 2 files\n");
    r = await run(root, 'tree .env', BLOCK);
    expect(r.stdout.toString()).toBe('.env  [error opening dir]\n\n0 directories, 0 files\n');
    expect(r.stderr).toBe('tree: .env: Permission denied (blocked by zone policy)\n');
    expect(r.exitCode).toBe(2);
  });
});

describe('options GNU has and nosh does not', () => {
  test('are usage errors naming them; abbreviations resolve against GNU\'s whole table', async () => {
    const root = zone({ a: '' });
    for (const [cmd, msg, code] of [
      ['ls --dired', "ls: unrecognized option '--dired'", 2],
      ['ls -f', "ls: invalid option -- 'f'", 2],
      ['ls --dir', "ls: option '--dir' is ambiguous; possibilities: '--directory' '--dired'", 2],
      ['stat --file-system a', "stat: unrecognized option '--file-system'", 1],
      ['stat --fi a', "stat: unrecognized option '--fi'", 1],
      ['stat -f a', "stat: invalid option -- 'f'", 1],
    ] as const) {
      const r = await run(root, cmd);
      expect(r.stderr, cmd).toBe(`${msg}\nTry '${cmd.split(' ')[0]} --help' for more information.\n`);
      expect(r.exitCode, cmd).toBe(code);
    }
  });
});

describe('ls', () => {
  test('recent files show the time of day', async () => {
    const root = zone({ f: 'x' });
    const t = new Date(Date.now() - 3600_000);
    fs.utimesSync(path.join(root, 'f'), t, t);
    const r = await run(root, 'ls -l f');
    const mon = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][t.getUTCMonth()];
    const hhmm = `${String(t.getUTCHours()).padStart(2, '0')}:${String(t.getUTCMinutes()).padStart(2, '0')}`;
    expect(r.stdout.toString()).toContain(`${mon} ${String(t.getUTCDate()).padStart(2, ' ')} ${hhmm} f\n`);
  });

  test('a symlink to a directory operand is listed as a link unless the zone follows symlinks', async () => {
    const root = zone({ 'd/x': '1', l: { symlink: 'd' } });
    let r = await run(root, 'ls l');
    expect(r.stdout.toString()).toBe('l\n');
    r = await run(root, 'ls l', { policy: { followSymlinks: true } });
    expect(r.stdout.toString()).toBe('x\n');
    r = await run(root, 'ls l/');
    expect(r.stderr).toBe("ls: cannot access 'l/': Symbolic link not followed (zone policy)\n");
    expect(r.exitCode).toBe(2);
    r = await run(root, 'ls -lF l');
    expect(r.stdout.toString()).toMatch(/ l -> d\/\n$/);
  });

  test('where symlinks are followed, an operand link that loops is an error; a dangling one is listed (GNU 9.1)', async () => {
    const root = zone({ loop: { symlink: 'loop' }, gone: { symlink: 'nowhere' } });
    const r = await run(root, 'ls loop gone', { policy: { followSymlinks: true } });
    expect(r.stdout.toString()).toBe('gone\n');
    expect(r.stderr).toBe("ls: cannot access 'loop': Too many levels of symbolic links\n");
    expect(r.exitCode).toBe(2);
  });

  test.skipIf(process.getuid?.() !== 0)('ls -l right-aligns an owner or group without a name (GNU format_user_or_group)', async () => {
    const root = zone({ a: '', b: '', c: '' });
    fs.chownSync(path.join(root, 'a'), 54321, 54321);
    fs.chownSync(path.join(root, 'c'), 123456, 0);
    const r = await run(root, 'ls -l');
    const lines = r.stdout.toString().split('\n');
    expect(lines[1]).toMatch(/^-rw-r--r-- 1  54321 54321 0 /);
    expect(lines[2]).toMatch(/^-rw-r--r-- 1 root   root  0 /);
    expect(lines[3]).toMatch(/^-rw-r--r-- 1 123456 root  0 /);
  });

  test('a link pointing outside the zone is masked', async () => {
    const root = zone({ out: { symlink: '/etc/passwd' } });
    const r = await run(root, 'ls -l out');
    expect(r.stdout.toString()).toMatch(/ out -> \(outside the zone\)\n$/);
    expect(r.stdout.toString()).not.toContain('/etc');
  });

  test('at the zone root, .. is the root itself', async () => {
    const root = zone({ a: '' });
    const r = await run(root, 'ls -a ..');
    expect(r.stdout.toString()).toBe('.\n..\na\n');
  });
});

describe('ls -R and tree through open directories', () => {
  /** d/d/.../d, 300 levels, each with f.txt: past the 128 directories a walk keeps open. */
  function deep(levels: number): string {
    const root = zone({});
    let dir = root;
    for (let i = 0; i < levels; i++) {
      dir = path.join(dir, 'd');
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'f.txt'), 'x');
    }
    return root;
  }

  test('300 levels: the bytes GNU prints (each directory, then its subdirectory)', async () => {
    const root = deep(300);
    const blocks: string[] = [];
    for (let i = 1; i <= 300; i++) blocks.push(`${Array(i).fill('d').join('/')}:\n${i < 300 ? 'd\n' : ''}f.txt\n`);
    const r = await run(root, 'ls -R d', { maxOutputBytes: 5_000_000 });
    expect(r.stdout.toString()).toBe(blocks.join('\n'));
    expect(r.exitCode).toBe(0);
  });

  test('tree over 300 levels: the shape GNU tree prints (5 levels recorded from tree 2.1)', async () => {
    // LC_ALL=C tree d over d/d/d/d/d, each with f.txt, printed:
    // d / |-- d / |   |-- d / ... / |   |   |   |   `-- f.txt / ... / `-- f.txt, then "5 directories, 5 files".
    const shape = (levels: number): string => {
      const lines = ['d'];
      for (let i = 1; i < levels; i++) lines.push('|   '.repeat(i - 1) + '|-- d');
      for (let i = levels; i >= 1; i--) lines.push('|   '.repeat(i - 1) + '`-- f.txt');
      return lines.join('\n') + `\n\n${levels} directories, ${levels} files\n`;
    };
    expect((await run(deep(5), 'tree d')).stdout.toString()).toBe([
      'd', '|-- d', '|   |-- d', '|   |   |-- d', '|   |   |   |-- d', '|   |   |   |   `-- f.txt',
      '|   |   |   `-- f.txt', '|   |   `-- f.txt', '|   `-- f.txt', '`-- f.txt', '', '5 directories, 5 files', ''].join('\n'));
    expect(shape(5)).toBe((await run(deep(5), 'tree d')).stdout.toString());
    const r = await run(deep(300), 'tree d', { maxOutputBytes: 5_000_000 });
    expect(r.stdout.toString()).toBe(shape(300));
  });

  test('ls -R or tree stopped by the output cap closes the directories it kept open', async () => {
    // Each level has two subdirectories: the second waits, its directory open, while the
    // first is listed; 100 KB of names deep down make ls write (and hit the cap) mid-walk.
    const root = zone({});
    let dir = root;
    for (let i = 0; i < 50; i++) {
      fs.mkdirSync(path.join(dir, 'b', 'x'), { recursive: true });
      dir = path.join(dir, 'a');
      fs.mkdirSync(dir);
    }
    for (let i = 0; i < 3000; i++) fs.writeFileSync(path.join(dir, `a-file-with-a-longer-name-${i}`), '');
    const fds = () => fs.readdirSync('/proc/self/fd').length;
    await run(root, 'ls -R a', { maxOutputBytes: 300 });
    const before = fds();
    const r = await run(root, 'ls -R a', { maxOutputBytes: 300 });
    expect(r.truncated).toBe(true);
    expect(fds()).toBe(before);
    const t = await run(root, 'tree a', { maxOutputBytes: 300 });
    expect(t.truncated).toBe(true);
    expect(fds()).toBe(before);
  });
});

describe('stat', () => {
  test('default format: every field from the file itself', async () => {
    const root = zone({ 'a b': 'hello\n' });
    const p = path.join(root, 'a b');
    const r = await run(root, "stat 'a b'");
    const st = fs.statSync(p, { bigint: true });
    const lines = r.stdout.toString().split('\n');
    const dev = Number(st.dev);
    const major = devMajor(dev);
    const minor = devMinor(dev);
    expect(lines[0]).toBe('  File: a b');
    expect(lines[1]).toBe(`  Size: ${String(st.size).padEnd(10)}\tBlocks: ${String(st.blocks).padEnd(10)} IO Block: ${String(st.blksize).padEnd(6)} regular file`);
    expect(lines[2]).toBe(`Device: ${major},${minor}\tInode: ${String(st.ino).padEnd(10)}  Links: 1`);
    expect(lines[3]).toMatch(/^Access: \(0644\/-rw-r--r--\)  Uid: \( *\d+\/ *\S+\)   Gid: \( *\d+\/ *\S+\)$/);
    expect(lines[4]).toBe('Access: 2024-01-02 03:04:05.000000000 +0000');
    expect(lines[5]).toBe('Modify: 2024-01-02 03:04:05.000000000 +0000');
    const ns = (t: bigint) => Number(t);
    const parse = (line: string) => {
      const m = /^(?:Change| Birth): (\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{9}) \+0000$/.exec(line)!;
      expect(m, line).not.toBeNull();
      return (Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) / 1000) * 1e9 + Number(m[7]);
    };
    // Change/Birth come from millisecond doubles: exact to well under a microsecond.
    expect(Math.abs(parse(lines[6]!) - ns(st.ctimeNs))).toBeLessThan(1000);
    if (st.birthtimeNs > 0n) expect(Math.abs(parse(lines[7]!) - ns(st.birthtimeNs))).toBeLessThan(1000);
    else expect(lines[7]).toBe(' Birth: -');
    expect(lines.length).toBe(9);
  });

  test.skipIf(!hasGnuStat)('default and terse output equal GNU stat on the same files (but sub-µs digits)', async () => {
    const root = zone({ f: 'data', d: null, l: { symlink: 'f' }, 'x y': '' });
    // Reading the link bumps an atime not newer than its ctime (relatime): put it in the future.
    fs.lutimesSync(path.join(root, "l"), new Date(Date.now() + 3_600_000), new Date(Date.UTC(2024, 0, 2)));
    const gnu = spawnSync('stat', ['f', 'd', 'l', 'x y'], { cwd: root, env: { LC_ALL: 'C', TZ: 'UTC', PATH: process.env.PATH }, encoding: 'utf8' }).stdout;
    const ours = (await run(root, "stat f d l 'x y'")).stdout.toString();
    const coarse = (s: string) => s.replace(/(\d\d:\d\d:\d\d\.\d{6})\d{3}/g, '$1');
    expect(coarse(ours)).toBe(coarse(gnu));
    const gnuT = spawnSync('stat', ['-t', 'f', 'd'], { cwd: root, env: { LC_ALL: 'C', TZ: 'UTC', PATH: process.env.PATH }, encoding: 'utf8' }).stdout;
    expect((await run(root, 'stat -t f d')).stdout.toString()).toBe(gnuT);
    const fmt = '%i %d %D %Hd %Ld %Z %W %z';
    const gnuC = spawnSync('stat', ['-c', fmt, 'f'], { cwd: root, env: { LC_ALL: 'C', TZ: 'UTC', PATH: process.env.PATH }, encoding: 'utf8' }).stdout;
    expect(coarse((await run(root, `stat -c '${fmt}' f`)).stdout.toString())).toBe(coarse(gnuC));
  });

  test('-L is refused unless the zone follows symlinks', async () => {
    const root = zone({ f: 'data', l: { symlink: 'f' } });
    let r = await run(root, 'stat -L -c %s l');
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^stat: cannot dereference \(-L\): .*zone policy/);
    expect(r.stdout.toString()).toBe('');
    r = await run(root, 'stat -L -c %s:%F l', { policy: { followSymlinks: true } });
    expect(r.stdout.toString()).toBe('4:regular file\n');
    r = await run(root, 'stat -c %s:%F l');
    expect(r.stdout.toString()).toBe('1:symbolic link\n');
  });

  test('%m is the zone root; host paths never appear', async () => {
    const root = zone({ f: '', out: { symlink: '/etc/passwd' } });
    const r = await run(root, 'stat -c "%m %N" f out');
    expect(r.stdout.toString()).toBe("/ 'f'\n/ 'out' -> '(outside the zone)'\n");
  });
});

describe('tree', () => {
  test('a symlinked root is not followed unless the zone allows it', async () => {
    const root = zone({ 'd/x': '1', l: { symlink: 'd' } });
    let r = await run(root, 'tree l');
    expect(r.stdout.toString()).toBe('l  [error opening dir]\n\n0 directories, 1 file\n');
    expect(r.stderr).toBe('tree: l: Symbolic link not followed (zone policy)\n');
    r = await run(root, 'tree l', { policy: { followSymlinks: true } });
    expect(r.stdout.toString()).toBe('l\n`-- x\n\n1 directory, 1 file\n');
  });

  test('-I patterns are tree\'s patmatch, never a regex: long ones work, thousands of * are a diagnostic', async () => {
    const root = zone({ a: '', yy: '' });
    let r = await run(root, `tree --noreport -I '${'y'.repeat(70000)}|a'`);
    expect(r.stdout.toString()).toBe('.\n`-- yy\n');
    r = await run(root, `tree -I '${'*'.repeat(70000)}'`);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe('tree: -I pattern too complex (too many *); use a shorter pattern.\n');
  });

  test('large trees stream and count', async () => {
    const spec: Record<string, string> = {};
    for (let i = 0; i < 300; i++) spec[`d${i % 10}/f${String(i).padStart(3, '0')}`] = '';
    const root = zone(spec);
    const r = await run(root, 'tree --noreport');
    expect(r.stdout.toString().split('\n').length).toBe(1 + 310 + 1);
    const r2 = await run(root, 'tree -d');
    expect(r2.stdout.toString().endsWith('\n11 directories\n')).toBe(true);
  });
});
