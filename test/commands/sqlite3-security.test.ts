// sqlite3 has no way out of the zone: the dot-commands and SQL that reach a shell, native code
// or host files are refused by name, and every file it names is a path of the zone (through createNosh).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

const base = tempDir('nosh-sqlite-sec-');
const root = path.join(base, 'zone');
const outside = path.join(base, 'outside');
let nosh: Nosh;

function hostDb(file: string, sql: string): void {
  execFileSync('sqlite3', [file, sql]);
}

beforeAll(async () => {
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
  hostDb(path.join(outside, 'secret.db'), "create table t(s); insert into t values('TOP-SECRET')");
  fs.copyFileSync(path.join(outside, 'secret.db'), path.join(base, 'other.db'));
  fs.symlinkSync(path.join(outside, 'secret.db'), path.join(root, 'link.db'));
  hostDb(path.join(root, 'in.db'), "create table t(a); insert into t values(1)");
  hostDb(path.join(root, 'side.db'), "create table s(b); insert into s values('side')");
  nosh = await createNosh({ root, threads: 1 });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(base, { recursive: true, force: true });
});

async function run(command: string, stdin?: string) {
  return nosh.exec({ command }, stdin === undefined ? {} : { stdin });
}

/** A path refusal: the error envelope, or the command's own report of the Vfs refusal (exit 1). */
async function pathRefused(command: string, stdin?: string): Promise<string> {
  const r = await run(command, stdin);
  const text = JSON.stringify(r);
  expect(text).not.toContain('TOP-SECRET');
  expect(text).not.toContain(outside);
  if (!r.success) {
    expect(r.error.code).toBe('PATH_ESCAPE');
    return r.error.message;
  }
  expect(r.data.exit_code).toBe(1);
  expect(r.data.stderr).toMatch(/Symbolic link not followed|leaves the zone/);
  return r.data.stderr;
}

async function refused(command: string, stdin?: string): Promise<{ code: string; message: string; hint: string }> {
  const r = await run(command, stdin);
  expect(r.success, JSON.stringify(r)).toBe(false);
  if (r.success) throw new Error('not refused');
  return r.error;
}

