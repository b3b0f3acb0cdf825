/**
 * Issue #20 part 2: group ownership on every write path, through the library (tools and exec
 * commands): rows made by each creating path, each mode against each changing path.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

let nosh: Nosh;
let base: string;
const ALICE = { user: 'alice', conversation: 'ca' };
const BOB = { user: 'bob', conversation: 'cb' };
const Z = 'group:team';
type Env = { success: boolean; data?: any; error?: { code: string; message: string; hint: string; details: any } };

const call = (m: string, p: Record<string, unknown>) => nosh.call(m, p) as Promise<Env>;
const sh = (ctx: object, command: string, extra: Record<string, unknown> = {}) => nosh.call('exec', { zone: Z, context: ctx, command, ...extra }) as Promise<Env>;
const file = (p: string) => path.join(base, 'groups', 'team', p);
const owner = async (p: string) => {
  const r = await call('stat', { zone: Z, context: ALICE, path: p });
  return r.success ? `${r.data.owner}/${r.data.group_mode}` : r.error!.code;
};

beforeAll(async () => {
  base = tempDir('nosh-own-');
  nosh = await createNosh({ base, threads: 2, groups: { team: ['alice', 'bob', 'carol'] } });
  // a storage file of bob's, for transfers and cp sources
  await call('write', { context: BOB, path: 'src.txt', content: 'from bob\n' });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(base, { recursive: true, force: true });
});

/** alice's file a.txt in the given mode; other files cleaned away. */
async function aliceFile(mode: 'owner' | 'group' | 'owner_ro'): Promise<void> {
  await sh(ALICE, 'true'); // the zone's folder
  for (const n of fs.readdirSync(file(''))) if (n !== '.git') fs.rmSync(file(n), { recursive: true, force: true });
  await call('maintenance', {}); // rows of files removed behind nosh's back
  const w = await call('write', { zone: Z, context: ALICE, path: 'a.txt', content: 'alice\n', group_mode: mode });
  expect(w.success).toBe(true);
  fs.mkdirSync(file('d'), { recursive: true });
  fs.writeFileSync(file('src.txt'), 'x\n');
  await call('write', { context: BOB, path: 'src.txt', content: 'from bob\n' });
  await call('write', { context: ALICE, path: 'src.txt', content: 'from alice\n' });
}

/** Every path that changes a.txt, as bob: [name, run, and whether the call itself says so]. */
const CHANGERS: [string, (ctx: object) => Promise<Env>][] = [
  ['write overwrite', (c) => call('write', { zone: Z, context: c, path: 'a.txt', content: 'z\n' })],
  ['write append', (c) => call('write', { zone: Z, context: c, path: 'a.txt', content: 'z\n', mode: 'append' })],
  ['edit', (c) => call('edit', { zone: Z, context: c, path: 'a.txt', edits: [{ old_text: 'alice', new_text: 'mallory' }] })],
  ['delete', (c) => call('delete', { zone: Z, context: c, path: 'a.txt' })],
  ['move from', (c) => call('move', { zone: Z, context: c, from: 'a.txt', to: 'b.txt' })],
  ['move onto', (c) => call('move', { zone: Z, context: c, from: 'src.txt', to: 'a.txt', overwrite: true })],
  ['copy onto', (c) => call('copy', { zone: Z, context: c, from: 'src.txt', to: 'a.txt', overwrite: true })],
  ['transfer onto', (c) => call('transfer', { context: c, from: 'storage', to: Z, path: 'src.txt', dest: 'a.txt', overwrite: true })],
  ['exec cp', (c) => sh(c, 'cp src.txt a.txt')],
  ['exec mv from', (c) => sh(c, 'mv a.txt d/')],
  ['exec mv onto', (c) => sh(c, 'mv src.txt a.txt')],
  ['exec tee', (c) => sh(c, 'tee a.txt', { stdin: 'z\n' })],
  ['exec tee -a', (c) => sh(c, 'tee -a a.txt', { stdin: 'z\n' })],
  ['exec touch', (c) => sh(c, 'touch a.txt')],
  ['exec sed -i', (c) => sh(c, 'sed -i s/alice/mallory/ a.txt')],
  ['exec truncate', (c) => sh(c, 'truncate -s 0 a.txt')],
  ['exec rm', (c) => sh(c, 'rm a.txt')],
  ['exec rm -f', (c) => sh(c, 'rm -f a.txt')],
  ['exec stdout_file', (c) => sh(c, 'echo z', { stdout_file: 'a.txt' })],
];

