import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh, type NoshConfig } from '../../src/index.js';
import { isSpecial } from '../../src/net/policy.js';
import { tempDir } from '../helpers.js';

// Only ever 127.0.0.1: the server below. Other names exist only in the config's fixed answers
// (hosts), or are refused by the allow-list before any lookup.
let server: http.Server;
let port: number;
const hits: string[] = [];
let root: string;
const opened: Nosh[] = [];

async function ws(network: NoshConfig['network']): Promise<Nosh> {
  const n = await createNosh({ root, threads: 1, network });
  opened.push(n);
  return n;
}
const run = async (n: Nosh, command: string) => (await n.exec({ command })) as any;

beforeAll(async () => {
  root = tempDir('nosh-curl-');
  server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url} ${req.headers.cookie ?? ''}${req.headers.authorization ?? ''}`);
    if (req.url === '/hello.txt') { res.writeHead(200, { 'Content-Type': 'text/plain' }); res.end('hello world\n'); }
    else if (req.url === '/go') { res.writeHead(302, { Location: '/hello.txt' }); res.end(); }
    else if (req.url === '/away') { res.writeHead(302, { Location: 'http://evil.test/steal' }); res.end(); }
    else if (req.url === '/away-local') { res.writeHead(301, { Location: `http://localhost:${port}/hello.txt` }); res.end(); }
    else if (req.url === '/big') { res.writeHead(200); res.end('x'.repeat(10_000)); }
    else { res.writeHead(404); res.end('nope\n'); }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const n of opened) await n.close();
  await new Promise((r) => server.close(r));
  fs.rmSync(root, { recursive: true, force: true });
});

describe('curl under the network policy', () => {
  it('is refused when the network is disabled (the default), with nothing sent', async () => {
    const n = await ws(undefined);
    const r = await run(n, `curl -sS http://127.0.0.1:${port}/hello.txt`);
    expect(r.data.exit_code).toBe(7);
    expect(r.data.stderr).toMatch(/^curl: \(7\) nosh: network access is disabled/);
    expect(hits).toEqual([]);
  });

  it('downloads from an allowed host: stdout, -o, -O, -I, -f', async () => {
    const n = await ws({ mode: 'safe', allow: [`127.0.0.1:${port}`] });
    const base = `http://127.0.0.1:${port}`;
    expect((await run(n, `curl -s ${base}/hello.txt`)).data).toMatchObject({ exit_code: 0, stdout: 'hello world\n', stderr: '' });
    expect((await run(n, `curl -s -o a.txt ${base}/hello.txt`)).data.exit_code).toBe(0);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('hello world\n');
    expect((await run(n, `curl -sO ${base}/hello.txt`)).data.exit_code).toBe(0);
    expect(fs.readFileSync(path.join(root, 'hello.txt'), 'utf8')).toBe('hello world\n');
    const head = await run(n, `curl -sI ${base}/hello.txt`);
    expect(head.data.stdout).toMatch(/^HTTP\/1\.1 200 OK\r\nContent-Type: text\/plain\r\n[\s\S]*\r\n\r\n$/);
    const f = await run(n, `curl -f ${base}/missing`);
    expect(f.data).toMatchObject({ exit_code: 22, stdout: '', stderr: 'curl: (22) The requested URL returned error: 404\n' });
    expect((await run(n, `curl -sf ${base}/missing`)).data).toMatchObject({ exit_code: 22, stderr: '' });
    expect((await run(n, `curl -s ${base}/missing`)).data).toMatchObject({ exit_code: 0, stdout: 'nope\n' });
    expect((await run(n, `curl -sL ${base}/go`)).data.stdout).toBe('hello world\n');
    expect(hits.every((h) => h.endsWith(' '))).toBe(true); // no cookie, no credentials
  });

  it('refuses a redirect to a host outside the allow-list, and a name for 127.0.0.1 when only the IP is listed', async () => {
    const n = await ws({ mode: 'safe', allow: [`127.0.0.1:${port}`] });
    const base = `http://127.0.0.1:${port}`;
    const away = await run(n, `curl -sSL ${base}/away`);
    expect(away.data.exit_code).toBe(7);
    expect(away.data.stderr).toBe('curl: (7) nosh: evil.test:80 is not in the network allow-list\n');
    const local = await run(n, `curl -sSL ${base}/away-local`);
    expect(local.data.stderr).toBe(`curl: (7) nosh: localhost:${port} is not in the network allow-list\n`);
    const direct = await run(n, `curl -sS http://localhost:${port}/hello.txt`);
    expect(direct.data.exit_code).toBe(7);
    expect((await run(n, `curl -sS ${base.replace(String(port), String(port + 1))}/x`)).data.stderr).toMatch(/not in the network allow-list/);
    expect((await run(n, `curl -sS ftp://127.0.0.1:${port}/x`)).data.exit_code).toBe(1);
    expect((await run(n, `curl -sS http://u:p@127.0.0.1:${port}/hello.txt`)).data.stderr).toMatch(/credentials/);
  });

  it('a listed name whose answer is a loopback address not listed is refused (SSRF); listed, it works', async () => {
    const only = await ws({ mode: 'safe', allow: ['files.test'], hosts: { 'files.test': '127.0.0.1' } });
    const r = await run(only, `curl -sS http://files.test:${port}/hello.txt`);
    expect(r.data.exit_code).toBe(7);
    expect(r.data.stderr).toBe('curl: (7) nosh: files.test resolves to 127.0.0.1, a private, loopback or link-local address not in the network allow-list\n');
    const both = await ws({ mode: 'safe', allow: ['files.test', '127.0.0.1'], hosts: { 'files.test': '127.0.0.1' } });
    expect((await run(both, `curl -s http://files.test:${port}/hello.txt`)).data.stdout).toBe('hello world\n');
  });

  it('caps the size: --max-filesize and the policy\'s maxBytes leave no file', async () => {
    const n = await ws({ mode: 'safe', allow: ['127.0.0.1'], maxBytes: 5000 });
    const r = await run(n, `curl -sS -o big.bin http://127.0.0.1:${port}/big`);
    expect(r.data).toMatchObject({ exit_code: 63, stderr: 'curl: (63) Maximum file size exceeded\n' });
    expect(fs.existsSync(path.join(root, 'big.bin'))).toBe(false);
    expect((await run(n, `curl -sS --max-filesize 5 http://127.0.0.1:${port}/hello.txt`)).data.exit_code).toBe(63);
  });

  it('classifies special addresses', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '0.0.0.0', '100.64.0.1', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '224.0.0.1']) {
      expect(isSpecial(a), a).toBe(true);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111']) expect(isSpecial(a), a).toBe(false);
  });
});

