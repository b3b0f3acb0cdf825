// fuzz-diff generator for diff and cmp: node test/gnu/fuzz-diff.mjs diff [seed] [cases]
// Each case writes new files (a fresh fixture per side, the same content): two texts made
// from a small vocabulary (so that lines repeat and match in many ways, which is where GNU's
// discarding, cutoff and shift_boundaries decide the hunks), some derived from the other by
// edits, with blank lines, case and white-space variants, CRs, no final newline, a NUL
// (binary), and a pair of directories. Options: output styles and context sizes, -i -w -b
// -B -Z -a --strip-trailing-cr -q -s -r -N -x, --label; and cmp with -l -s -b -n -i.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** GNU diff of two texts (the patch the patch cases apply). */
function gnuDiff(a, b, opts) {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'nosh-fuzz-patch-'));
  fs.writeFileSync(path.join(d, 'A'), a, 'latin1');
  fs.writeFileSync(path.join(d, 'B'), b, 'latin1');
  const r = spawnSync('diff', [...opts, '--label', 't', '--label', 't', path.join(d, 'A'), path.join(d, 'B')], { env: { LC_ALL: 'C', PATH: process.env.PATH } });
  fs.rmSync(d, { recursive: true, force: true });
  return r.stdout.toString('latin1');
}

export default function diffSpec({ rnd, pick, stampTimes }) {
  const words = ['a', 'b', 'c', 'd', 'A', 'a ', ' a', 'a  b', 'a b', '', '', '\t', 'x\ty', '}', '{', 'int i;', 'return 0;', 'b\r'];
  const text = (n) => {
    const lines = [];
    for (let i = 0; i < n; i++) lines.push(pick(words));
    return lines;
  };
  const edit = (lines) => {
    const out = [...lines];
    for (let k = 1 + rnd(4); k > 0; k--) {
      const at = rnd(out.length + 1);
      const r = rnd(4);
      if (r === 0) out.splice(at, 1 + rnd(3));
      else if (r === 1) out.splice(at, 0, ...text(1 + rnd(3)));
      else if (r === 2) out.splice(at, 1, pick(words));
      else out.splice(at, 0, '');
    }
    return out;
  };
  const join = (lines) => {
    if (!lines.length) return '';
    const eol = rnd(8) === 0 ? '' : '\n';
    return lines.join('\n') + eol;
  };
  let files = null;
  const make = () => {
    const base = text(rnd(5) === 0 ? 60 + rnd(500) : rnd(25));
    const other = rnd(5) === 0 ? text(rnd(25)) : edit(base);
    const f = { a: join(base), b: join(other), e: '', 'd1/x': join(edit(base)), 'd1/y': 'y\n', 'd1/s/z': 'z\n', 'd2/x': join(base), 'd2/w': 'w\n', 'd2/s/z': 'Z\n', 'd1/q.o': 'o\n' };
    if (rnd(12) === 0) f.a = f.a.slice(0, 3) + '\0' + f.a.slice(3);
    if (rnd(10) === 0) f.b = f.a;
    return f;
  };
  return {
    get files() {
      files ??= make();
      return files;
    },
    fresh: true,
    setup(w) {
      stampTimes(w);
    },
    gen() {
      files = make();
      if (rnd(4) === 0) {
        // patch: a diff of base -> other applied to base, or to a text moved and edited around it
        const base = text(5 + rnd(30));
        const other = edit(base);
        const target = rnd(3) === 0 ? base : rnd(2) ? [...text(rnd(6)), ...base] : edit(base);
        const fmt = pick([['-u'], ['-c'], ['-U1'], ['-C1'], ['-U0'], ['-u'], ['-U5']]);
        files = { ...files, t: join(target), 'p.diff': gnuDiff(join(base), join(other), fmt) };
        const argv = ['patch'];
        for (let i = rnd(3); i > 0; i--) argv.push(...pick([['-R'], ['-N'], ['--dry-run'], ['-b'], ['-F0'], ['-F1'], ['-F3'], ['-o', 'out'], ['-s'], ['--no-backup-if-mismatch']]));
        return { argv: [...argv, 't', 'p.diff'], stdin: '' };
      }
      if (rnd(6) === 0) {
        const argv = ['cmp'];
        for (let i = rnd(3); i > 0; i--) argv.push(...pick([['-l'], ['-s'], ['-b'], ['-n', String(rnd(20))], ['-i', String(rnd(5))], ['-bl'], ['--verbose']]));
        argv.push(pick(['a', 'a', 'e']), pick(['b', 'b', 'e', 'nosuch', '-']));
        return { argv, stdin: files.b };
      }
      const argv = ['diff'];
      const style = rnd(6);
      if (style === 1) argv.push('-u');
      else if (style === 5 && rnd(2)) argv.push('-y', ...pick([[], ['-W', String(20 + rnd(60))], ['--suppress-common-lines'], ['--left-column']]));
      else if (style === 2) argv.push(`-U${rnd(5)}`);
      else if (style === 3) argv.push('-c');
      else if (style === 4) argv.push(`-C${rnd(4)}`);
      for (let i = rnd(3); i > 0; i--) argv.push(pick(['-i', '-w', '-b', '-B', '-Z', '-a', '--strip-trailing-cr', '-q', '-s', '-d', '--label=L1']));
      if (rnd(8) === 0) argv.push('-r', ...pick([['d1', 'd2'], ['-N', 'd1', 'd2'], ['-x', '*.o', 'd1', 'd2'], ['d2', 'd1']]));
      else argv.push(...pick([['a', 'b'], ['a', 'b'], ['a', 'b'], ['b', 'a'], ['a', 'e'], ['e', 'b'], ['a', 'a'], ['a', 'nosuch'], ['-', 'b']]));
      return { argv, stdin: files.a };
    },
    // -u/-c headers carry the fixture's times (stamped alike on both sides); stdin's is the clock.
    // patch's "(different line endings)" note after a failed hunk is a documented deviation.
    normalize: (out) => out.replace(/^(---|\+\+\+|\*\*\*) -\t.*$/gm, '$1 -').replace(/ \(different line endings\)/g, ''),
  };
}
