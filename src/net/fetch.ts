/**
 * One download under a NetworkPolicy, with node:http / node:https only (no child process, no
 * proxy from the environment, no cookie jar, no credentials): GET or HEAD, each redirect
 * checked as the first URL was, the connection pinned to the address that was checked, the
 * body capped in bytes and the whole in time.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { NetRefusal, checkAddresses, checkUrl, hostOf, type NetworkPolicy } from './policy.js';

export interface Hop {
  url: string;
  status: number;
  /** The status line and headers as received, CRLF-terminated, with the blank line after. */
  head: string;
  headers: http.IncomingHttpHeaders;
}

export interface DownloadOptions {
  method: 'GET' | 'HEAD';
  follow: boolean;
  maxBytes: number;
  userAgent: string;
  signal: AbortSignal;
  /** Each response's head, the redirects' too (curl -I -L prints them all). */
  onHead?(hop: Hop): void | Promise<void>;
  /** Decide from the final head whether to read the body (curl -f); false: the body is skipped. */
  wantBody?(hop: Hop): boolean;
  onChunk(chunk: Buffer): void | Promise<void>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export async function download(policy: NetworkPolicy, raw: string, o: DownloadOptions): Promise<{ final: Hop; bytes: number }> {
  let url = checkUrl(policy, raw);
  let method = o.method;
  const deadline = AbortSignal.timeout(policy.timeoutMs);
  const signal = AbortSignal.any([o.signal, deadline]);
  for (let hops = 0; ; hops++) {
    const address = await resolve(policy, url);
    const res = await request(url, address, method, o.userAgent, signal, deadline);
    const hop: Hop = { url: url.href, status: res.statusCode ?? 0, head: headText(res), headers: res.headers };
    await o.onHead?.(hop);
    const location = res.headers.location;
    if (o.follow && REDIRECTS.has(hop.status) && location) {
      res.resume();
      if (hops >= policy.maxRedirects) throw new NetRefusal(`Maximum (${policy.maxRedirects}) redirects followed`, 47);
      url = checkUrl(policy, new URL(location, url).href);
      if (hop.status === 303) method = method === 'HEAD' ? 'HEAD' : 'GET';
      continue;
    }
    if (method === 'HEAD' || (o.wantBody && !o.wantBody(hop))) {
      res.resume();
      return { final: hop, bytes: 0 };
    }
    const length = Number(res.headers['content-length']);
    if (Number.isFinite(length) && length > o.maxBytes) {
      res.destroy();
      throw new NetRefusal('Maximum file size exceeded', 63);
    }
    let bytes = 0;
    try {
      for await (const chunk of res as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes > o.maxBytes) throw new NetRefusal('Maximum file size exceeded', 63);
        await o.onChunk(chunk);
      }
    } catch (e) {
      res.destroy();
      if (e instanceof NetRefusal) throw e;
      throw timeoutOr(deadline, e, `Transfer closed with outstanding read data remaining`, 18);
    }
    return { final: hop, bytes };
  }
}

async function resolve(policy: NetworkPolicy, url: URL): Promise<string> {
  const host = hostOf(url);
  if (isIP(host)) return checkAddresses(policy, url, [host]);
  const fixed = Object.hasOwn(policy.hosts, host) ? policy.hosts[host] : undefined;
  if (fixed !== undefined) return checkAddresses(policy, url, [fixed]);
  let found: { address: string }[];
  try {
    found = await lookup(host, { all: true, verbatim: true });
  } catch {
    throw new NetRefusal(`Could not resolve host: ${url.hostname}`, 6);
  }
  return checkAddresses(policy, url, found.map((a) => a.address));
}

function request(url: URL, address: string, method: string, ua: string, signal: AbortSignal, deadline: AbortSignal): Promise<http.IncomingMessage> {
  const family = isIP(address);
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolveRes, reject) => {
    const req = mod.request(url, {
      method, agent: false, signal,
      headers: { 'User-Agent': ua, Accept: '*/*' },
      // the address checked above, never a second DNS answer
      lookup: ((_h: string, opts: { all?: boolean }, cb: (...a: unknown[]) => void) =>
        opts?.all ? cb(null, [{ address, family }]) : cb(null, address, family)) as never,
    }, resolveRes);
    req.on('error', (e) => reject(timeoutOr(deadline, e, `Failed to connect to ${url.hostname} port ${url.port || (url.protocol === 'https:' ? 443 : 80)}: Couldn't connect to server`, 7)));
    req.end();
  });
}

function timeoutOr(deadline: AbortSignal, e: unknown, message: string, code: number): NetRefusal {
  if (deadline.aborted) return new NetRefusal('Operation timed out', 28);
  if ((e as { name?: string })?.name === 'AbortError') return new NetRefusal('Operation aborted', 42);
  return new NetRefusal(message, code);
}

function headText(res: http.IncomingMessage): string {
  let s = `HTTP/${res.httpVersion} ${res.statusCode ?? 0}${res.statusMessage ? ' ' + res.statusMessage : ''}\r\n`;
  for (let i = 0; i < res.rawHeaders.length; i += 2) s += `${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}\r\n`;
  return s + '\r\n';
}