describe('sqlite3 refuses by name what reaches outside', () => {
  for (const dot of ['.shell ls', '.system ls', '.load /usr/lib/x.so', '.excel', '.www', ".shell 'cat /etc/passwd'"]) {
    it(`${dot} (argument and stdin)`, async () => {
      const e = await refused(`sqlite3 in.db '${dot.replace(/'/g, '')}'`);
      expect(e.code).toBe('COMMAND_FORBIDDEN');
      expect(e.message).toContain(dot.split(' ')[0]);
      expect(e.hint).not.toBe('');
      expect((await refused('sqlite3 in.db', `select 1;\n${dot}\n`)).code).toBe('COMMAND_FORBIDDEN');
    });
  }

  it('load_extension() in any case and spacing, even inside a larger statement', async () => {
    for (const sql of ["select load_extension('/tmp/evil.so')", "SELECT 1, LOAD_EXTENSION ('x', 'init')"]) {
      const e = await refused(`sqlite3 in.db "${sql}"`);
      expect(e.code).toBe('COMMAND_FORBIDDEN');
      expect(e.message).toContain('load_extension');
    }
    // the name inside a string is data, not a call
    const ok = await run(`sqlite3 in.db "select 'load_extension(x)'"`);
    expect(ok.success && ok.data.stdout).toBe('load_extension(x)\n');
  });

  it('a pipe as a file name (.import, .output, .once, .read) runs no program', async () => {
    for (const cmd of [".import '|cat /etc/passwd' t", ".output '|cat'", ".once '|cat'", ".read '|ls'"]) {
      expect((await refused('sqlite3 in.db', cmd + '\n')).code).toBe('COMMAND_FORBIDDEN');
    }
  });

  it("ATTACH '/etc/passwd' is the zone's /etc/passwd: no host file is read", async () => {
    const r = await run(`sqlite3 in.db "attach '/etc/passwd' as p" "select * from p.sqlite_master"`);
    expect(r.success).toBe(true);
    if (!r.success) return;
    expect(r.data.exit_code).toBe(14);
    expect(r.data.stderr).toBe('Error: stepping, unable to open database: /etc/passwd (14)\n');
    expect(r.data.stdout).not.toContain('root:');
  });

  it("ATTACH '../other.db' stays in the zone (the database beside the zone is never opened)", async () => {
    const r = await run(`sqlite3 in.db "attach '../other.db' as o" "select * from o.t"`);
    expect(r.success && r.data.stdout).toBe('');
    expect(r.success && r.data.stderr).toContain('no such table: o.t');
    expect(fs.existsSync(path.join(root, 'other.db'))).toBe(false);
  });

  it('a symlinked database pointing out of the zone is refused, opened or attached', async () => {
    await pathRefused("sqlite3 link.db 'select * from t'");
    await pathRefused(`sqlite3 in.db "attach 'link.db' as l" 'select * from l.t'`);
    await pathRefused('sqlite3 in.db', ".mode csv\n.import link.db t\n");
  });

  it('ATTACH of an expression or a URI is refused with a hint', async () => {
    expect((await refused(`sqlite3 in.db "attach 'x' || '.db' as x"`)).code).toBe('COMMAND_FORBIDDEN');
    expect((await refused(`sqlite3 in.db "attach 'file:/etc/passwd?mode=ro' as x"`)).code).toBe('COMMAND_FORBIDDEN');
  });

  it('in-zone ATTACH reads and writes the attached file through the zone', async () => {
    const r = await run(`sqlite3 in.db "attach 'side.db' as s" "insert into s.s values('added')" "select group_concat(b) from s.s"`);
    expect(r.success && r.data.stdout).toBe('side,added\n');
    expect(execFileSync('sqlite3', [path.join(root, 'side.db'), 'select count(*) from s']).toString()).toBe('2\n');
  });

  it('.output /tmp/x and .once /tmp/x name the zone, never the host /tmp', async () => {
    const name = `nosh-sq-${process.pid}-${Date.now()}`;
    for (const dot of ['.output', '.once']) {
      const r = await run('sqlite3 in.db', `${dot} /tmp/${name}\nselect 42;\n`);
      expect(fs.existsSync(`/tmp/${name}`)).toBe(false);
      // the zone has no /tmp folder: the write fails there
      expect(r.success ? r.data.stderr : r.error.code).toMatch(/No such file|FILE_NOT_FOUND/);
    }
    fs.mkdirSync(path.join(root, 'tmp'));
    const ok = await run('sqlite3 in.db', `.output /tmp/${name}\nselect 42;\n`);
    expect(ok.success && ok.data.stdout).toBe('');
    expect(fs.readFileSync(path.join(root, 'tmp', name), 'utf8')).toBe('42\n');
    expect(fs.existsSync(`/tmp/${name}`)).toBe(false);
  });

  it('VACUUM INTO, .backup and .open name files of the zone only', async () => {
    let r = await run(`sqlite3 in.db "vacuum into '../escaped.db'"`);
    expect(r.success && r.data.exit_code).toBe(0);
    expect(fs.existsSync(path.join(base, 'escaped.db'))).toBe(false);
    expect(execFileSync('sqlite3', [path.join(root, 'escaped.db'), 'select * from t']).toString()).toBe('1\n');
    r = await run(`sqlite3 in.db ".backup ../../b.db"`);
    expect(r.success && r.data.exit_code).toBe(0);
    expect(fs.existsSync(path.join(base, 'b.db'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'b.db'))).toBe(true);
    await pathRefused('sqlite3 in.db', '.open link.db\nselect * from t;\n');
    await pathRefused("sqlite3 in.db '.restore link.db'");
    // a URI-looking name is only a file name of the zone here
    r = await run(`sqlite3 in.db "vacuum into 'file:x.db?mode=memory'"`);
    expect(r.success && r.data.exit_code).toBe(0);
    expect(fs.existsSync(path.join(root, 'file:x.db?mode=memory'))).toBe(true);
  });
});
