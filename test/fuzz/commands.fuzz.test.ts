// Fuzz suite: every command found in commands/, driven with argv built from its own flag
// declaration (short, long, abbreviated, bundled, attached values, --x=v, missing values,
// unknown flags), odd values and operands from a small fixture zone, and random stdin. Then
// random command lines through the parser + runner. Deterministic: a seeded PRNG
// (NOSH_FUZZ_SEED, default below); NOSH_FUZZ_CASES sets the cases per command.
//
// Invariants checked on every case (the product promise: no escape, no crash, no lost data):
// - no exception escapes; an error envelope only with a known code, never INTERNAL_ERROR;
// - the exit code is one GNU uses (0, 1, 2, or the command's usage status); 127 only for an
//   unknown command, 141 only in a pipeline (broken pipe);
// - stderr lines start with `name: ` (GNU diagnostics and usage errors) or are the usage tail;
// - no host path (zone root, temp dir) in stdout, stderr or the error envelope;
// - the blocked .env's content and the file outside the zone never show up in the output,
//   nor get copied into the zone; no command creates a symlink;
// - nothing outside the zone root changes; a command that does not mutate (per its `mutates`
//   for this argv) leaves the zone tree as it was.
// A failing case prints its argv (JSON) and stdin label, enough to replay it with runArgv.
import * as v8 from 'node:v8';
v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { commandNames, loadAllCommands, loadCommand } from '../../commands/index.js';
import type { CommandDef } from '../../src/command/index.js';
import { ERROR_CODES } from '../../src/errors.js';
import type { ZonePolicy } from '../../src/vfs/index.js';
import { buildTree, run, runArgv, snapshotTree, type RunOutput } from '../helpers.js';
import { ENV_SECRET, OUTSIDE_SECRET, Rng, fixtureTree, genArgs, genLine, hashSeed, randomStdin, type Stdin } from './gen.js';

const SEED = Number(process.env.NOSH_FUZZ_SEED ?? 0x5eed);
const CASES = Number(process.env.NOSH_FUZZ_CASES ?? 80);
const LINES = Number(process.env.NOSH_FUZZ_LINES ?? 1500);
const CASE_TIMEOUT_MS = 5000;
const POLICY = { blockedPatterns: ['.env'] };
/** Most cases run with the default policy; some follow symlinks (inside the zone only), some are read-only. */
const POLICIES: { label: string; policy: Partial<ZonePolicy> }[] = [
  { label: 'default', policy: POLICY },
  { label: 'default', policy: POLICY },
  { label: 'default', policy: POLICY },
  { label: 'default', policy: POLICY },
  { label: 'follow-symlinks', policy: { ...POLICY, followSymlinks: true } },
  { label: 'readonly', policy: { ...POLICY, readonly: true } },
];

let base = '';
let root = '';
let outside = '';
let pristine: string[] = [];
let outsideBefore = '';

function snapshotOutside(): string {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of fs.readdirSync(dir).sort()) {
      const p = path.join(dir, name);
      if (p === root) continue;
      const st = fs.lstatSync(p);
      const rel = path.relative(base, p);
      if (st.isSymbolicLink()) out.push(`${rel} -> ${fs.readlinkSync(p)}`);
      else if (st.isDirectory()) { out.push(`${rel}/ ${st.mtimeMs}`); walk(p); }
      else out.push(`${rel} ${st.mode.toString(8)} ${st.mtimeMs} ${fs.readFileSync(p).toString('base64')}`);
    }
  };
  walk(base);
  return out.join('\n');
}

function buildZone(): void {
  fs.rmSync(root, { recursive: true, force: true });
  buildTree(root, fixtureTree(outside));
}

