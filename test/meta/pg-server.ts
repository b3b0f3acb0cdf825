/**
 * A real PostgreSQL server for the metadata-store tests and the bench: Debian's postgresql
 * (`.ci/run` installs it), started in a temp folder on a free local port. As root (the tests
 * run as root, which postgres refuses) it runs as the `postgres` user. No vitest here: the
 * bench uses it too.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export interface PgServer {
  /** postgres://nosh@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  /** A new empty database on the server, its URL. */
  freshDb(): Promise<string>;
  /** Run SQL as the superuser (pg_terminate_backend in the tests). */
  sql(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Stop the server (fast shutdown): connections die. */
  stop(): Promise<void>;
  /** Start it again on the same port and data. */
  start(): Promise<void>;
  /** Stop it and remove its folder. */
  destroy(): Promise<void>;
}

function binDir(): string {
  if (process.env.NOSH_PG_BIN) return process.env.NOSH_PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'postgres'))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql (run .ci/run, or apt-get install postgresql; or set NOSH_PG_BIN)');
  return path.join(root, versions[0]!, 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startPostgres(): Promise<PgServer> {
  const bin = binDir();
  const asRoot = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nosh-pg-'));
  const data = path.join(dir, 'data');
  const sock = path.join(dir, 'sock');
  fs.mkdirSync(data);
  fs.mkdirSync(sock);
  const as = (cmd: string, args: string[]) => (asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]) as [string, string[]];
  if (asRoot) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    if (!Number.isInteger(uid) || uid <= 0) throw new Error('no postgres user to run the server as (root is refused)');
    for (const d of [dir, data, sock]) fs.chownSync(d, uid, gid);
  }
  const init = spawnSync(...as(path.join(bin, 'initdb'), ['-D', data, '-U', 'nosh', '--auth=trust', '-E', 'UTF8', '--no-sync']), { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  const port = await freePort();
  const url = `postgres://nosh@127.0.0.1:${port}/postgres`;
  let proc: ChildProcess | undefined;
  let log = '';

  const { default: pg } = await import('pg');
  const sql = async (text: string, params: unknown[] = [], target = url) => {
    const c = new pg.Client({ connectionString: target });
    c.on('error', () => {});
    await c.connect();
    try {
      return (await c.query(text, params)).rows as Record<string, unknown>[];
    } finally {
      await c.end().catch(() => {});
    }
  };

  const start = async () => {
    log = '';
    proc = spawn(...as(path.join(bin, 'postgres'), ['-D', data, '-p', String(port), '-k', sock, '-c', 'listen_addresses=127.0.0.1',
      '-c', 'fsync=off', '-c', 'max_connections=200']), { stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout!.on('data', (d) => (log += d));
    proc.stderr!.on('data', (d) => (log += d));
    const t0 = Date.now();
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`postgres exited (${proc.exitCode}): ${log}`);
      try {
        await sql('SELECT 1');
        return;
      } catch {
        if (Date.now() - t0 > 60_000) throw new Error(`postgres did not accept connections within 60 s: ${log}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };

  const stop = async () => {
    const p = proc;
    proc = undefined;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    // fast shutdown: SIGINT to the postmaster itself (its pid file's first line; runuser does not pass it on)
    const pidFile = path.join(data, 'postmaster.pid');
    let pid = NaN;
    try { pid = Number.parseInt(fs.readFileSync(pidFile, 'utf8'), 10); } catch { /* not written yet */ }
    try { process.kill(Number.isInteger(pid) ? pid : p.pid!, 'SIGINT'); } catch { /* gone */ }
    await exited;
    for (let i = 0; i < 300 && fs.existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 100));
  };

  await start();
  let n = 0;
  return {
    url, port, start, stop,
    sql: (text, params) => sql(text, params),
    async freshDb() {
      const name = `t${process.pid}_${++n}_${Math.random().toString(36).slice(2, 8)}`;
      await sql(`CREATE DATABASE ${name}`);
      return `postgres://nosh@127.0.0.1:${port}/${name}`;
    },
    async destroy() {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
