// The one fnmatch against glibc's own fnmatch(3) (through python3's ctypes), every flag.
import { spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { FNM_CASEFOLD, FNM_LEADING_DIR, FNM_NOESCAPE, FNM_PATHNAME, FNM_PERIOD, fnmatchBytes } from '../../src/gnulib/fnmatch.js';

const patterns = ['*', '?', '*.c', '.*', 'a/*', 'a*c', '[a-c]*', '[!a]*', '[[:alpha:]]*', '[[:foo:]]', '[![:foo:]]', '\\*', 'a\\', '[a-[:digit:]]',
  '*/b', 'a?b', '[.]x', 'A*', '[[:upper:]]*', 'a', 'a/b', '[/]', '\\.x', '[z-a]', 'x[', '*[[:digit:]]'];
const names = ['a', 'abc', '.x', 'x.c', 'a/b', 'a/.b', 'a/b/c', 'Abc', '*', 'a\\', '1', '-', '/', 'a/', 'ab', 'a.c'];
const flagSets = [0, FNM_PATHNAME, FNM_PERIOD, FNM_PATHNAME | FNM_PERIOD, FNM_CASEFOLD, FNM_LEADING_DIR, FNM_PATHNAME | FNM_LEADING_DIR, FNM_NOESCAPE];

describe('fnmatch = glibc fnmatch(3)', () => {
  test('every pattern x name x flags', () => {
    const py = `import ctypes,json,sys
libc=ctypes.CDLL(None); d=json.load(sys.stdin); out=[]
for f in d['flags']:
  for p in d['patterns']:
    for n in d['names']: out.append(libc.fnmatch(p.encode('latin1'), n.encode('latin1'), f)==0)
print(json.dumps(out))`;
    const r = spawnSync('python3', ['-c', py], { input: JSON.stringify({ patterns, names, flags: flagSets }), env: { ...process.env, LC_ALL: 'C' } });
    expect(r.status, r.stderr.toString()).toBe(0);
    const want: boolean[] = JSON.parse(r.stdout.toString());
    const got: boolean[] = [];
    const diff: string[] = [];
    for (const f of flagSets) for (const p of patterns) for (const n of names) {
      const m = fnmatchBytes(p, f).test(n);
      if (m !== want[got.length]) diff.push(`fnmatch(${JSON.stringify(p)}, ${JSON.stringify(n)}, ${f}) = ${m}`);
      got.push(m);
    }
    expect(diff).toEqual([]);
  });
});
