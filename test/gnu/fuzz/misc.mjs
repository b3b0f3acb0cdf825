// fuzz-diff generator for cat, echo, basename, dirname, stat and tee (one command per case):
//   node test/gnu/fuzz-diff.mjs misc [seed] [cases]
// Left out on purpose (README, "Known deviations"): tee -p/--output-error (not offered);
// cat or tee through a symlink (not followed: skipped by nosh's message); stat -f (not
// offered); stat %m (the zone root is its mount point) and `-` (a file named -); --help and
// --version (nosh's own text).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export default ({ rnd, pick, stampTimes }) => {
  const bytes = (s) => Buffer.from(s, 'latin1');
  let cmd = '';

  // An option none of them has, or one given a bad value: usage errors (exit 1).
  const bad = () => (rnd(15) ? [] : [pick(['-x', '--nope', '-', '--', '-Q', '--zero=1', '--help=x', '--verbose'])]);

  // GNU getopt permutes: options may come after operands (until a `--`).
  const mix = (flags, ops) => {
    const out = [...ops];
    for (const f of flags) out.splice(rnd(2) ? 0 : rnd(out.length + 1), 0, f);
    return out.includes('--') ? [...flags, ...ops] : out;
  };

  const catCase = () => {
    const flags = [];
    for (let i = rnd(4); i > 0; i--) {
      flags.push(pick(['-A', '-b', '-e', '-E', '-n', '-s', '-t', '-T', '-v', '-u', '-bn', '-nb', '-sn', '-vET', '-ns',
        '--number', '--number-nonblank', '--squeeze-blank', '--show-all', '--show-ends', '--show-tabs', '--show-nonprinting', '--num']));
    }
    const ops = [];
    for (let i = rnd(4); i > 0; i--) ops.push(pick(['ctl', 'blank', 'nonl', 'crlf', 'a.txt', 'empty', '-', '-', 'd', 'nosuch', 'hi', 'cr', 'big', "it's", 'é', '-x']));
    if (rnd(8) === 0) ops.splice(rnd(ops.length + 1), 0, '--');
    const pieces = ['a', 'b\n', '\n', '\n\n', '\n\n\n', '\t', '\r', '\r\n', '\x00', '\x01', '\x1b', '\x7f', '\x80', '\x9f', '\xa0', '\xff', '\xe9', ' ', 'xyz'];
    let stdin = '';
    for (let i = rnd(10); i > 0; i--) stdin += pick(pieces);
    return { argv: ['cat', ...mix([...flags, ...bad()], ops)], stdin };
  };

  const echoCase = () => {
    const flags = [];
    for (let i = rnd(3); i > 0; i--) flags.push(pick(['-n', '-e', '-E', '-ne', '-en', '-eE', '-Ee', '-nEe', '-x', '-', '--', '-nx', '-N']));
    const atoms = ['a', ' ', '\\', '\\\\', '\\a', '\\b', '\\c', '\\e', '\\f', '\\n', '\\r', '\\t', '\\v', '\\0', '\\01', '\\0101', '\\01234',
      '\\08', '\\101', '\\1', '\\18', '\\7', '\\777', '\\x', '\\x4', '\\x41', '\\x4g', '\\xfF', '\\xG', '\\q', '\\z', '\\"', "\\'", '\\u0041', '\\%',
      '-n', '-e', '7', 'x'];
    const words = [];
    for (let i = rnd(4); i > 0; i--) {
      let w = '';
      for (let j = rnd(4); j > 0; j--) w += pick(atoms);
      words.push(w);
    }
    return { argv: ['echo', ...flags, ...words] };
  };

  const pathWord = () => pick(['', '/', '//', '///', 'a', 'a/', 'a//', '/a', '//a', '//a//b//', 'a/b', 'a/b/', '/a/b/c.txt', 'c.txt', '.txt', 'x.txt.txt',
    '.', '..', './', '../a', 'a/./b', '-', '--', '-a', '-z', '-s', 'txt', 'b.c/', 'a b/c d', '/usr//lib/', 'é/ü']);

  const basenameCase = () => {
    const flags = [];
    for (let i = rnd(3); i > 0; i--) flags.push(...pick(['-a', '-z', '-az', '-s .txt', '-s txt', '-s c', '--suffix=.txt', '--suffix=', '-s /', '--multiple', '--zero', '-zs .c', '-as x']).split(' '));
    const ops = [];
    for (let i = rnd(4); i > 0; i--) ops.push(rnd(6) ? pathWord() : pick(['.txt', 'txt', 'c.txt', '/']));
    if (rnd(8) === 0) ops.unshift('--');
    return { argv: ['basename', ...bad(), ...flags, ...ops] };
  };

  const dirnameCase = () => {
    const flags = [];
    for (let i = rnd(2); i > 0; i--) flags.push(pick(['-z', '--zero', '--', '--ze']));
    const ops = [];
    for (let i = rnd(5); i > 0; i--) ops.push(pathWord());
    return { argv: ['dirname', ...mix([...bad(), ...flags], ops)] };
  };

  const statCase = () => {
    // Everything is compared as is: both sides stat the same files (no fresh copy), so
    // inodes, devices, ctimes and birth times agree.
    const dirs = ['n', 'N', 's', 'b', 'B', 'f', 'F', 'a', 'A', 'h', 'i', 'u', 'g', 'U', 'G', 'x', 'X', 'y', 'Y', 'z', 'Z', 'w', 'W',
      'o', 't', 'T', 'd', 'D', 'r', 'R', 'Hd', 'Ld', 'Hr', 'Lr', '%', 'q', 'k', 'C'];
    const directive = () => '%' + pick(['', '', '', '-', '0', '#', '+', ' ', '-0', "'", 'I']) + pick(['', '', '', '5', '12', '1', '08', '20', '2147483648'])
      + pick(['', '', '', '.3', '.', '.0', '.9', '.12', '.1']) + pick(dirs);
    const lit = () => pick(['|', ' ', 'x', '\\n', '\\t', '\\\\', '\\101', '\\x41', '\\q', '\\', '\\0', '\\"', '\n', 'é', '\\c', '\\400', '\\0101', '\\x', '\\xZ', '\\u00e9', "'", '%', '%%']);
    let format = '';
    for (let i = 1 + rnd(5); i > 0; i--) format += rnd(3) ? directive() : lit();
    const how = pick([() => ['-c', format], () => ['--printf', format], () => [`--printf=${format}\\n`], () => [`--format=${format}`],
      () => ['-t'], () => [], () => ['-c', format, '-t'], () => ['-t', '-c', format]])();
    if (rnd(4) === 0) how.unshift(pick(['-L', '--dereference', '--cached=never', '--cached=a', '--cached=x']));
    const ops = [];
    for (let i = 1 + rnd(3); i > 0; i--) {
      ops.push(pick(['a.txt', 'empty', 'ctl', 'd', 'd/', 'd/in', 'ln', 'dang', 'dirln', 'exe', 'ro', 'sticky', '.', '..', 'nosuch', 'a.txt/', 'ln/', 'sp ace', "it's", 'new\nline', 'tab\there', 'é', '-x', '--', 'd//in', './d/../a.txt', '../sp/fifo', '../sp/null', '../sp/blk', '../sp/sock', 'hard', '../sp/sparse']));
    }
    return { argv: ['stat', ...bad().filter((a) => a !== '-'), ...how, ...ops] };
  };

  const teeCase = () => {
    const flags = [];
    for (let i = rnd(3); i > 0; i--) flags.push(pick(['-a', '-i', '-ai', '--append', '--ignore-interrupts', '--']));
    const ops = [];
    for (let i = rnd(4); i > 0; i--) ops.push(pick(['out', 'out', 'a.txt', 'empty', 'd', 'd/', 'd/new', 'nodir/x', 'a.txt/x', 'ro', 'ln', 'dang', 'dirln', '-', 'd/.', '.', 'sp ace', './out', 'd/../out', 'd//new', './a.txt', 'sticky/n']));
    let stdin = '';
    for (let i = rnd(4); i > 0; i--) stdin += pick(['x', 'line\n', '\n', '\xff\x00', 'y'.repeat(9000)]);
    return { argv: ['tee', ...mix([...bad(), ...flags], ops)], stdin };
  };

  const gens = { cat: catCase, echo: echoCase, basename: basenameCase, dirname: dirnameCase, stat: statCase, tee: teeCase };
  return {
    files: {
      'a.txt': 'hello\nworld\n', empty: '', ctl: bytes('\x00\x01\t\x1b[1m\x7f\x80\x9f\xa0\xe9\xff end\n\tx\n'), blank: '\n\n\na\n\n\n\nb\n\n',
      nonl: 'no final newline', crlf: 'a\r\nb\r\n\r\n', cr: 'x\ry\r', hi: bytes('\xc3\xa9\xe2\x82\xac\n'), 'd/in': 'in\n', 'sp ace': 's\n',
      exe: '#!/bin/sh\n', ro: 'ro\n', 'sticky/': null,
      "it's": 'q', 'new\nline': 'n', 'tab\there': 't', 'é': 'e', '-x': 'dash', 'big': 'line\r\n\n\n'.repeat(20000),
    },
    // Only tee changes files: it runs on a fresh copy for each side and the trees are compared.
    get fresh() { return cmd === 'tee'; },
    setup(w) {
      fs.symlinkSync('a.txt', path.join(w, 'ln'));
      fs.symlinkSync('nowhere', path.join(w, 'dang'));
      fs.symlinkSync('d', path.join(w, 'dirln'));
      fs.chmodSync(path.join(w, 'exe'), 0o755);
      fs.chmodSync(path.join(w, 'ro'), 0o444);
      fs.chmodSync(path.join(w, 'sticky'), 0o1777);
      // Special files and a 5 GB sparse one, for stat only, beside w: cat or tee (and the
      // tree snapshot after tee) would block on the FIFO.
      const sp = path.join(w, '../sp');
      fs.mkdirSync(sp);
      spawnSync('mkfifo', ['fifo'], { cwd: sp });
      spawnSync('mknod', ['null', 'c', '1', '3'], { cwd: sp });
      spawnSync('mknod', ['blk', 'b', '7', '0'], { cwd: sp });
      spawnSync('python3', ['-c', 'import socket; socket.socket(socket.AF_UNIX).bind("sock")'], { cwd: sp });
      // An unknown owner, a hard link.
      fs.chownSync(path.join(w, 'ro'), 12345, 54321);
      fs.linkSync(path.join(w, 'exe'), path.join(w, 'hard'));
      fs.writeFileSync(path.join(sp, 'sparse'), '');
      fs.truncateSync(path.join(sp, 'sparse'), 5_000_000_000);
      stampTimes(w);
      for (const l of ['ln', 'dang', 'dirln']) fs.lutimesSync(path.join(w, l), 1_600_000_000, 1_600_000_000);
      fs.utimesSync(w, 1_500_000_000, 1_500_000_000);
      // Access times after the change times (and in the future), so that with relatime no
      // read of GNU's (cat, stat's readlink) changes the atime nosh sees next.
      const future = 4_000_000_000;
      for (const n of fs.readdirSync(w, { recursive: true })) {
        const p = path.join(w, n);
        const st = fs.lstatSync(p);
        fs.lutimesSync(p, future, st.mtimeMs / 1000);
      }
      fs.lutimesSync(w, future, 1_500_000_000);
    },
    // Symlinks are not followed (README): tee through one is refused.
    skip: (mine) => mine.stderr.includes('(zone policy)'),
    gen() {
      cmd = pick(['cat', 'cat', 'echo', 'echo', 'basename', 'dirname', 'stat', 'stat', 'stat', 'tee']);
      return gens[cmd]();
    },
  };
};
