import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { Context, Envelope, ExecData, Nosh, NoshConfig } from '../index.js';
import type { Role } from '../zones/context.js';
import type { Surface } from '../api/params.js';
import type { WorkerPool } from '../pool/index.js';
import { LIMITS } from '../limits.js';

// Only what parsing the arguments needs is imported up front: the engine, zod and the tools
// are loaded after the worker pool has been started, so the workers boot (each loads its own
// modules) while this thread loads them (start-up of `nosh serve` to its first answer).

const VERSION = (JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const USAGE = `nosh: a file workspace for AI agents (no shell, no child process)

Usage:
  nosh exec [WORKSPACE] [--cwd PATH] [--stdin-file FILE] [--timeout MS] [--json] 'COMMAND LINE'
  nosh exec [WORKSPACE] [options] -- CMD [ARG...]      (argv form: no globbing, args literal)
  nosh repl [WORKSPACE]                                (interactive prompt)
  nosh serve [WORKSPACE] [--trust-request-context]     (JSON-RPC 2.0 over stdio, one message a line)
  nosh mcp [WORKSPACE]                                 (MCP server over stdio)
  nosh http [WORKSPACE] [--host 127.0.0.1] [--port 8080] [--public-url URL]  (serve shareable links over HTTP)
  nosh link create PATH [--expires SECONDS] [--download] | list | delete ID  [WORKSPACE] [--json]
  nosh schemas [--format openai|openai-responses|anthropic|jsonschema] [--strict]  (tool definitions for function calling)
  nosh help                                            (this text)

WORKSPACE options:
  --root DIR            one folder as the only zone ('root'); the simplest setup
  --config FILE         a JSON config file (base, limits, quotas, zones, mounts, groups)
  --base DIR            the storage folder (default $NOSH_HOME, or ~/.nosh)
  --zone NAME           storage (default), documents, uploads, output, share, group:ID, session:ID, a mount
  --user ID  --conversation ID  --session ID  --role developer|generalist|critic|admin
                        who is calling: fixed for the whole process; a request may only narrow it
                        (ask for a read-only role, name a zone), never become another user or join a group

--trust-request-context (serve only): the process on the other end of stdio is the runtime, not the
  model. Each request's context (user, groups, role, ...) is then taken as given, over the flags, and the
  runtime methods (import, maintenance) are served. Never use it where a model writes the requests.

With no option, nosh uses the storage zone of user 'default' under ~/.nosh.
With --json, exec prints the result envelope as one JSON line; without it, it prints the
command's stdout and stderr and exits with its exit code.
`;

const WORKSPACE = {
  root: { type: 'string' },
  config: { type: 'string' },
  base: { type: 'string' },
  zone: { type: 'string' },
  user: { type: 'string' },
  conversation: { type: 'string' },
  session: { type: 'string' },
  role: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const COMMON = {
  ...WORKSPACE,
  cwd: { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  'stdin-file': { type: 'string' },
} as const;

export async function runCli(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'exec': return execCommand(rest);
    case 'repl': return replCommand(rest);
    case 'serve': return serveCommand(rest);
    case 'mcp': return mcpCommand(rest);
    case 'schemas': return (await import('./schemas.js')).runSchemas(rest);
    case 'http': return (await import('./links.js')).httpCommand(rest, { configFrom, defaultsFrom, rawConfigFrom });
    case 'link': return (await import('./links.js')).linkCommand(rest, { configFrom, defaultsFrom, rawConfigFrom });
    case undefined: case 'help': case '--help': case '-h':
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`nosh: unknown command '${sub}'\n\n${USAGE}`);
      return 2;
  }
}

type WorkspaceValues = { root?: string; config?: string; base?: string; zone?: string; user?: string; conversation?: string; session?: string; role?: string };

/** The --config file as JSON, not yet validated (undefined without --config). */
function rawConfigFrom(values: WorkspaceValues): unknown {
  if (values.config === undefined) return undefined;
  try {
    return JSON.parse(fs.readFileSync(values.config, 'utf8'));
  } catch (e) {
    throw new Error(`--config: cannot read ${values.config} as JSON: ${(e as Error).message}`);
  }
}

/** The config the flags describe: --config file, then --base / --root on top. */
async function configFrom(values: WorkspaceValues, raw: unknown): Promise<NoshConfig> {
  let cfg: NoshConfig = {};
  if (values.config !== undefined) {
    const { parseConfig } = await import('../config-schema.js');
    try {
      parseConfig(raw);
    } catch (e) {
      throw new Error(`--config: ${(e as Error).message.replace(/^config: /, '')}`);
    }
    cfg = raw as NoshConfig;
  }
  if (values.root !== undefined) {
    if (!fs.existsSync(values.root)) throw new Error(`--root: no such folder: ${values.root}`);
    cfg = { ...cfg, root: values.root };
  }
  if (values.base !== undefined) cfg = { ...cfg, base: values.base };
  if (cfg.root !== undefined && cfg.base !== undefined) {
    throw new Error('give --root (one folder as the only zone) or --base (the zones of users, groups, sessions), not both' +
      (values.root !== undefined && values.base !== undefined ? '' : ' (the --config file sets the other one)'));
  }
  return cfg;
}

/** --zone and the context flags, as defaults for every call. */
async function defaultsFrom(values: WorkspaceValues): Promise<{ zone?: string; context?: Context }> {
  const { ROLES } = await import('../zones/context.js');
  if (values.role !== undefined && !(ROLES as readonly string[]).includes(values.role)) {
    throw new Error(`--role: unknown role '${values.role}' (${ROLES.join(', ')})`);
  }
  const context: Context = {
    ...(values.user !== undefined ? { user: values.user } : {}),
    ...(values.conversation !== undefined ? { conversation: values.conversation } : {}),
    ...(values.session !== undefined ? { session: values.session } : {}),
    ...(values.role !== undefined ? { role: values.role as Role } : {}),
  };
  return { zone: values.zone, context: Object.keys(context).length > 0 ? context : undefined };
}

/**
 * The workspace the flags describe. The worker pool is started first, from the pool settings
 * of the raw config (threads, limits.memoryMb): the workers boot while this thread imports
 * zod and the engine and validates the config. If the validated config asks for another
 * pool (or is refused), that early pool is closed.
 */
async function open(values: WorkspaceValues, threads?: number, trust: { surface: Surface; trustRequestContext?: boolean } = { surface: 'runtime' }): Promise<{ nosh: Nosh; ready: () => Promise<void>; unbound: Nosh }> {
  const raw = rawConfigFrom(values);
  const early = poolSettings(raw, threads);
  const { WorkerPool } = await import('../pool/index.js');
  let pool: WorkerPool | undefined = new WorkerPool(early);
  try {
    const cfg = await configFrom(values, raw);
    const defaults = await defaultsFrom(values);
    const [{ resolveConfig }, { createNosh }, { bindIdentity }] = await Promise.all([import('../config.js'), import('../nosh.js'), import('../api/identity.js')]);
    const wanted = { ...cfg, ...(threads ? { threads } : {}) };
    const config = await resolveConfig(wanted);
    if (config.threads !== early.threads || config.limits.memoryMb !== early.memoryMb) {
      const unfit = pool;
      pool = undefined;
      await unfit.close();
    }
    // The CLI hands createNosh the pool it started, and does not wait for the method registry
    // (typed tools, host methods): ready() loads it, when a caller needs it.
    const nosh = await createNosh(wanted, { pool, defer: true, resolved: config });
    return { nosh: bindIdentity(nosh, { ...defaults, ...trust }), ready: () => nosh.ready!(), unbound: nosh };
  } catch (e) {
    await pool?.close();
    throw e;
  }
}

/** threads and limits.memoryMb of a raw config, as the config schema would read them (its defaults otherwise). */
function poolSettings(raw: unknown, threads: number | undefined): { threads: number | undefined; memoryMb: number } {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as { threads?: unknown; limits?: { memoryMb?: unknown } };
  const int = (v: unknown, min: number, max: number) => (Number.isInteger(v) && (v as number) >= min && (v as number) <= max ? v as number : undefined);
  return {
    threads: threads ?? int(r.threads, 1, 256),
    memoryMb: int(typeof r.limits === 'object' && r.limits !== null ? r.limits.memoryMb : undefined, LIMITS.memoryMb.min, LIMITS.memoryMb.max) ?? LIMITS.memoryMb.default,
  };
}

async function execCommand(args: string[]): Promise<number> {
  // With --json every outcome is one JSON envelope, a usage error too (an option before any `--`).
  const end = args.indexOf('--');
  if (!(end < 0 ? args : args.slice(0, end)).includes('--json')) return execOnce(args);
  try {
    return await execOnce(args);
  } catch (e) {
    const { NoshError } = await import('../errors.js');
    const err = e instanceof NoshError ? e.toBody()
      : { code: 'INVALID_ARGUMENT', message: e instanceof Error ? e.message : String(e), details: {}, hint: 'nosh exec --help lists the options.' };
    process.stdout.write(JSON.stringify({ success: false, error: err }) + '\n');
    return 2;
  }
}

async function execOnce(args: string[]): Promise<number> {
  const { values, positionals, tokens } = parseArgs({ args, options: COMMON, allowPositionals: true, strict: true, tokens: true });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const argvForm = tokens.some((t) => t.kind === 'option-terminator');
  if (positionals.length === 0) throw new Error("exec needs a command, e.g. nosh exec 'ls -la'");
  if (!argvForm && positionals.length > 1) {
    throw new Error("give the command line as one quoted argument ('ls -la'), or use -- CMD ARG... for the argv form");
  }
  const timeoutMs = values.timeout !== undefined ? Number(values.timeout) : undefined;
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) throw new Error('--timeout takes milliseconds, a positive whole number');
  const { nosh } = await open(values, 1);
  try {
    const stdin = readStdin(values["stdin-file"]);
    const req = argvForm ? { cmd: positionals[0]!, args: positionals.slice(1) } : { command: positionals[0]! };
    // A call past a second shows a progress line on a terminal's stderr, cleared when it ends.
    let shown = false;
    const of = (n: number, total: number | undefined) => `${n}${total !== undefined ? `/${total}` : ''}`;
    const onProgress = process.stderr.isTTY ? (p: { files: number; bytes: number; total?: number; total_bytes?: number; phase?: string }) => {
      shown = true;
      process.stderr.write(`\r\x1b[Knosh: ${p.phase === 'commit' ? 'commit: ' : ''}${of(p.files, p.total)} files, ${of(p.bytes, p.total_bytes)} bytes`);
    } : undefined;
    const res = await nosh.exec({ ...req, cwd: values.cwd ?? '/' }, { stdin, timeoutMs, onProgress });
    if (shown) process.stderr.write('\r\x1b[K');
    return printResult(res, values.json ?? false);
  } finally {
    await nosh.close();
  }
}

