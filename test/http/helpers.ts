import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

/** One request with node:http (no fetch: raw paths such as %2e%2e reach the server as written). */
export function get(base: string, pathAndQuery: string, opts: { method?: string; headers?: Record<string, string> } = {}): Promise<Got> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: pathAndQuery, method: opts.method ?? 'GET', headers: opts.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode!, headers: res.headers, body, text: body.toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The path and query of an absolute link URL. */
export function pathOf(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}

export async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The hrefs of a page (entities of & decoded). */
export function hrefs(html: string): string[] {
  return [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!.replace(/&#38;/g, '&'));
}
