// --version: every command answers it (exit 0) with nosh's name for the tool and the one it
// reproduces; the first of --help and --version wins, as getopt meets them. (The text is
// nosh's own, so it is checked here and not against GNU; the abbreviations it makes ambiguous,
// `cp --ve`, are GNU cases.)
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandNames } from '../../commands/index.js';
import { run as runRaw, tempDir } from '../helpers.js';

let root: string;
beforeAll(() => {
  root = tempDir();
  fs.writeFileSync(path.join(root, 'a'), 'x\n');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

async function run(dir: string, line: string): Promise<{ stdout: string; exitCode: number }> {
  const r = await runRaw(dir, line);
  return { stdout: r.stdout.toString(), exitCode: r.exitCode };
}

const reference: Record<string, string> = {
  grep: 'GNU grep 3.8', egrep: 'GNU grep 3.8', fgrep: 'GNU grep 3.8', sed: 'GNU sed 4.9', find: 'GNU findutils 4.9.0', tree: 'tree 2.1.0',
  rev: 'util-linux 2.38.1', xxd: 'xxd 2022-01-14', strings: 'GNU strings (GNU Binutils for Debian) 2.40',
  hexdump: 'hexdump from util-linux 2.38.1', hd: 'hexdump from util-linux 2.38.1',
  git: 'git 2.39', gzip: 'gzip 1.12', gunzip: 'gzip 1.12', zcat: 'gzip 1.12', tar: 'GNU tar 1.34', jq: 'jq 1.7.1', xargs: 'GNU findutils 4.9.0',
  awk: 'GNU Awk 5.2.1', gawk: 'GNU Awk 5.2.1', diff: 'GNU diffutils 3.8', cmp: 'GNU diffutils 3.8', patch: 'GNU patch 2.7.6',
  column: 'util-linux 2.38.1', dos2unix: 'dos2unix 7.4.3 (2022-06-05)', unix2dos: 'dos2unix 7.4.3 (2022-06-05)', file: 'file-5.44 (common types)',
  type: 'bash 5.2 type (nosh commands)', which: 'debianutils 5.7 (nosh commands)',
  zip: 'Zip 3.0 (July 5th 2008), by Info-ZIP.', unzip: 'UnZip 6.00 of 20 April 2009, by Debian. Original by Info-ZIP.', zipinfo: 'ZipInfo 3.00 of 20 April 2009, by Greg Roelofs and the Info-ZIP group.',
};
/** As bash's builtins, which the GNU cases run: they take --version as an operand or ignore it. */
const builtins = new Set(['echo', 'true', 'false', 'pwd', 'test']); // (coreutils test, as its builtin, takes --version as a string: true, silent)
/** Print the real tool's own version text, recorded against it in test/gnu/cases (xxd writes it to stderr; sqlite3's is its version line). */
const ownVersion = new Set(['xxd', 'sqlite3']);

describe('--version', () => {
  it('every command prints what it is compatible with, and exits 0', async () => {
    const names = commandNames().filter((n) => !builtins.has(n) && !ownVersion.has(n));
    expect(names.length).toBeGreaterThan(20);
    for (const name of names) {
      const r = await run(root, `${name} --version`);
      const shown = name === 'egrep' || name === 'fgrep' ? 'grep' : name === 'hd' ? 'hexdump' : name === 'gunzip' || name === 'zcat' ? 'gzip'
        : name === 'gawk' ? 'awk' : name === 'unix2dos' ? 'dos2unix' : name;
      expect({ name, out: r.stdout, code: r.exitCode }).toEqual({ name, out: `${shown} (nosh) compatible with ${reference[name] ?? 'GNU coreutils 9.1'}\n`, code: 0 });
    }
  });

  it('the first of --help and --version wins; an unambiguous prefix works', async () => {
    expect((await run(root, 'wc --version --help')).stdout).toBe('wc (nosh) compatible with GNU coreutils 9.1\n');
    expect((await run(root, 'wc --help --version')).stdout).toMatch(/^Usage: wc/);
    expect((await run(root, 'cat --vers a')).stdout).toBe('cat (nosh) compatible with GNU coreutils 9.1\n');
    expect((await run(root, 'sort --version')).stdout).toBe('sort (nosh) compatible with GNU coreutils 9.1\n');
  });

  it('is listed in --help', async () => {
    expect((await run(root, 'head --help')).stdout).toMatch(/--version +output version information and exit/);
  });
});