function refused(r: Env): boolean {
  if (!r.success) return r.error!.code === 'PERMISSION_DENIED';
  return r.data.exit_code !== 0;
}

function intact(): boolean {
  return fs.existsSync(file('a.txt')) && fs.readFileSync(file('a.txt'), 'utf8') === 'alice\n';
}

describe('mode owner: only the owner changes the file', () => {
  beforeEach(() => aliceFile('owner'));
  for (const [name, run] of CHANGERS) {
    it(`bob: ${name} is refused, naming owner and mode`, async () => {
      const r = await run(BOB);
      expect(refused(r), JSON.stringify(r)).toBe(true);
      if (r.success) {
        // GNU-style: 'cmd: ... : Permission denied (...)'; rm, tee, sed, cp name the owner
        expect(r.data.stderr).toMatch(/Permission denied \((owned by alice, mode owner|file of another group member)\)/);
      } else {
        expect(r.error!.message).toContain('owned by alice, mode owner');
        expect(r.error!.hint).toContain('alice');
        expect(r.error!.details).toMatchObject({ owner: 'alice', mode: 'owner' });
      }
      expect(intact()).toBe(true);
      expect(await owner('a.txt')).toBe('alice/owner');
    });
  }
  it('alice (the owner) may change it: write, then mv carries the row, rm removes it', async () => {
    expect((await call('write', { zone: Z, context: ALICE, path: 'a.txt', content: 'new\n' })).success).toBe(true);
    expect((await sh(ALICE, 'mv a.txt d/b.txt')).data.exit_code).toBe(0);
    expect(await owner('d/b.txt')).toBe('alice/owner');
    expect(await owner('a.txt')).toBe('FILE_NOT_FOUND');
    expect((await sh(ALICE, 'rm d/b.txt')).data.exit_code).toBe(0);
    fs.writeFileSync(file('d/b.txt'), 'behind nosh\n');
    expect(await owner('d/b.txt')).toBe('null/null');
  });
  it('rm -r of a folder holding it: that file refused (GNU-style, exit 1), the rest removed', async () => {
    await sh(ALICE, 'mv a.txt d/a.txt');
    fs.writeFileSync(file('d/other.txt'), 'o\n');
    fs.mkdirSync(file('d/sub'));
    fs.writeFileSync(file('d/sub/x'), 'x\n');
    const r = await sh(BOB, 'rm -r d');
    expect(r.data.exit_code).toBe(1);
    expect(r.data.stderr).toBe("rm: cannot remove 'd/a.txt': Permission denied (owned by alice, mode owner)\n");
    expect(fs.readdirSync(file('d'))).toEqual(['a.txt']);
  });
  it('renaming a folder that holds it is refused for bob', async () => {
    await sh(ALICE, 'mv a.txt d/a.txt');
    const r = await sh(BOB, 'mv d e');
    expect(r.data.exit_code).toBe(1);
    expect(fs.existsSync(file('d/a.txt'))).toBe(true);
  });
});

describe('mode owner_ro: nobody changes it', () => {
  beforeEach(() => aliceFile('owner_ro'));
  for (const [name, run] of CHANGERS) {
    it(`alice and bob: ${name} is refused`, async () => {
      for (const who of [ALICE, BOB]) {
        const r = await run(who);
        expect(refused(r), `${name} ${JSON.stringify(r)}`).toBe(true);
        expect(intact()).toBe(true);
      }
    });
  }
});

