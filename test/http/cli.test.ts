import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { get, pathOf } from './helpers.js';

// `nosh http` as a process, and `nosh link create|list|delete` (another process on the same base:
// the server sees links made and revoked after it started).
const bin = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
let dir: string;
let child: ChildProcess;
let url: string;
const stderr: string[] = [];

function nosh(...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args, '--base', path.join(dir, 'base')], { encoding: 'utf8' });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  dir = tempDir('nosh-http-cli-');
  const files = path.join(dir, 'base', 'users', 'default', 'Storage');
  fs.mkdirSync(path.join(files, 'docs'), { recursive: true });
  fs.writeFileSync(path.join(files, 'docs', 'hello.txt'), 'hello\n');
  child = spawn(process.execPath, [bin, 'http', '--base', path.join(dir, 'base'), '--port', '0', '--public-url', 'http://links.example'], { stdio: ['ignore', 'pipe', 'pipe'] });
  createInterface({ input: child.stderr! }).on('line', (l) => stderr.push(l));
  url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (l) => {
      const m = /serving links at (http:\/\/127\.0\.0\.1:\d+)/.exec(l);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`nosh http exited ${code}: ${stderr.join('\n')}`)));
  });
}, 60_000);

afterAll(async () => {
  child.kill('SIGTERM');
  await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('nosh http and nosh link', () => {
  it('binds 127.0.0.1; serves a link made by `nosh link create`, stops at `nosh link delete`', async () => {
    const made = nosh('link', 'create', 'docs/hello.txt', '--json', '--public-url', 'http://links.example');
    expect(made.status, made.stderr).toBe(0);
    const link = JSON.parse(made.stdout).data;
    expect(link.url).toMatch(/^http:\/\/links\.example\/l\//);
    const r = await get(url, pathOf(link.url));
    expect([r.status, r.text]).toEqual([200, 'hello\n']);
    const listed = nosh('link', 'list');
    expect(listed.stdout).toContain(`${link.id}\tstorage:/docs/hello.txt\texpires `);
    expect(nosh('link', 'delete', link.id).stdout).toBe(`revoked ${link.id}\n`);
    expect((await get(url, pathOf(link.url))).status).toBe(403);
    const folder = nosh('link', 'create', 'docs', '--expires', '60', '--public-url', 'http://links.example');
    expect(folder.stdout).toMatch(/^http:\/\/links\.example\/l\/[\w-]+\?t=\S+\nid [\w-]+, expires \d{4}-/);
    const listing = await get(url, pathOf(folder.stdout.split('\n')[0]!));
    expect(listing.text).toContain('hello.txt');
  }, 180_000);

  it('logs one line per request with the link id and never the token; 405 for POST', async () => {
    const link = JSON.parse(nosh('link', 'create', 'docs/hello.txt', '--json').stdout).data;
    expect((await get(url, pathOf(link.url), { method: 'POST' })).status).toBe(405);
    await get(url, pathOf(link.url));
    await new Promise((r) => setTimeout(r, 100));
    const mine = stderr.filter((l) => l.includes(link.id));
    expect(mine).toHaveLength(2);
    expect(mine[0]).toMatch(new RegExp(`^\\S+Z POST ${link.id} 405 \\d+ [0-9.]+ms$`));
    expect(mine[1]).toMatch(new RegExp(`^\\S+Z GET ${link.id} 200 6 [0-9.]+ms$`));
    expect(stderr.join('\n')).not.toContain(link.url.split('.').pop());
  }, 60_000);

  it('link usage errors', () => {
    expect(nosh('link', 'create').status).not.toBe(0);
    expect(nosh('link', 'create', 'nope.txt').stderr).toContain('FILE_NOT_FOUND');
    expect(nosh('link', 'frob').status).toBe(2);
  }, 120_000);
});
