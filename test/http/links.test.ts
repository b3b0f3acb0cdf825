import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { createLinkHandler, FILE_CSP, PAGE_CSP } from '../../src/http/server.js';
import { linksOf } from '../../src/api/links.js';
import { engineOf } from '../../src/nosh.js';
import { tempDir } from '../helpers.js';
import { get, hrefs, listen, pathOf } from './helpers.js';

// The link server as a runtime embeds it: createLinkHandler(nosh) in its own node:http server.
let dir: string;
let base: string;
let nosh: Nosh;
let server: http.Server;
let url: string;
let clock: number | undefined;
const members = new Set(['alice']);
const logs: string[] = [];

async function ok<T = any>(method: string, params: Record<string, unknown>): Promise<T> {
  const r = await nosh.call(method, { context: { user: 'alice' }, ...params });
  if (!r.success) throw new Error(JSON.stringify(r.error));
  return r.data as T;
}

async function link(p: string, extra: Record<string, unknown> = {}): Promise<{ id: string; url: string; path: string; expires_at: string }> {
  return ok('link_create', { path: p, ...extra });
}

function storage(...p: string[]): string {
  return path.join(base, 'users', 'alice', 'Storage', ...p);
}

beforeAll(async () => {
  dir = tempDir('nosh-links-');
  base = path.join(dir, 'base');
  nosh = await createNosh({ base, threads: 1, limits: { maxFileSize: 3 * 1024 ** 3 } }, { groupProvider: (u) => (members.has(u) ? ['team'] : []) });
  server = http.createServer(createLinkHandler(nosh, { now: () => clock ?? Math.floor(Date.now() / 1000), log: (l) => logs.push(l) }));
  url = await listen(server);
  await ok('write', { path: 'pub/ten.txt', content: '0123456789', create_dirs: true });
  await ok('write', { path: 'pub/other.txt', content: 'other\n' });
  await ok('write', { path: 'pub/sub/deep.txt', content: 'deep\n', create_dirs: true });
  await ok('write', { path: 'pub/<img src=x onerror=alert(1)>.md', content: '# x\n' });
  await ok('write', { path: 'pub/report.md', content: '# Report\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```js\nlet x = 1;\n```\n\n<script>window.pwned=1</script>\n[x](javascript:alert(1))\n' });
  await ok('write', { path: 'pub/a.zip', content_base64: Buffer.from('PK\x03\x04rest', 'latin1').toString('base64') });
  await ok('write', { path: 'pub/page.html', content: '<script>window.pwned=1</script><p>hi</p>' });
  fs.writeFileSync(storage('.env'), 'SECRET=1\n');
  fs.mkdirSync(path.join(dir, 'outside'));
  fs.writeFileSync(path.join(dir, 'outside', 'secret.txt'), 'outside\n');
  fs.symlinkSync(path.join(dir, 'outside', 'secret.txt'), storage('pub', 'escape.txt'));
  fs.symlinkSync('ten.txt', storage('pub', 'inside-link.txt'));
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await nosh.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('link_create and the files it serves', () => {
  it('gives url, markdown, expiry and id; the file is served with its headers', async () => {
    const l = await link('pub/ten.txt');
    expect(l.url).toMatch(/^http:\/\/127\.0\.0\.1:8080\/l\/[\w-]+\?t=/);
    expect((await ok('link_create', { path: 'pub/ten.txt' })).markdown).toMatch(/^\[ten\.txt\]\(http/);
    const r = await get(url, pathOf(l.url));
    expect(r.status).toBe(200);
    expect(r.text).toBe('0123456789');
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['referrer-policy']).toBe('no-referrer');
    expect(r.headers['content-security-policy']).toBe(FILE_CSP);
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.headers['content-disposition']).toMatch(/^inline; filename="ten.txt"/);
    expect(r.headers.etag).toMatch(/^"[\w-]+"$/);
    expect(r.headers['last-modified']).toBe(fs.statSync(storage('pub', 'ten.txt')).mtime.toUTCString());
    const h = await get(url, pathOf(l.url), { method: 'HEAD' });
    expect([h.status, h.headers['content-length'], h.body.length]).toEqual([200, '10', 0]);
  });

  it('If-None-Match and If-Modified-Since give 304', async () => {
    const l = await link('pub/ten.txt');
    const first = await get(url, pathOf(l.url));
    expect((await get(url, pathOf(l.url), { headers: { 'if-none-match': first.headers.etag! } })).status).toBe(304);
    expect((await get(url, pathOf(l.url), { headers: { 'if-none-match': '"nope"' } })).status).toBe(200);
    expect((await get(url, pathOf(l.url), { headers: { 'if-modified-since': first.headers['last-modified']! } })).status).toBe(304);
  });

  it('Range: a part, a suffix, an open end, past the end (416), several ranges (whole file)', async () => {
    const p = pathOf((await link('pub/ten.txt')).url);
    const range = async (r: string, extra: Record<string, string> = {}) => {
      const g = await get(url, p, { headers: { range: r, ...extra } });
      return [g.status, g.headers['content-range'], g.status === 416 ? '' : g.text];
    };
    expect(await range('bytes=0-3')).toEqual([206, 'bytes 0-3/10', '0123']);
    expect(await range('bytes=-3')).toEqual([206, 'bytes 7-9/10', '789']);
    expect(await range('bytes=-100')).toEqual([206, 'bytes 0-9/10', '0123456789']);
    expect(await range('bytes=6-')).toEqual([206, 'bytes 6-9/10', '6789']);
    expect(await range('bytes=8-100')).toEqual([206, 'bytes 8-9/10', '89']);
    expect(await range('bytes=9-9')).toEqual([206, 'bytes 9-9/10', '9']);
    expect(await range('bytes=10-')).toEqual([416, 'bytes */10', '']);
    expect(await range('bytes=-0')).toEqual([416, 'bytes */10', '']);
    expect(await range('bytes=0-1,4-5')).toEqual([200, undefined, '0123456789']);
    expect(await range('items=0-1')).toEqual([200, undefined, '0123456789']);
    expect(await range('bytes=0-1', { 'if-range': '"stale"' })).toEqual([200, undefined, '0123456789']);
  });

  it('download=1 (in the link or the URL) and files that are not shown inline are attachments', async () => {
    const d = await link('pub/ten.txt', { download: true });
    expect(d.url).toMatch(/&download=1$/);
    expect((await get(url, pathOf(d.url))).headers['content-disposition']).toMatch(/^attachment; filename="ten.txt"/);
    const plain = await link('pub/ten.txt');
    expect((await get(url, pathOf(plain.url) + '&download=1')).headers['content-disposition']).toMatch(/^attachment;/);
    const zip = await get(url, pathOf((await link('pub/a.zip')).url));
    expect([zip.headers['content-type'], zip.headers['content-disposition']]).toEqual(['application/zip', 'attachment; filename="a.zip"; filename*=UTF-8\'\'a.zip']);
  });

  it("a user's HTML is served sandboxed: CSP sandbox, no script", async () => {
    const r = await get(url, pathOf((await link('pub/page.html')).url));
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(r.headers['content-security-policy']).toMatch(/^sandbox; default-src 'none'/);
  });

  it('Markdown is rendered (table, code block) and sanitised, under the page CSP', async () => {
    const r = await get(url, pathOf((await link('pub/report.md')).url));
    expect(r.status).toBe(200);
    expect(r.headers['content-security-policy']).toBe(PAGE_CSP);
    expect(r.text).toContain('<table>');
    expect(r.text).toContain('<td>1</td>');
    expect(r.text).toContain('<pre><code class="language-js">let x = 1;');
    expect(r.text).not.toContain('<script');
    expect(r.text).not.toContain('javascript:');
    const raw = await get(url, pathOf((await link('pub/report.md')).url) + '&raw=1');
    expect([raw.headers['content-type'], raw.text.startsWith('# Report')]).toEqual(['text/plain; charset=utf-8', true]);
  });

  it('refuses what the zone refuses: a blocked name, a missing file, a symlink; a too long expiry', async () => {
    const env = await nosh.call('link_create', { path: '.env', context: { user: 'alice' } });
    expect(env.success ? '' : env.error.code).toBe('BLOCKED_PATH');
    const missing = await nosh.call('link_create', { path: 'nope.txt', context: { user: 'alice' } });
    expect(missing.success ? '' : missing.error.code).toBe('FILE_NOT_FOUND');
    const esc = await nosh.call('link_create', { path: 'pub/escape.txt', context: { user: 'alice' } });
    expect(esc.success ? '' : esc.error.code).toBe('PATH_ESCAPE');
    const long = await nosh.call('link_create', { path: 'pub/ten.txt', expires_in: 7 * 24 * 3600 + 1, context: { user: 'alice' } });
    expect(long.success ? '' : long.error.code).toBe('INVALID_ARGUMENT');
    const critic = await nosh.call('link_create', { path: 'pub/ten.txt', context: { user: 'alice', role: 'critic' } });
    expect(critic.success ? '' : critic.error.code).toBe('ZONE_READONLY');
  });

  it('the secret is made once, in the base, mode 0600', () => {
    const st = fs.statSync(path.join(base, 'link-secret'));
    expect(st.mode & 0o777).toBe(0o600);
  });
});

describe('folder links', () => {
  it('list folders first, sorted, with a breadcrumb; entries and the breadcrumb open', async () => {
    const l = await link('pub');
    const r = await get(url, pathOf(l.url));
    expect(r.status).toBe(200);
    expect(r.headers['content-security-policy']).toBe(PAGE_CSP);
    const names = [...r.text.matchAll(/<tr><td>(?:<a href="[^"]*">)?([^<]*)/g)].map((m) => m[1]);
    expect(names).toEqual(['sub/', '&#60;img src=x onerror=alert(1)&#62;.md', 'a.zip', 'escape.txt (link, not followed)', 'inside-link.txt (link, not followed)', 'other.txt', 'page.html', 'report.md', 'ten.txt']);
    const sub = hrefs(r.text).find((h) => h.includes('%2Fpub%2Fsub&'))!;
    const s = await get(url, sub);
    expect(s.text).toContain('deep.txt');
    const deep = hrefs(s.text).find((h) => h.includes('deep.txt'))!;
    expect((await get(url, deep)).text).toBe('deep\n');
    const crumbs = hrefs(s.text.slice(s.text.indexOf('<nav>'), s.text.indexOf('</nav>')));
    expect((await get(url, crumbs[0]!)).text).toContain('ten.txt');
  });

  it('a file named <img src=x onerror=alert(1)>.md is listed as text, and opens', async () => {
    const r = await get(url, pathOf((await link('pub')).url));
    expect(r.text).not.toContain('<img');
    const href = hrefs(r.text).find((h) => h.includes('onerror'))!;
    expect(href).toContain('%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E.md');
    const md = await get(url, href);
    expect(md.status).toBe(200);
    expect(md.text).not.toContain('<img');
  });
});

describe('refusals', () => {
  it('every byte of the token changed: 403', async () => {
    const l = await link('pub/ten.txt');
    const t = new URL(l.url).searchParams.get('t')!;
    const id = l.id;
    const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.';
    const statuses = new Set<number>();
    for (let i = 0; i < t.length; i++) {
      const c = alphabet[(alphabet.indexOf(t[i]!) + 1) % alphabet.length]!;
      const bad = t.slice(0, i) + c + t.slice(i + 1);
      statuses.add((await get(url, `/l/${id}?t=${encodeURIComponent(bad)}`)).status);
      statuses.add((await get(url, `/files/out?path=%2Fpub%2Ften.txt&token=${encodeURIComponent(bad)}`)).status);
    }
    expect([...statuses]).toEqual([403]);
    expect((await get(url, `/l/${id}?t=${t}`)).status).toBe(200);
    expect((await get(url, `/files/out?path=%2Fpub%2Ften.txt&token=${t}`)).status).toBe(200);
    expect((await get(url, `/l/${id}`)).status).toBe(403);
  });

  it("a token for one path on another, and paths with .., %2e%2e, backslashes, NUL: 403, no host path", async () => {
    const file = await link('pub/ten.txt');
    const t = new URL(file.url).searchParams.get('t')!;
    const folder = await link('pub');
    const ft = new URL(folder.url).searchParams.get('t')!;
    const tries = [
      `/files/out?path=%2Fpub%2Fother.txt&token=${t}`,
      `/files/out?path=%2Fpub%2Fother.txt&token=${ft}`, // the folder's own token is not its entries'
      `/files/out?path=%2Fpub%2F..%2F.env&token=${ft}`,
      `/files/out?path=/pub/%2e%2e/.env&token=${ft}`,
      `/files/out?path=/pub/%2E%2E/%2E%2E&token=${ft}`,
      `/files/out?path=%2Fpub%5Cten.txt&token=${ft}`,
      `/files/out?path=%2Fpub%2Ften.txt%00&token=${ft}`,
      `/files/out?path=pub%2Ften.txt&token=${ft}`,
      `/files/out?path=%2Fpub%2F%2Ften.txt&token=${ft}`,
      `/files/out?path=%2Fpub%2F.%2Ften.txt&token=${ft}`,
    ];
    for (const p of tries) {
      const r = await get(url, p, { headers: { accept: 'application/json' } });
      expect(r.status, p).toBe(403);
      expect(JSON.parse(r.text).error.code).toBe('PERMISSION_DENIED');
      expect(r.text).not.toContain(dir);
    }
  });

  it('a symlink out of the zone (or any symlink the zone does not follow) under a folder link: 403', async () => {
    const l = await nosh.call('link_create', { path: 'pub', context: { user: 'alice' } });
    const id = (l as any).data.id;
    const links = linksOf(engineOf(nosh));
    const rec = (await links.get(id))!;
    for (const name of ['escape.txt', 'inside-link.txt']) {
      const r = await get(url, links.fileHref(rec, `/pub/${name}`));
      expect(r.status, name).toBe(403);
      expect(r.text).not.toContain('outside');
      expect(r.text).not.toContain(dir);
    }
  });

  it('expiry holds to the second', async () => {
    const l = await link('pub/ten.txt', { expires_in: 5 });
    const exp = Math.floor(Date.parse(l.expires_at) / 1000);
    try {
      clock = exp - 1;
      expect((await get(url, pathOf(l.url))).status).toBe(200);
      clock = exp;
      const r = await get(url, pathOf(l.url));
      expect(r.status).toBe(403);
      expect(r.text).toContain('expired');
    } finally {
      clock = undefined;
    }
  });

  it('revocation takes effect at once; link_list shows path, expiry and hits', async () => {
    const l = await link('pub/other.txt');
    await get(url, pathOf(l.url));
    await get(url, pathOf(l.url));
    const listed = (await ok('link_list', {})).links.find((x: any) => x.id === l.id);
    expect([listed.path, listed.zone, listed.hits, listed.expired]).toEqual(['/pub/other.txt', 'storage', 2, false]);
    expect((await ok('link_delete', { id: l.id })).deleted).toBe(true);
    expect((await get(url, pathOf(l.url))).status).toBe(403);
    const again = await nosh.call('link_delete', { id: l.id, context: { user: 'alice' } });
    expect(again.success ? '' : again.error.code).toBe('FILE_NOT_FOUND');
    const bob = await nosh.call('link_delete', { id: (await link('pub/ten.txt')).id, context: { user: 'bob' } });
    expect(bob.success ? '' : bob.error.code).toBe('FILE_NOT_FOUND');
  });

  it('a deleted file answers 404; lost group access 403', async () => {
    await ok('write', { path: 'gone.txt', content: 'x' });
    const l = await link('gone.txt');
    await ok('delete', { path: 'gone.txt' });
    expect((await get(url, pathOf(l.url))).status).toBe(404);
    await ok('write', { zone: 'group:team', path: 'g.txt', content: 'team\n' });
    const g = await link('g.txt', { zone: 'group:team' });
    expect((await get(url, pathOf(g.url))).text).toBe('team\n');
    members.delete('alice');
    try {
      expect((await get(url, pathOf(g.url))).status).toBe(403);
    } finally {
      members.add('alice');
    }
  });

  it('only GET and HEAD (405 with Allow); other addresses 404', async () => {
    const l = await link('pub/ten.txt');
    for (const m of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
      const r = await get(url, pathOf(l.url), { method: m });
      expect([r.status, r.headers.allow], m).toEqual([405, 'GET, HEAD']);
    }
    expect((await get(url, '/')).status).toBe(404);
    expect((await get(url, '/etc/passwd')).status).toBe(404);
  });

  it('one log line per request, never the token', async () => {
    const l = await link('pub/ten.txt');
    logs.length = 0;
    await get(url, pathOf(l.url));
    await new Promise((r) => setTimeout(r, 20));
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(new RegExp(`^GET ${l.id} 200 10 [0-9.]+ms$`));
    const sig = new URL(l.url).searchParams.get('t')!.split('.')[2]!;
    expect(logs.join('\n')).not.toContain(sig);
  });
});

describe('save_result_page', () => {
  it('writes output/report_<time>_<id>.md and links it; the reply carries the content (capped)', async () => {
    const d = await ok('save_result_page', { title: 'Sales', content: '| q | n |\n|---|---|\n| 1 | 5 |\n' + 'x'.repeat(5000) });
    expect(d.zone).toBe('output');
    expect(d.path).toMatch(/^\/report_\d{8}_\d{6}_[\w-]{8}\.md$/);
    expect(d.markdown).toBe(`[Sales](${d.url})`);
    expect(d.content.startsWith('# Sales\n\n| q |')).toBe(true);
    expect([d.content.length, d.content_truncated]).toEqual([4000, true]);
    const r = await get(url, pathOf(d.url));
    expect(r.text).toContain('<td>5</td>');
    expect(fs.existsSync(storage('output', d.path.slice(1)))).toBe(true);
  });

  it('an HTML fragment gets a page around it and is served sandboxed', async () => {
    const d = await ok('save_result_page', { title: 'T <b>', content: '<p>frag</p><script>window.pwned=1</script>', format: 'html' });
    expect(d.path).toMatch(/\.html$/);
    expect(d.content).toBeUndefined();
    const r = await get(url, pathOf(d.url));
    expect(r.text).toMatch(/^<!doctype html>[\s\S]*<title>T &#60;b&#62;<\/title>[\s\S]*<p>frag<\/p>/);
    expect(r.headers['content-security-policy']).toBe(FILE_CSP);
  });

  it('over resultPageMaxKb: FILE_TOO_LARGE, nothing written', async () => {
    const before = fs.readdirSync(storage('output')).length;
    const r = await nosh.call('save_result_page', { title: 'big', content: 'x'.repeat(500 * 1024 + 1), context: { user: 'alice' } });
    expect(r.success ? '' : r.error.code).toBe('FILE_TOO_LARGE');
    expect(fs.readdirSync(storage('output')).length).toBe(before);
  });
});

