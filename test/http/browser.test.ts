import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, startHttpServer, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';
import { listen } from './helpers.js';

// Headless Chromium (Debian's chromium) against `startHttpServer`: a folder listing, an entry,
// a rendered Markdown report, a download, and malicious reports whose script must not run.
// The browser must start: if it cannot, the test fails (no skip). Screenshots stay in the temp
// folder (copied to $NOSH_SCREENSHOT_DIR when set).
const CHROMIUM = process.env.NOSH_CHROMIUM ?? '/usr/bin/chromium';
let dir: string;
let nosh: Nosh;
let srv: Awaited<ReturnType<typeof startHttpServer>>;
let browser: Browser;
let page: Page;
let marker: http.Server;
let markerUrl: string;
const markerHits: string[] = [];

async function ok(method: string, params: Record<string, unknown>): Promise<any> {
  const r = await nosh.call(method, params);
  if (!r.success) throw new Error(JSON.stringify(r.error));
  return r.data;
}

const local = (u: string) => u.replace('http://127.0.0.1:8080', srv.url);

async function shot(name: string): Promise<void> {
  const file = path.join(dir, 'screenshots', name);
  await page.screenshot({ path: file, fullPage: true });
  if (process.env.NOSH_SCREENSHOT_DIR) fs.copyFileSync(file, path.join(process.env.NOSH_SCREENSHOT_DIR, name));
}

beforeAll(async () => {
  dir = tempDir('nosh-browser-');
  fs.mkdirSync(path.join(dir, 'screenshots'));
  nosh = await createNosh({ base: path.join(dir, 'base'), threads: 1 });
  srv = await startHttpServer(nosh, { port: 0 });
  marker = http.createServer((req, res) => { markerHits.push(req.url ?? ''); res.end('marker'); });
  markerUrl = await listen(marker);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await (await browser.newContext({ acceptDownloads: true })).newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => marker?.close(r));
  await srv?.close();
  await nosh?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('links in a real browser', () => {
  it('opens a folder listing and follows an entry', async () => {
    await ok('write', { path: 'project/notes/todo.txt', content: 'ship it\n', create_dirs: true });
    await ok('write', { path: 'project/data.csv', content: 'a,b\n1,2\n' });
    await ok('write', { path: 'project/<img src=x onerror=alert(1)>.md', content: '# odd name\n' });
    await ok('write', { path: 'project/README.md', content: '# Project\n\nSee **notes/**.\n' });
    const l = await ok('link_create', { path: 'project' });
    await page.goto(local(l.url));
    expect(await page.title()).toBe('project/');
    const names = await page.locator('tbody tr td:first-child').allInnerTexts();
    expect(names).toEqual(['notes/', '<img src=x onerror=alert(1)>.md', 'README.md', 'data.csv']);
    await shot('listing.png');
    await page.click('text=notes/');
    expect(await page.locator('nav').innerText()).toBe('project / notes');
    await page.click('text=todo.txt');
    expect((await page.locator('body').innerText()).trim()).toBe('ship it');
    await page.goBack();
    await page.click('nav >> text=project');
    expect(await page.title()).toBe('project/');
  }, 60_000);

  it('opens a rendered Markdown report: its table and code block render', async () => {
    const md = '## Results\n\n| name | score |\n|------|------:|\n| alpha | 10 |\n| beta | 7 |\n\n```python\nprint("hello")\n```\n\n- [x] checked\n';
    const r = await ok('save_result_page', { title: 'Quarterly results', content: md });
    await page.goto(local(r.url));
    expect(await page.locator('h1').innerText()).toBe('Quarterly results');
    expect(await page.locator('table td').allInnerTexts()).toEqual(['alpha', '10', 'beta', '7']);
    expect((await page.locator('pre code').innerText()).trim()).toBe('print("hello")');
    await shot('report.png');
  }, 60_000);

  it('downloads a file with download=1', async () => {
    const l = await ok('link_create', { path: 'project/data.csv', download: true });
    const [download] = await Promise.all([page.waitForEvent('download'), page.goto(local(l.url)).catch(() => undefined)]);
    expect(download.suggestedFilename()).toBe('data.csv');
    const file = path.join(dir, 'dl.csv');
    await download.saveAs(file);
    expect(fs.readFileSync(file, 'utf8')).toBe('a,b\n1,2\n');
  }, 60_000);

  it('runs none of the script of a malicious report (HTML or Markdown)', async () => {
    const evil = `<p id="p">evil report</p>
<script>window.pwned = 1; fetch('${markerUrl}/script')</script>
<img src="x" onerror="window.pwned = 2; fetch('${markerUrl}/onerror')">
<img src="${markerUrl}/img">
<iframe src="${markerUrl}/iframe"></iframe>
<a id="js" href="javascript:window.pwned=3;fetch('${markerUrl}/js')">click me</a>
<svg onload="window.pwned = 4"></svg>
<form action="${markerUrl}/form"><button id="b">go</button></form>`;
    for (const format of ['html', 'markdown']) {
      const r = await ok('save_result_page', { title: `evil ${format}`, content: evil, format });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(local(r.url));
      expect(await page.locator('#p, p:has-text("evil report")').first().innerText()).toBe('evil report');
      const pwned = () => page.evaluate(() => (window as unknown as { pwned?: number }).pwned).catch((e: Error) => `evaluate failed: ${e.message}`);
      await page.waitForTimeout(300);
      // the page's own global stays unset (evaluate runs in the page even where its scripts may not)
      expect(await pwned(), format).toBeUndefined();
      await page.locator('a:has-text("click me")').click({ timeout: 2000 }).catch(() => undefined);
      await page.waitForTimeout(300);
      expect(await pwned(), format).toBeUndefined();
      await page.locator('button:has-text("go")').click({ timeout: 2000 }).catch(() => undefined);
      await page.waitForTimeout(300);
      expect(markerHits, format).toEqual([]);
    }
  }, 60_000);
});
