import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';

// What the one-shot CLI loads (issue #27 goal 1): its start-up is mostly module loading, so
// the exec path must not load what the call does not need. A module hook (registered with
// --import, so it sees the main thread and the workers, which inherit execArgv) logs every
// module loaded; the test reads the log.
const bin = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
let dir: string;
let root: string;

beforeAll(() => {
  dir = tempDir();
  root = path.join(dir, 'root');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'small.txt'), 'hello\n');
  fs.writeFileSync(path.join(dir, 'hooks.mjs'), `import * as fs from 'node:fs';
export async function load(url, context, next) {
  const r = await next(url, context);
  fs.appendFileSync(${JSON.stringify(path.join(dir, 'loaded.txt'))}, url + '\\n');
  return r;
}
`);
  fs.writeFileSync(path.join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(path.join(dir, 'hooks.mjs')).href)});\n`);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function loadedBy(args: string[]): string[] {
  const log = path.join(dir, 'loaded.txt');
  fs.rmSync(log, { force: true });
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(path.join(dir, 'register.mjs')).href, bin, ...args], { input: '', encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return fs.readFileSync(log, 'utf8').split('\n').filter((l) => l !== '');
}

describe('nosh exec start-up', () => {
  it('loads neither isomorphic-git nor the MCP SDK to cat a file in a folder that is not versioned', () => {
    const loaded = loadedBy(['exec', '--root', root, '--', 'cat', 'small.txt']);
    expect(loaded.some((u) => u.endsWith('/dist/commands/cat/index.js'))).toBe(true); // the log does see the worker
    expect(loaded.filter((u) => u.includes('/isomorphic-git/'))).toEqual([]);
    expect(loaded.filter((u) => u.includes('/@modelcontextprotocol/'))).toEqual([]);
  });

  it('loads neither zod nor sql.js for a reading call with --root (the config and exec params are checked by hand)', () => {
    const loaded = loadedBy(['exec', '--root', root, '--', 'cat', 'small.txt']);
    expect(loaded.filter((u) => u.includes('/node_modules/zod/'))).toEqual([]);
    expect(loaded.filter((u) => u.includes('/sql.js/') || u.includes('sql-wasm'))).toEqual([]);
    expect(loaded.filter((u) => u.includes('/dist/src/tools/'))).toEqual([]);
  });

  it('still validates what the hand checks pass on: a bad --config key is refused by the schema', () => {
    const cfg = path.join(dir, 'bad.json');
    fs.writeFileSync(cfg, JSON.stringify({ root, limits: { timeoutMs: 0 } }));
    const r = spawnSync(process.execPath, [bin, 'exec', '--config', cfg, '--', 'cat', 'small.txt'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/limits\.timeoutMs/);
  });
});