describe('wget under the network policy', () => {
  it('downloads to the URL\'s name (never over a file), -O FILE, -O -, with wget\'s log; -q is silent', async () => {
    const n = await ws({ mode: 'safe', allow: [`127.0.0.1:${port}`] });
    const base = `http://127.0.0.1:${port}`;
    fs.mkdirSync(path.join(root, 'w'));
    const r = await n.exec({ command: `wget ${base}/go`, cwd: '/w' }) as any;
    expect(r.data.exit_code).toBe(0);
    expect(r.data.stderr).toMatch(/^--\d{4}-\d\d-\d\d \d\d:\d\d:\d\d--  http:\/\/127\.0\.0\.1:\d+\/go\nConnecting to 127\.0\.0\.1:\d+\.\.\. connected\.\nHTTP request sent, awaiting response\.\.\. 302 Found\nLocation: \/hello\.txt \[following\]\n/);
    expect(r.data.stderr).toMatch(/Length: (12|unspecified) \[text\/plain\]\nSaving to: ‘hello\.txt’\n\n.* - ‘hello\.txt’ saved \[12\/12\]\n\n$/);
    expect(fs.readFileSync(path.join(root, 'w', 'hello.txt'), 'utf8')).toBe('hello world\n');
    expect((await n.exec({ command: `wget -q ${base}/hello.txt`, cwd: '/w' }) as any).data).toMatchObject({ exit_code: 0, stderr: '' });
    expect(fs.readFileSync(path.join(root, 'w', 'hello.txt.1'), 'utf8')).toBe('hello world\n');
    expect((await run(n, `wget -q -O w/named.txt ${base}/hello.txt`)).data.exit_code).toBe(0);
    expect(fs.readFileSync(path.join(root, 'w', 'named.txt'), 'utf8')).toBe('hello world\n');
    expect((await run(n, `wget -q -O - ${base}/hello.txt`)).data.stdout).toBe('hello world\n');
  });

  it('an HTTP error is 8; a redirect outside the allow-list is 4 with no file', async () => {
    const n = await ws({ mode: 'safe', allow: [`127.0.0.1:${port}`] });
    const base = `http://127.0.0.1:${port}`;
    const e = await run(n, `wget ${base}/missing`);
    expect(e.data.exit_code).toBe(8);
    expect(e.data.stderr).toMatch(/ERROR 404: Not Found\.\n\n$/);
    expect(fs.existsSync(path.join(root, 'missing'))).toBe(false);
    const away = await run(n, `wget ${base}/away`);
    expect(away.data.exit_code).toBe(4);
    expect(away.data.stderr).toMatch(/wget: nosh: evil\.test:80 is not in the network allow-list\n$/);
    expect(fs.existsSync(path.join(root, 'away'))).toBe(false);
    const off = await ws(undefined);
    expect((await run(off, `wget -q ${base}/hello.txt`)).data).toMatchObject({ exit_code: 4, stderr: '' });
  });
});

describe('curl through nosh serve', () => {
  it('downloads into the zone with the config\'s allow-list', async () => {
    const dir = tempDir('nosh-curl-serve-');
    fs.writeFileSync(path.join(dir, 'nosh.json'), JSON.stringify({ root: dir, network: { mode: 'safe', allow: [`127.0.0.1:${port}`] } }));
    const bin = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
    const child = spawn(process.execPath, [bin, 'serve', '--config', path.join(dir, 'nosh.json')], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const ask = async (id: number, command: string) => {
      child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'exec', params: { command } }) + '\n');
      return JSON.parse((await lines.next()).value as string);
    };
    try {
      const ok = await ask(1, `curl -sS -o got.txt http://127.0.0.1:${port}/hello.txt`);
      expect(ok.result.data.exit_code).toBe(0);
      expect(fs.readFileSync(path.join(dir, 'got.txt'), 'utf8')).toBe('hello world\n');
      const away = await ask(2, `curl -sSL http://127.0.0.1:${port}/away`);
      expect(away.result.data.stderr).toMatch(/evil\.test:80 is not in the network allow-list/);
    } finally {
      child.stdin!.end();
      await new Promise((r) => child.once('exit', r));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