describe('mode group: every member changes it', () => {
  beforeEach(() => aliceFile('group'));
  for (const [name, run] of CHANGERS) {
    it(`bob: ${name} works`, async () => {
      const r = await run(BOB);
      expect(r.success && (r.data.exit_code === undefined || r.data.exit_code === 0), JSON.stringify(r)).toBe(true);
    });
  }
});

describe('rows made by every creating path', () => {
  beforeEach(() => aliceFile('group'));
  const CREATORS: [string, string, (ctx: object) => Promise<Env>][] = [
    ['write', 'n.txt', (c) => call('write', { zone: Z, context: c, path: 'n.txt', content: 'n\n', group_mode: 'owner' })],
    ['copy', 'n.txt', (c) => call('copy', { zone: Z, context: c, from: 'src.txt', to: 'n.txt', group_mode: 'owner' })],
    ['transfer', 'src.txt', (c) => call('transfer', { context: c, from: 'storage', to: Z, path: 'src.txt', overwrite: true, mode: 'owner' })],
    ['exec cp', 'n.txt', (c) => sh(c, 'cp src.txt n.txt', { group_mode: 'owner' })],
    ['exec tee', 'n.txt', (c) => sh(c, 'tee n.txt', { stdin: 'n\n', group_mode: 'owner' })],
    ['exec touch', 'n.txt', (c) => sh(c, 'touch n.txt', { group_mode: 'owner' })],
    ['exec stdout_file', 'n.txt', (c) => sh(c, 'echo n', { stdout_file: 'n.txt', group_mode: 'owner' })],
    ['exec tar x', 'src.txt', async (c) => {
      await sh(c, 'tar cf t.tar src.txt');
      fs.rmSync(file('src.txt'));
      return sh(c, 'tar xf t.tar', { group_mode: 'owner' });
    }],
    ['exec unzip', 'src.txt', async (c) => {
      await sh(c, 'zip -q t.zip src.txt');
      fs.rmSync(file('src.txt'));
      return sh(c, 'unzip -q t.zip', { group_mode: 'owner' });
    }],
  ];
  for (const [name, made, run] of CREATORS) {
    it(`${name}: the new file is bob's, in the call's group_mode`, async () => {
      const r = await run(BOB);
      expect(r.success && (r.data.exit_code === undefined || r.data.exit_code === 0), JSON.stringify(r)).toBe(true);
      expect(await owner(made)).toBe('bob/owner');
    });
  }
  it('without group_mode: the config default (group); list shows owner and mode', async () => {
    await sh(BOB, 'touch m.txt');
    expect(await owner('m.txt')).toBe('bob/group');
    const l = await call('list', { zone: Z, context: BOB, path: '/' });
    const m = l.data.entries.find((e: { name: string }) => e.name === 'm.txt');
    expect(m).toMatchObject({ owner: 'bob', group_mode: 'group' });
  });
  it("files named after Object.prototype's keys are not taken for restricted ones", async () => {
    await aliceFile('owner'); // a restricting row: the guard is sent with bob's calls
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const w = await call('write', { zone: Z, context: BOB, path: name, content: 'b\n' });
      expect(w.success, `${name}: ${JSON.stringify(w.error)}`).toBe(true);
      const rm = await sh(BOB, `rm ${name}`);
      expect(rm.success && rm.data.exit_code, `rm ${name}: ${JSON.stringify(rm)}`).toBe(0);
    }
    expect((await call('write', { zone: Z, context: BOB, path: 'a.txt', content: 'z\n' })).error?.code).toBe('PERMISSION_DENIED');
    // and a restricted file with such a name is guarded like any other
    expect((await call('write', { zone: Z, context: ALICE, path: '__proto__', content: 'a\n', group_mode: 'owner' })).success).toBe(true);
    expect((await call('write', { zone: Z, context: BOB, path: '__proto__', content: 'z\n' })).error?.code).toBe('PERMISSION_DENIED');
    expect((await sh(BOB, 'rm -f __proto__')).data.exit_code).toBe(1);
    expect(fs.readFileSync(file('__proto__'), 'utf8')).toBe('a\n');
  });
});
