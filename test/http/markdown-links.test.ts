import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { createLinkHandler } from '../../src/http/server.js';
import { tempDir } from '../helpers.js';
import { get, hrefs, listen, pathOf } from './helpers.js';

// Relative links and images of a Markdown file rendered through a folder link (issue #21): a
// target inside the linked folder gets a tokenised URL of the same link, one outside is inert.
let dir: string;
let nosh: Nosh;
let server: http.Server;
let url: string;

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const INDEX = [
  '# Index', '',
  '[b](b.md) [spaced](my%20notes.md#part) [sub](sub/c.txt) [self](./b.md?x=1) [frag](#top)',
  '[up](../ten.txt) [far](../../../etc/passwd) [root](/ten.txt) [ext](https://example.com/x)',
  '![pic](img.png) ![outpic](../pic.png)', '',
].join('\n');

async function ok<T = any>(method: string, params: Record<string, unknown>): Promise<T> {
  const r = await nosh.call(method, { context: { user: 'alice' }, ...params });
  if (!r.success) throw new Error(JSON.stringify(r.error));
  return r.data as T;
}

/** The rendered <article> of a Markdown page. */
const article = (html: string) => html.slice(html.indexOf('<article'), html.indexOf('</article>'));
/** The opening tag of the element whose text (or alt) is `label`. */
function tagOf(html: string, label: string): string {
  const a = new RegExp(`<a[^>]*>${label}</a>`).exec(html)?.[0];
  return a ?? new RegExp(`<img[^>]*alt="${label}"[^>]*>`).exec(html)?.[0] ?? '';
}
const attr = (tag: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(tag)?.[1]?.replace(/&#38;|&amp;/g, '&');

beforeAll(async () => {
  dir = tempDir('nosh-mdlinks-');
  nosh = await createNosh({ base: path.join(dir, 'base'), threads: 1 });
  server = http.createServer(createLinkHandler(nosh));
  url = await listen(server);
  await ok('write', { path: 'pub/ten.txt', content: '0123456789', create_dirs: true });
  await ok('write', { path: 'pub/pic.png', content_base64: PNG.toString('base64') });
  await ok('write', { path: 'pub/docs/index.md', content: INDEX, create_dirs: true });
  await ok('write', { path: 'pub/docs/b.md', content: '# Bee\n' });
  await ok('write', { path: 'pub/docs/my notes.md', content: '# Notes\n' });
  await ok('write', { path: 'pub/docs/sub/c.txt', content: 'see\n', create_dirs: true });
  await ok('write', { path: 'pub/docs/img.png', content_base64: PNG.toString('base64') });
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await nosh.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function renderedThrough(folder: string): Promise<string> {
  const l = await ok('link_create', { path: folder });
  let listing = await get(url, pathOf(l.url));
  if (folder === 'pub') listing = await get(url, hrefs(listing.text).find((h) => h.includes('path=%2Fpub%2Fdocs&'))!);
  const entry = hrefs(listing.text).find((h) => h.includes(encodeURIComponent('/index.md')))!;
  const page = await get(url, entry);
  expect(page.status).toBe(200);
  return article(page.text);
}

describe('relative links in rendered Markdown under a folder link', () => {
  it('inside the linked folder: tokenised URLs of the same link that open', async () => {
    const html = await renderedThrough('pub/docs');
    const expectOpens = async (label: string, want: RegExp | Buffer) => {
      const href = attr(tagOf(html, label), label === 'pic' ? 'src' : 'href');
      expect(href, label).toMatch(/^\/files\/out\?path=%2Fpub%2Fdocs%2F.*&token=/);
      const r = await get(url, href!.replace(/#.*$/, ''));
      expect(r.status, label).toBe(200);
      if (Buffer.isBuffer(want)) expect(r.body.equals(want), label).toBe(true);
      else expect(r.text, label).toMatch(want);
      return href!;
    };
    await expectOpens('b', /<h1[^>]*>Bee<\/h1>/);
    expect(await expectOpens('spaced', /<h1[^>]*>Notes<\/h1>/)).toMatch(/#part$/);
    await expectOpens('sub', /^see\n$/);
    await expectOpens('self', /<h1[^>]*>Bee<\/h1>/);
    await expectOpens('pic', PNG);
    expect(attr(tagOf(html, 'frag'), 'href')).toBe('#top');
    expect(attr(tagOf(html, 'ext'), 'href')).toBe('https://example.com/x');
  });

  it('leaving the linked folder: inert (no href, no src), never a tokenised URL', async () => {
    const html = await renderedThrough('pub/docs');
    for (const label of ['up', 'far', 'root']) {
      const tag = tagOf(html, label);
      expect(tag, label).toMatch(/^<a/);
      expect(attr(tag, 'href'), label).toBeUndefined();
    }
    const out = tagOf(html, 'outpic');
    expect(out).toMatch(/^<img/);
    expect(attr(out, 'src')).toBeUndefined();
  });

  it('the same file under a link to the parent folder: ../ stays inside and opens', async () => {
    const html = await renderedThrough('pub');
    const up = attr(tagOf(html, 'up'), 'href');
    expect(up).toMatch(/^\/files\/out\?path=%2Fpub%2Ften\.txt&token=/);
    expect((await get(url, up!)).text).toBe('0123456789');
    expect(attr(tagOf(html, 'far'), 'href')).toBeUndefined();
    expect(attr(tagOf(html, 'root'), 'href')).toBeUndefined(); // '/ten.txt' is the zone's root, outside /pub
  });
});
