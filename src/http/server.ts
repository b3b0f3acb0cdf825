/**
 * `nosh http`: the link server on its own port (node:http, no framework). Binds 127.0.0.1 unless
 * told otherwise; header and request timeouts keep slow clients from holding sockets.
 */
import * as http from 'node:http';
import type { Nosh } from '../nosh.js';
import { createLinkHandler, type HandlerOptions } from './handler.js';

export { createLinkHandler, handlerFor, PAGE_CSP, FILE_CSP, type HandlerOptions, type RequestHandler } from './handler.js';

export interface HttpOptions extends HandlerOptions {
  host?: string;
  /** 0: any free port. */
  port?: number;
}

export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;
/** A socket with no traffic for this long is closed (a reader that stopped reading). */
export const IDLE_TIMEOUT_MS = 60_000;

export async function startHttpServer(nosh: Nosh, opts: HttpOptions = {}): Promise<{ server: http.Server; url: string; close(): Promise<void> }> {
  const handler = createLinkHandler(nosh, opts);
  const server = http.createServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, keepAliveTimeout: 5000 }, handler);
  server.setTimeout(IDLE_TIMEOUT_MS, (socket) => socket.destroy());
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 8080, host, () => { server.off('error', reject); resolve(); });
  });
  const addr = server.address() as { port: number };
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    server,
    url: `http://${shownHost}:${addr.port}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