/** Put the zone back as built when the last case changed it. */
function resetZone(): void {
  const now = snapshotTree(root);
  if (now.length !== pristine.length || now.some((l, i) => l !== pristine[i])) buildZone();
}

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nosh-fuzz-')));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret.txt'), `${OUTSIDE_SECRET}\n`);
  fs.writeFileSync(path.join(base, 'canary.txt'), 'canary\n');
  fs.mkdirSync(path.join(base, 'root-evil'));
  buildZone();
  pristine = snapshotTree(root);
  outsideBefore = snapshotOutside();
});
afterAll(() => {
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

type Outcome = { res: RunOutput; ms: number } | { threw: unknown } | { timeout: true };

async function withTimeout(p: Promise<RunOutput>): Promise<Outcome> {
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Outcome>((resolve) => { timer = setTimeout(() => resolve({ timeout: true }), CASE_TIMEOUT_MS); });
  try {
    return await Promise.race([p.then((res) => ({ res, ms: performance.now() - t0 }), (threw: unknown) => ({ threw })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function hostNeedles(): string[] {
  return [base, root, outside, fs.realpathSync(os.tmpdir()) + '/', os.tmpdir() + '/', '/tmp/'];
}

/** Invariants shared by argv and line cases; returns the problems found. */
function checkCommon(res: RunOutput, input: string, allowedErrors: readonly string[] | null): string[] {
  const problems: string[] = [];
  if (res.error) {
    const known = (ERROR_CODES as readonly string[]).includes(res.error.code);
    if (!known || res.error.code === 'INTERNAL_ERROR' || (allowedErrors && !allowedErrors.includes(res.error.code))) {
      problems.push(`error envelope ${res.error.code}: ${JSON.stringify(res.error)}`);
    }
  }
  const stdout = res.stdout.toString('latin1');
  const texts = { stdout, stderr: res.stderr, error: res.error ? JSON.stringify(res.error) : '' };
  for (const [where, raw] of Object.entries(texts)) {
    // mktemp's names are the zone's own /tmp (a virtual path), not the host's
    const text = raw.replace(/(^|\n)\/tmp\/tmp\.[A-Za-z0-9]{10}\n/g, '$1');
    for (const needle of hostNeedles()) {
      if (text.includes(needle) && !input.includes(needle)) problems.push(`host path ${JSON.stringify(needle)} in ${where}: ${excerpt(text, needle)}`);
    }
    for (const secret of [ENV_SECRET, OUTSIDE_SECRET]) {
      if (text.includes(secret)) problems.push(`secret ${secret} in ${where}: ${excerpt(text, secret)}`);
    }
  }
  const outsideNow = snapshotOutside();
  if (outsideNow !== outsideBefore) problems.push(`outside the zone changed:\n${diffLines(outsideBefore, outsideNow)}`);
  const after = snapshotTree(root);
  // mv may move a link (a rename keeps it); no command may make one, so the count per target never grows.
  const linkCount = (snap: string[]) => {
    const m = new Map<string, number>();
    for (const l of snap) if (l.includes(' -> ')) m.set(l.slice(l.indexOf(' -> ')), (m.get(l.slice(l.indexOf(' -> '))) ?? 0) + 1);
    return m;
  };
  const linksBefore = linkCount(pristine);
  for (const [target, n] of linkCount(after)) {
    if (n > (linksBefore.get(target) ?? 0)) problems.push(`new symlink in the zone${target}: ${after.filter((l) => l.endsWith(target)).join(', ')}`);
  }
  // A secret may sit only in a file still blocked by name (mv of a folder holding .env renames it
  // along), and never in more files than the zone had: nothing reads a blocked file to copy it.
  const secretFiles = (snap: string[]) => snap.filter((l) => !l.includes(' -> ') && !l.endsWith('/')).filter((l) => {
    const content = Buffer.from(l.slice(l.lastIndexOf(' ') + 1), 'base64').toString('latin1');
    return content.includes(ENV_SECRET) || content.includes(OUTSIDE_SECRET);
  }).map((l) => l.split(' ').slice(0, -2).join(' ')); // "path mode base64"; the path may hold spaces
  const secretsNow = secretFiles(after);
  const unblocked = secretsNow.filter((f) => path.basename(f).toLowerCase() !== '.env');
  if (unblocked.length || secretsNow.length > secretFiles(pristine).length) problems.push(`secret copied into the zone: ${secretsNow.join(', ')}`);
  return problems;
}

function excerpt(text: string, needle: string): string {
  const i = text.indexOf(needle);
  return JSON.stringify(text.slice(Math.max(0, i - 80), i + needle.length + 80));
}

function diffLines(a: string, b: string): string {
  const A = new Set(a.split('\n'));
  const B = new Set(b.split('\n'));
  return [...[...A].filter((l) => !B.has(l)).map((l) => `- ${l.slice(0, 200)}`), ...[...B].filter((l) => !A.has(l)).map((l) => `+ ${l.slice(0, 200)}`)].join('\n');
}

/** What a JS error leaking into a diagnostic looks like. */
const JS_LEAK = /^\s+at |\b(TypeError|RangeError|SyntaxError|ReferenceError|Invalid regular expression: \/)|\[object |\bundefined\b|\bNaN\b/;

/**
 * GNU diagnostics: the first line is `prog: message` (or grep's bare `Usage: ...` line);
 * some usage errors continue on further lines (ls/touch "Valid arguments are:" lists, tr's
 * "Two strings must be given when translating.", the "Try 'prog --help'" tail), so later
 * lines are only checked for leaked JS error text.
 */
/** Tools whose diagnostics are not GNU's `prog: message`: the first lines they print instead. */
const INFO_ZIP_FIRST = /^(\s*(zip|unzip|zipinfo)( error| warning| I\/O error)?: |\s*(caution|warning|error|skipping): |  End-of-central-directory signature not found|$)/;
const OWN_FIRST_LINE: Readonly<Record<string, RegExp>> = {
  zip: INFO_ZIP_FIRST, unzip: INFO_ZIP_FIRST, zipinfo: INFO_ZIP_FIRST,
  // the sqlite3 shell: "Error: ...", "Parse error near line N: ...", "Runtime error ..."
  sqlite3: /^(Error: |Parse error( near line \d+)?: |Runtime error)/,
  // bash's builtin says "bash: type: NAME: not found"
  type: /^nosh: type: /,
};

function checkStderr(prefixes: string[], stderr: string): string[] {
  if (stderr === '') return [];
  // gzip 1.12 starts "stdin: not in gzip format" on a line of its own, as the real one does.
  const lines = stderr.split('\n').slice(prefixes.includes('gzip') && stderr.startsWith('\n') ? 1 : 0);
  const problems: string[] = [];
  const own = prefixes.some((p) => Object.hasOwn(OWN_FIRST_LINE, p) && OWN_FIRST_LINE[p]!.test(lines[0]!));
  if (!own && !prefixes.some((p) => lines[0]!.startsWith(`${p}: `)) && !/^Usage:( |\n|$)/.test(lines.join('\n'))) {
    problems.push(`stderr does not start with \`${prefixes.join('|')}: \`: ${JSON.stringify(stderr.slice(0, 400))}`);
  }
  // util-linux column's own message: "undefined column name 'X'"
  const leak = lines.find((l) => JS_LEAK.test(l.replace(/^column: undefined column name /, 'column: ')));
  if (leak !== undefined) problems.push(`stderr looks like a leaked JS error: ${JSON.stringify(leak.slice(0, 300))}`);
  return problems;
}

/** Exit codes a command may return besides 0, 1, 2 and its usage status. */
const EXTRA_CODES: Record<string, number[]> = {
  // GNU sed: 4 = "an I/O error, or a serious processing problem during runtime" (read error on a directory, missing label).
  sed: [4],
  // git: 128 for "fatal:" (unknown revision, bad tag name), 129 for a usage error.
  git: [128, 129],
  // Info-ZIP: 3 damaged archive (or a bomb stopped), 9 not found / not a zip, 11 no matching member,
  // 12 zip "nothing to do", 14 write error, 16 bad arguments (usage statuses are 10 and 16).
  unzip: [3, 9, 11],
  zipinfo: [3, 9, 11],
  zip: [3, 12, 14],
  // GNU tar: 64 (EX_USAGE) for a usage error.
  tar: [64],
  // curl: 7 the network is disabled (the fuzz workspace), 3 a malformed URL, 1 an unsupported protocol;
  // wget: 4 network failure (disabled), 8 an HTTP error, 3 a write error.
  curl: [1, 3, 6, 7, 22, 23, 63],
  wget: [3, 4, 8],
  // xxd: 2 an input file it cannot open, 3 an output file it cannot write.
  xxd: [3],
  // jq 1.7: 3 compile error, 4 -e and no output, 5 a runtime error (halt_error's status is the user's).
  jq: [3, 4, 5],
  // GNU xargs: 123 a command exited 1-125, 124 one exited 255, 125 killed, 126 cannot run, 127 not found.
  xargs: [123, 124, 125, 126, 127],
  // sqlite3 exits with SQLite's primary result code of a failed SQL argument: 8 read-only, 11 corrupt,
  // 14 cannot open, 19 constraint, 20 mismatch, 26 not a database...
  sqlite3: [4, 5, 6, 7, 8, 9, 11, 13, 14, 18, 19, 20, 25, 26],
};

/** sed's q/Q take the exit code as an argument (`q5`): any code is then the user's choice. */
function userExitCode(name: string, args: string[]): boolean {
  return (name === 'sed' && args.some((a) => /[qQ]\s*\d/.test(a))) || (name === 'jq' && args.some((a) => a.includes('halt_error')));
}

/**
 * The names diagnostics may carry: egrep/fgrep are GNU 3.8's wrapper scripts running grep, so
 * grep's own messages say `grep: `; usage errors come from the runner, which uses argv[0].
 */
function diagNames(name: string, def: CommandDef): string[] {
  // xargs: the commands it runs write their own diagnostics
  if (def.name === 'xargs') return [name, ...commandNames()];
  return def.aliases?.includes(name) ? [name, def.name] : [name];
}

function mutatesFor(def: CommandDef, args: string[]): boolean {
  return typeof def.mutates === 'function' ? def.mutates(args) : def.mutates;
}

/** An argument as JS source: runs of one character over 100 long as `'x'.repeat(n)`, so a failure can be replayed. */
function showArg(a: string): string {
  if (a.length <= 100) return JSON.stringify(a);
  const parts: string[] = [];
  for (const m of a.matchAll(/(.)\1{99,}|(?:(?!(.)\2{99}).)+/gs)) {
    parts.push(m[1] !== undefined ? `${JSON.stringify(m[1])}.repeat(${m[0].length})` : JSON.stringify(m[0]));
  }
  return parts.join(' + ');
}

function show(argv: string[], stdin: Stdin): string {
  return `argv=[${argv.map(showArg).join(', ')}] stdin=${stdin.label}`;
}

describe('fuzz: every command with generated argv', async () => {
  const names = commandNames();
  const defs = await loadAllCommands();
  test('the registry loads every command file', () => {
    expect(defs.length).toBe(names.length);
    expect(names.length).toBeGreaterThan(10);
  });
  for (const name of names) {
    test(name, { timeout: 120_000 }, async () => {
      const def = (await loadCommand(name))!;
      const r = new Rng(hashSeed(name, SEED));
      const failures: string[] = [];
      const seen = new Set<string>();
      const codes = new Map<string, number>();
      for (let c = 0; c < CASES; c++) {
        resetZone();
        const args = genArgs(r, name, def);
        const argv = [name, ...args];
        const stdin = randomStdin(r);
        const pol = r.pick(POLICIES);
        let mutates: boolean;
        try {
          mutates = mutatesFor(def, args);
        } catch (e) {
          failures.push(`case ${c}: mutates() threw ${String(e)}\n  ${show(argv, stdin)}`);
          continue;
        }
        const before = snapshotTree(root);
        if (process.env.NOSH_FUZZ_TRACE === name) console.log('case', c, JSON.stringify(argv), stdin.label);
        const out = await withTimeout(runArgv(root, argv, { stdin: stdin.data, policy: pol.policy }));
        const problems: string[] = [];
        if ('timeout' in out) {
          problems.push(`no result after ${CASE_TIMEOUT_MS} ms (hang)`);
          failures.push(`case ${c}: ${problems.join('; ')}\n  ${show(argv, stdin)} policy=${pol.label}`);
          break; // the run goes on in the background: the next cases would see its effects
        }
        if ('threw' in out) {
          problems.push(`exception escaped the runner: ${out.threw instanceof Error ? out.threw.stack : String(out.threw)}`);
        } else {
          const res = out.res;
          const k = res.error ? res.error.code : String(res.exitCode);
          codes.set(k, (codes.get(k) ?? 0) + 1);
          if (process.env.NOSH_FUZZ_TRACE === name) console.log(k, JSON.stringify(argv), JSON.stringify(res.stderr.slice(0, 150)));
          const input = argv.join('\0') + (stdin.data?.toString('latin1') ?? '');
          problems.push(...checkCommon(res, input, null));
          if (!res.error) {
            const allowed = new Set([0, 1, 2, def.usageStatus ?? 2, ...(EXTRA_CODES[def.name] ?? [])]);
            if (!allowed.has(res.exitCode) && !userExitCode(def.name, args)) problems.push(`exit code ${res.exitCode} (allowed: ${[...allowed].join(', ')})`);
            // sed's w/W /dev/stderr writes the user's text to stderr.
            // xargs -t prints each command line it runs on stderr.
            const traced = def.name === 'xargs' && args.some((a) => /^-[^-]*t/.test(a) || a.startsWith('--verb'));
            if (!(def.name === 'sed' && args.some((a) => a.includes('/dev/stderr'))) && !traced) problems.push(...checkStderr(diagNames(name, def), res.stderr));
          }
          if (!mutates || pol.policy.readonly) {
            const after = snapshotTree(root);
            if (after.join('\n') !== before.join('\n')) problems.push(`the zone changed (command not mutating for this argv, or a read-only zone):\n${diffLines(before.join('\n'), after.join('\n'))}`);
          }
        }
        if (problems.length) {
          const key = problems.map((p) => p.slice(0, 40)).join('|');
          if (!seen.has(key) || failures.length < 3) failures.push(`case ${c}: ${problems.join('\n    ')}\n  ${show(argv, stdin)} policy=${pol.label}`);
          seen.add(key);
        }
      }
      if (process.env.NOSH_FUZZ_STATS) console.log(`${name}: ${[...codes].sort().map(([k, v]) => `${k}×${v}`).join(' ')}`);
      expect(failures.slice(0, 12).join('\n\n'), `${failures.length} failing case(s) for ${name} (seed ${SEED})`).toBe('');
    });
  }
});

describe('fuzz: random command lines through the parser and the runner', () => {
  test('only METACHAR_REJECTED / INVALID_ARGUMENT envelopes or normal results', { timeout: 120_000 }, async () => {
    const r = new Rng(hashSeed('command-lines', SEED));
    const failures: string[] = [];
    for (let c = 0; c < LINES; c++) {
      resetZone();
      const line = genLine(r);
      const stdin = r.chance(0.5) ? randomStdin(r) : { label: 'none' } as Stdin;
      const out = await withTimeout(run(root, line, { stdin: stdin.data, policy: POLICY }));
      const where = `line=${JSON.stringify(line)} stdin=${stdin.label}`;
      if ('timeout' in out) {
        failures.push(`case ${c}: no result after ${CASE_TIMEOUT_MS} ms (hang)\n  ${where}`);
        break;
      }
      if ('threw' in out) {
        failures.push(`case ${c}: exception escaped: ${out.threw instanceof Error ? out.threw.stack : String(out.threw)}\n  ${where}`);
        continue;
      }
      const res = out.res;
      const problems = checkCommon(res, line + (stdin.data?.toString('latin1') ?? ''), ['METACHAR_REJECTED', 'INVALID_ARGUMENT']);
      if (!res.error) {
        const allowed = new Set([0, 1, 2, 4, 127, 141]);
        if (!allowed.has(res.exitCode)) problems.push(`exit code ${res.exitCode}`);
        // Several stages share stderr, and an unknown command reports as `nosh: x: command not found`.
        const leak = res.stderr.split('\n').find((l) => JS_LEAK.test(l));
        if (leak !== undefined) problems.push(`stderr looks like a leaked JS error: ${JSON.stringify(leak.slice(0, 300))}`);
        if (res.stderr !== '' && !/^(nosh|\[|[a-z][a-z0-9_-]*): |^Usage: /.test(res.stderr)) problems.push(`stderr not in GNU form: ${JSON.stringify(res.stderr.slice(0, 300))}`);
      }
      if (problems.length) failures.push(`case ${c}: ${problems.join('\n    ')}\n  ${where}`);
    }
    expect(failures.slice(0, 12).join('\n\n'), `${failures.length} failing line(s) (seed ${SEED})`).toBe('');
  });
});