function readStdin(file: string | undefined): Uint8Array | undefined {
  if (file !== undefined) return new Uint8Array(fs.readFileSync(file));
  // Piped or redirected from a file: pass it on. A terminal or /dev/null: no stdin.
  try {
    const st = fs.fstatSync(0);
    if (st.isFIFO() || st.isFile() || st.isSocket()) return new Uint8Array(fs.readFileSync(0));
  } catch { /* no stdin */ }
  return undefined;
}

export function printResult(res: Envelope<ExecData>, json: boolean): number {
  if (json) {
    process.stdout.write(JSON.stringify(res) + '\n');
    return res.success ? 0 : 2;
  }
  if (!res.success) {
    process.stderr.write(`nosh: ${res.error.code}: ${res.error.message}\n`);
    if (res.error.hint) process.stderr.write(`hint: ${res.error.hint}\n`);
    return 2;
  }
  const d = res.data;
  process.stdout.write(d.stdout_base64 !== undefined ? Buffer.from(d.stdout_base64, 'base64') : d.stdout);
  process.stderr.write(d.stderr);
  if (d.truncated) process.stderr.write(`nosh: ${res.message}\n`);
  return d.exit_code;
}

async function replCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: WORKSPACE, strict: true });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const { nosh } = await open(values, 1);
  try {
    const { repl } = await import('./repl.js');
    return await repl(nosh);
  } finally {
    await nosh.close();
  }
}

