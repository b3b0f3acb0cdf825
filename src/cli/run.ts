import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { createNosh, type Envelope, type ExecData, type NoshConfig } from '../index.js';
import { repl } from './repl.js';
import { serveRpc } from '../rpc/server.js';
import { serveMcpStdio } from '../mcp/server.js';
import { runSchemas } from './schemas.js';

const VERSION = (JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const USAGE = `nosh: a file workspace for AI agents (no shell, no child process)

Usage:
  nosh exec [--root DIR] [--cwd PATH] [--stdin-file FILE] [--timeout MS] [--json] 'COMMAND LINE'
  nosh exec [--root DIR] [options] -- CMD [ARG...]     (argv form: no globbing, args literal)
  nosh repl [--root DIR]                               (interactive prompt)
  nosh serve [--root DIR]                              (JSON-RPC 2.0 over stdio, one message a line)
  nosh mcp [--root DIR]                                (MCP server over stdio)
  nosh schemas [--format openai|anthropic|jsonschema]  (tool definitions for function calling)
  nosh help                                            (this text)

Without --root, nosh uses its default workspace ($NOSH_HOME/workspace, ~/.nosh/workspace).
With --json, exec prints the result envelope as one JSON line; without it, it prints the
command's stdout and stderr and exits with its exit code.
`;

const COMMON = {
  root: { type: 'string' },
  cwd: { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  'stdin-file': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function runCli(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'exec': return execCommand(rest);
    case 'repl': return replCommand(rest);
    case 'serve': return serveCommand(rest);
    case 'mcp': return mcpCommand(rest);
    case 'schemas': return runSchemas(rest);
    case undefined: case 'help': case '--help': case '-h':
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`nosh: unknown command '${sub}'\n\n${USAGE}`);
      return 2;
  }
}

function configFrom(values: { root?: string }): NoshConfig {
  if (values.root !== undefined && !fs.existsSync(values.root)) throw new Error(`--root: no such folder: ${values.root}`);
  return values.root !== undefined ? { root: values.root } : {};
}

async function execCommand(args: string[]): Promise<number> {
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
  const nosh = await createNosh({ ...configFrom(values), threads: 1 });
  try {
    const stdin = readStdin(values["stdin-file"]);
    const req = argvForm ? { cmd: positionals[0]!, args: positionals.slice(1) } : { command: positionals[0]! };
    const res = await nosh.exec({ ...req, cwd: values.cwd ?? '/' }, { stdin, timeoutMs });
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
  const { values } = parseArgs({ args, options: { root: COMMON.root, help: COMMON.help }, strict: true });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const nosh = await createNosh({ ...configFrom(values), threads: 1 });
  try {
    return await repl(nosh);
  } finally {
    await nosh.close();
  }
}

async function serveCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { root: COMMON.root, help: COMMON.help }, strict: true });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const nosh = await createNosh(configFrom(values));
  // SIGTERM: stop reading; calls already running (writes included) finish and answer.
  const stop = () => process.stdin.destroy();
  process.once('SIGTERM', stop);
  try {
    await serveRpc(nosh, process.stdin, process.stdout);
  } catch (e) {
    if ((e as NodeJS.ErrnoException)?.code !== 'ERR_STREAM_PREMATURE_CLOSE') throw e;
  } finally {
    process.off('SIGTERM', stop);
    await nosh.close();
  }
  return 0;
}

async function mcpCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { root: COMMON.root, help: COMMON.help }, strict: true });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const nosh = await createNosh(configFrom(values));
  try {
    await serveMcpStdio(nosh, VERSION);
  } finally {
    await nosh.close();
  }
  return 0;
}
