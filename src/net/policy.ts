/**
 * Network downloads under a policy (Fileshed's network_mode): `network: "disabled"` (the
 * default) or `"safe"` with an allow-list of hosts and host:ports. What a URL may reach is
 * decided here, before any byte is sent: the scheme (http, https), no credentials in the URL,
 * the host on the allow-list, and every address it resolves to public, or listed itself
 * (a private, loopback, link-local or otherwise special address is reached only when the
 * allow-list names it: SSRF). The connection then goes to the address checked here, never to
 * a second DNS answer (no rebinding between check and connect).
 */
import { isIP } from 'node:net';

/** What a worker gets of the config's network settings (plain data, in the task's limits). */
export interface NetworkPolicy {
  /** Host names, IP literals, each optionally with :port (IPv6 in brackets: [::1]:8080). Lower case. */
  allow: string[];
  /** Fixed answers for names (a pinned DNS, and tests): name -> IP. */
  hosts: Record<string, string>;
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
}

export class NetRefusal extends Error {
  constructor(message: string, readonly curlCode: number) { super(message); }
}

/** Whether host (and port) is on the allow-list. */
export function hostAllowed(policy: NetworkPolicy, host: string, port: number): boolean {
  const h = host.toLowerCase();
  const shown = isIP(h) === 6 ? `[${h}]` : h;
  return policy.allow.includes(shown) || policy.allow.includes(`${shown}:${port}`) || policy.allow.includes(h);
}

/** The URL's parts once it passed the checks that need no lookup. */
export function checkUrl(policy: NetworkPolicy, raw: string): URL {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    throw new NetRefusal('URL rejected: Malformed input to a URL function', 3);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new NetRefusal(`Protocol "${url.protocol.slice(0, -1)}" not supported or disabled in libcurl`, 1);
  }
  if (url.username || url.password) throw new NetRefusal('nosh: credentials in a URL are not sent (no host cookies or credentials)', 7);
  const host = hostOf(url);
  if (!hostAllowed(policy, host, portOf(url))) {
    throw new NetRefusal(`nosh: ${hostPort(url)} is not in the network allow-list`, 7);
  }
  return url;
}

export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

export function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

export function hostPort(url: URL): string {
  return `${url.hostname}:${portOf(url)}`;
}

/**
 * Check the addresses a name resolved to: each must be public, or named on the allow-list
 * itself. Returns the first (the one to connect to).
 */
export function checkAddresses(policy: NetworkPolicy, url: URL, addresses: string[]): string {
  if (addresses.length === 0) throw new NetRefusal(`Could not resolve host: ${url.hostname}`, 6);
  for (const a of addresses) {
    if (isSpecial(a) && !hostAllowed(policy, a, portOf(url))) {
      throw new NetRefusal(`nosh: ${url.hostname} resolves to ${a}, a private, loopback or link-local address not in the network allow-list`, 7);
    }
  }
  return addresses[0]!;
}

/** Private, loopback, link-local, unspecified, multicast, reserved, CGNAT, and IPv6 forms of them. */
export function isSpecial(ip: string): boolean {
  const v = isIP(ip);
  if (v === 4) return special4(ip.split('.').map(Number));
  if (v !== 6) return true;
  const a = ip.toLowerCase();
  const mapped = /^(?:0*:)*:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a) ?? /^::(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return special4(mapped[1]!.split('.').map(Number));
  const words = expand6(a);
  if (!words) return true;
  if (words.every((w) => w === 0)) return true; // ::
  if (words.slice(0, 7).every((w) => w === 0) && words[7] === 1) return true; // ::1
  if (words.slice(0, 5).every((w) => w === 0) && words[5] === 0xffff) return true; // mapped, other spelling
  const w0 = words[0]!;
  if ((w0 & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((w0 & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((w0 & 0xffc0) === 0xfec0) return true; // site-local (deprecated)
  if ((w0 & 0xff00) === 0xff00) return true; // multicast
  if (w0 === 0x2001 && words[1] === 0x0db8) return true; // documentation
  if (w0 === 0x0064 && words[1] === 0xff9b) return true; // NAT64 (reaches IPv4 space)
  if (w0 === 0x2002) return true; // 6to4 (embeds IPv4)
  return false;
}

function special4([a, b]: number[]): boolean {
  return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b! >= 16 && b! <= 31) ||
    (a === 192 && b === 168) || (a === 100 && b! >= 64 && b! <= 127) || (a === 192 && b === 0) || (a === 198 && (b === 18 || b === 19)) ||
    a! >= 224;
}

function expand6(a: string): number[] | null {
  const [head, tail] = a.includes('::') ? a.split('::') as [string, string] : [a, undefined];
  const part = (s: string | undefined) => (s ? s.split(':') : []);
  let h = part(head);
  let t = part(tail);
  const last = (t.length ? t : h).at(-1);
  if (last && last.includes('.')) {
    const q = last.split('.').map(Number);
    const pair = [((q[0]! << 8) | q[1]!).toString(16), ((q[2]! << 8) | q[3]!).toString(16)];
    if (t.length) t = [...t.slice(0, -1), ...pair];
    else h = [...h.slice(0, -1), ...pair];
  }
  const fill = 8 - h.length - t.length;
  if (tail === undefined ? fill !== 0 : fill < 0) return null;
  return [...h, ...Array(tail === undefined ? 0 : fill).fill('0'), ...t].map((w) => parseInt(w, 16));
}
