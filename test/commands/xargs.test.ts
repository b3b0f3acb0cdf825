// xargs runs nosh commands (never a process) with the checks a pipeline stage gets: a command
// the zone does not allow is "not found" (127), a mutating one in a read-only zone is refused
// before anything runs (ZONE_READONLY), or, when only its batch arguments make it mutating
// (sed given -i on stdin), when it runs (126). Through the library and through `nosh serve`.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

const bin = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
let base: string;
const roots = { limited: '', readonly: '' };

function fill(root: string): void {
  fs.mkdirSync(root, { recursive: true });
  fs.writeFileSync(path.join(root, 'f.txt'), 'a\n');
  fs.writeFileSync(path.join(root, 'g.txt'), 'a\n');
}

beforeAll(() => {
  base = tempDir('nosh-xargs-');
  roots.limited = path.join(base, 'limited');
  roots.readonly = path.join(base, 'ro');
});
beforeEach(() => {
  fill(roots.limited);
  fill(roots.readonly);
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const LIMITED = { allowedCommands: ['xargs', 'echo', 'cat', 'grep', 'sed'] };
const READONLY = { readonly: true };

/** One exec as a plain result: [exit code or error code, stdout, stderr]. */
type Exec = (zone: 'limited' | 'readonly', command: string, stdin?: string) => Promise<{ code: number | string; stdout: string; stderr: string }>;

function cases(exec: Exec): void {
  it('a command the zone does not allow is not found (127), whatever names it', async () => {
    for (const [command, stdin] of [['xargs rm', 'f.txt'], ['xargs -0 rm', 'f.txt'], ['xargs xargs rm', 'f.txt'], ['xargs -I X X f.txt', 'rm'], ['xargs', 'x'], ['xargs -n1 sh -c', 'id']] as const) {
      const r = await exec('limited', command, stdin);
      if (command === 'xargs') {
        // the default command, echo, is allowed
        expect(r).toMatchObject({ code: 0, stdout: 'x\n' });
        continue;
      }
      expect(r.code, command).toBe(127);
      expect(r.stderr, command).toMatch(/^xargs: (rm|sh): (command not allowed in this zone|No such file or directory)/m);
    }
    expect(fs.existsSync(path.join(roots.limited, 'f.txt'))).toBe(true);
  });

  it('allowed commands run: grep -l | xargs sed -i', async () => {
    const r = await exec('limited', 'grep -l a -r . | xargs sed -i s/a/b/');
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(roots.limited, 'f.txt'), 'utf8')).toBe('b\n');
  });

  it('a mutating command in a read-only zone is refused before anything runs', async () => {
    for (const command of ['xargs rm', 'xargs sed -i s/a/b/', 'xargs -n1 xargs rm', 'xargs -0 -- rm']) {
      const r = await exec('readonly', command, 'f.txt');
      expect(r.code, command).toBe('ZONE_READONLY');
    }
    // arguments from stdin that make sed mutating: refused when it runs
    const r = await exec('readonly', 'xargs sed s/a/b/', '-i f.txt');
    expect(r.code).toBe(126);
    expect(r.stderr).toMatch(/^xargs: sed: this zone is read-only/m);
    const i = await exec('readonly', 'xargs -I X X -i s/a/b/ f.txt', 'sed');
    expect(i.code).toBe(126);
    expect(fs.readFileSync(path.join(roots.readonly, 'f.txt'), 'utf8')).toBe('a\n');
    expect(fs.existsSync(path.join(roots.readonly, 'f.txt'))).toBe(true);
    // reading commands still run there
    const cat = await exec('readonly', 'xargs cat', 'f.txt g.txt');
    expect(cat).toMatchObject({ code: 0, stdout: 'a\na\n' });
  });
}

describe('xargs through the library', () => {
  const n: Partial<Record<'limited' | 'readonly', Nosh>> = {};
  beforeAll(async () => {
    n.limited = await createNosh({ root: roots.limited, threads: 1, policy: LIMITED });
    n.readonly = await createNosh({ root: roots.readonly, threads: 1, policy: READONLY });
  });
  afterAll(async () => {
    await n.limited?.close();
    await n.readonly?.close();
  });
  cases(async (zone, command, stdin) => {
    const r = await n[zone]!.exec({ command }, { stdin });
    return r.success ? { code: r.data.exit_code, stdout: r.data.stdout, stderr: r.data.stderr } : { code: r.error.code, stdout: '', stderr: r.error.message };
  });
});

describe('xargs through JSON-RPC (nosh serve)', () => {
  const servers: Partial<Record<'limited' | 'readonly', ChildProcessWithoutNullStreams>> = {};
  const pending = new Map<number, (m: any) => void>();
  let nextId = 1;
  beforeAll(() => {
    for (const [zone, policy] of [['limited', LIMITED], ['readonly', READONLY]] as const) {
      const config = path.join(base, `${zone}.json`);
      fs.writeFileSync(config, JSON.stringify({ root: roots[zone], policy }));
      const child = spawn(process.execPath, [bin, 'serve', '--config', config], { stdio: ['pipe', 'pipe', 'inherit'] });
      createInterface({ input: child.stdout }).on('line', (l) => {
        const m = JSON.parse(l);
        pending.get(m.id)?.(m);
        pending.delete(m.id);
      });
      servers[zone] = child;
    }
  });
  afterAll(async () => {
    for (const child of Object.values(servers)) {
      child!.stdin.end();
      await new Promise((r) => child!.once('exit', r));
    }
  });
  cases(async (zone, command, stdin) => {
    const id = nextId++;
    const m = await new Promise<any>((resolve) => {
      pending.set(id, resolve);
      servers[zone]!.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'exec', params: { command, ...(stdin !== undefined ? { stdin } : {}) } }) + '\n');
    });
    const r = m.result;
    return r.success ? { code: r.data.exit_code, stdout: r.data.stdout, stderr: r.data.stderr } : { code: r.error.code, stdout: '', stderr: r.error.message };
  });
});