async function serveCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { ...WORKSPACE, 'trust-request-context': { type: 'boolean' } }, strict: true });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const trusted = values['trust-request-context'] === true;
  const { nosh, ready, unbound } = await open(values, undefined, { surface: trusted ? 'runtime' : 'model', trustRequestContext: trusted });
  const { serveRpc } = await import('../rpc/server.js');
  const sweep = (await import('../api/upkeep.js')).startSessionSweep(unbound);
  // SIGTERM: stop reading; calls already running (writes included) finish and answer.
  const stop = () => process.stdin.destroy();
  process.once('SIGTERM', stop);
  try {
    await serveRpc(nosh, process.stdin, process.stdout, { ready });
  } catch (e) {
    if ((e as NodeJS.ErrnoException)?.code !== 'ERR_STREAM_PREMATURE_CLOSE') throw e;
  } finally {
    process.off('SIGTERM', stop);
    await sweep.stop();
    await nosh.close();
  }
  return 0;
}

async function mcpCommand(args: string[]): Promise<number> {
  if (args.includes('--trust-request-context')) {
    throw new Error('mcp: --trust-request-context is refused: an MCP client passes on what the model writes, so identity comes from the flags only');
  }
  const { values } = parseArgs({ args, options: WORKSPACE, strict: true });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const { nosh, ready, unbound } = await open(values, undefined, { surface: 'model' });
  const sweep = (await import('../api/upkeep.js')).startSessionSweep(unbound);
  try {
    await ready();
    const { serveMcpStdio } = await import('../mcp/server.js');
    await serveMcpStdio(nosh, VERSION);
  } finally {
    await sweep.stop();
    await nosh.close();
  }
  return 0;
}
