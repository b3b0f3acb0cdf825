import { defineCommand, versionText, type CommandContext, type CommandDef } from '../../src/command/index.js';
import { NoshError } from '../../src/errors.js';
import { VfsError } from '../../src/vfs/index.js';
import { AwkSyntaxError, unescape } from './lexer.js';
import { Parser, Refused, type Program, type Source } from './parser.js';
import { AwkFatal } from './regex.js';
import { Rt, S } from './runtime.js';
import { AwkArr, SN } from './values.js';
import { usage } from './usage.js';
import { runProgram } from './run.js';
import { say, vpath } from './io.js';

interface Cli {
  sources: Source[];
  assigns: string[];
  fs?: string;
  operands: string[];
  help?: boolean;
  version?: boolean;
  error?: string;
  refused?: string;
}

const REFUSED: Record<string, string> = {
  l: '-l/--load is not supported in nosh: no extension can be loaded',
  load: '-l/--load is not supported in nosh: no extension can be loaded',
  P: '--posix is not supported in nosh: it runs gawk\'s language with its extensions; run the program without it',
  posix: '--posix is not supported in nosh: it runs gawk\'s language with its extensions; run the program without it',
  M: '-M/--bignum is not supported in nosh',
  bignum: '-M/--bignum is not supported in nosh',
  p: '--profile is not supported in nosh', profile: '--profile is not supported in nosh',
  o: '--pretty-print is not supported in nosh', 'pretty-print': '--pretty-print is not supported in nosh',
  D: '--debug is not supported in nosh', debug: '--debug is not supported in nosh',
  d: '--dump-variables is not supported in nosh', 'dump-variables': '--dump-variables is not supported in nosh',
  n: '--non-decimal-data is not supported in nosh', 'non-decimal-data': '--non-decimal-data is not supported in nosh',
};

const LONG_WITH_ARG = ['field-separator', 'assign', 'file', 'source', 'exec', 'include', 'load'];
const LONG_BOOL = ['characters-as-bytes', 'traditional', 'copyright', 'gen-pot', 'help', 'trace', 'lint', 'use-lc-numeric', 'optimize', 'posix', 're-interval', 'no-optimize', 'sandbox', 'lint-old', 'version', 'bignum', 'non-decimal-data', 'profile', 'pretty-print', 'debug', 'dump-variables', 'csv'];

/** gawk's options: they end at the program text (the first operand). */
function parseCli(args: string[], readFile: (name: string) => string): Cli {
  const cli: Cli = { sources: [], assigns: [], operands: [] };
  let i = 0;
  let progFile = false;
  const take = (opt: string): string => {
    if (i + 1 >= args.length) throw new Error(`option requires an argument -- '${opt}'`);
    return args[++i]!;
  };
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') { i++; break; }
    if (a.startsWith('--') && a.length > 2) {
      const eq = a.indexOf('=');
      const given = eq > 0 ? a.slice(2, eq) : a.slice(2);
      const all = [...LONG_WITH_ARG, ...LONG_BOOL];
      const exact = all.filter((n) => n === given);
      const matches = exact.length ? exact : all.filter((n) => n.startsWith(given));
      if (matches.length !== 1) { cli.error = `unrecognized option '${a}'`; return cli; }
      const name = matches[0]!;
      if (REFUSED[name]) { cli.refused = REFUSED[name]; return cli; }
      let val: string | undefined;
      if (LONG_WITH_ARG.includes(name)) val = eq > 0 ? a.slice(eq + 1) : take(name);
      switch (name) {
        case 'field-separator': cli.fs = val; break;
        case 'assign': cli.assigns.push(val!); break;
        case 'file': case 'exec': case 'include': cli.sources.push({ text: readFile(val!), name: val! }); progFile = true; if (name === 'exec') { i++; return finish(); } break;
        case 'source': cli.sources.push({ text: val!, name: 'cmd. line' }); break;
        case 'help': cli.help = true; return cli;
        case 'version': cli.version = true; return cli;
        case 'csv': cli.refused = '--csv is not supported in nosh'; return cli;
        default: break;
      }
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const o = a[j]!;
        const rest = a.slice(j + 1);
        const arg = (): string => (rest !== '' ? rest : take(o));
        if (REFUSED[o]) { cli.refused = REFUSED[o]; return cli; }
        if (o === 'F') { cli.fs = arg(); break; }
        if (o === 'v') { cli.assigns.push(arg()); break; }
        if (o === 'f' || o === 'E' || o === 'i') {
          const f = arg();
          cli.sources.push({ text: readFile(f), name: f });
          progFile = true;
          if (o === 'E') { i++; return finish(); }
          break;
        }
        if (o === 'e') { cli.sources.push({ text: arg(), name: 'cmd. line' }); break; }
        if (o === 'h') { cli.help = true; return cli; }
        if (o === 'V') { cli.version = true; return cli; }
        if ('bcCgILNOrsSt'.includes(o)) continue;
        cli.error = `invalid option -- '${o}'`;
        return cli;
      }
      continue;
    }
    break;
  }
  return finish();
  function finish(): Cli {
    const rest = args.slice(i);
    if (cli.sources.length === 0) {
      if (rest.length === 0) { cli.error = ''; return cli; }
      cli.sources.push({ text: rest.shift()!, name: 'cmd. line' });
    }
    void progFile;
    cli.operands = rest;
    return cli;
  }
}

/** Escapes in -v values, -F and var=value operands; gawk warns about unknown ones (without a location). */
let escapeWarnings: string[] = [];
function processEscapes(s: string): string {
  if (!s.includes('\\')) return s;
  let out = '';
  for (let i = 0; i < s.length;) {
    if (s[i] === '\\') {
      const r = unescape(s, i, (m) => { escapeWarnings.push(`warning: ${m}`); }, 0, false);
      out += r.text;
      i = r.end;
    } else out += s[i++];
  }
  return out;
}

function compileOnly(args: string[]): Program | null {
  try {
    const cli = parseCli(args, () => '');
    if (cli.error !== undefined || cli.refused || cli.help || cli.version) return null;
    return new Parser(() => undefined).parse(cli.sources);
  } catch {
    return null;
  }
}

function mutates(args: string[]): boolean {
  // -f files are not read here: a program file that writes is checked when it runs
  const prog = compileOnly(args);
  return prog !== null && prog.writes;
}

const def: CommandDef = defineCommand({
  name: 'awk',
  aliases: ['gawk'],
  reference: 'GNU Awk 5.2.1',
  summary: 'Pattern scanning and processing language (gawk 5.2). system(), "cmd" | getline, print | "cmd", |& coprocesses, @load and /inet/ files are not supported: nosh runs no other program. Files are read and written in the zone.',
  usage: "[-F fs] [-v var=val] [-f progfile | 'program'] [file ...]",
  parse: 'raw',
  usageStatus: 2,
  troubleStatus: 2,
  mutates,
  flags: [],
  async run(ctx) {
    return runAwk(ctx as unknown as CommandContext);
  },
});

async function runAwk(ctx: CommandContext): Promise<number> {
  const name = ctx.name;
  const errors: string[] = [];
  let cli: Cli;
  try {
    const args = ctx.args.map((a) => Buffer.from(a, 'utf8').toString('latin1'));
    cli = parseCli(args, (f) => {
      try {
        if (f === '-' || f === '/dev/stdin') throw new Error('stdin');
        return ctx.fs.readFile(vpath(f), ctx.cwd).toString('latin1');
      } catch (e) {
        if (e instanceof VfsError) throw new AwkFatal(`cannot open source file \`${f}' for reading: ${e.reason}`);
        throw new AwkFatal(`can't open source file \`${f}' for reading: standard input is not a program file in nosh`);
      }
    });
  } catch (e) {
    if (e instanceof AwkFatal) { await say(ctx, `fatal: ${e.message}`); return 2; }
    if (e instanceof Error && e.message.startsWith('option requires')) {
      await say(ctx, e.message);
      await ctx.stderr.write(usage(name));
      return 2;
    }
    throw e;
  }
  if (cli.help) { await ctx.stdout.write(usage(name)); return 0; }
  if (cli.version) {
    await ctx.stdout.write(versionText(def));
    return 0;
  }
  if (cli.refused) { await say(ctx, `fatal: ${cli.refused}`); return 2; }
  if (cli.error !== undefined) {
    if (cli.error.startsWith('unrecognized')) await say(ctx, cli.error);
    await ctx.stderr.write(usage(name));
    return 1;
  }
  const warn = (msg: string, line: number): void => { errors.push(`cmd. line:${line}: warning: ${msg}`); };
  let prog: Program;
  try {
    prog = new Parser(warn, (inc) => {
      const f = inc.endsWith('.awk') || ctx.fs.exists(inc, ctx.cwd) ? inc : inc + '.awk';
      try {
        return { text: ctx.fs.readFile(vpath(f), ctx.cwd).toString('latin1'), name: f };
      } catch (e) {
        if (e instanceof VfsError) throw new AwkFatal(`cannot open source file \`${inc}' for reading: ${e.reason}`);
        throw e;
      }
    }).parse(cli.sources);
  } catch (e) {
    for (const m of errors) await say(ctx, m);
    return reportCompile(ctx, e, cli.sources);
  }
  for (const m of errors) await say(ctx, m);
  if (prog.errors.length) {
    for (const m of prog.errors) await say(ctx, m);
    return 1;
  }
  const readonlyZone = (): never => {
    throw new NoshError('ZONE_READONLY', `${name}: this zone is read-only`,
      'Write the output to a writable zone (e.g. storage), or print to standard output instead of redirecting.', { command: name });
  };
  const rt = new Rt(ctx, readonlyZone);
  const argv = rt.g[S.ARGV] as AwkArr;
  argv.set('0', name);
  cli.operands.forEach((o, i) => argv.set(String(i + 1), new SN(o)));
  rt.g[S.ARGC] = cli.operands.length + 1;
  const procinfo = rt.g[S.PROCINFO] as AwkArr;
  procinfo.set('version', '5.2.1');
  procinfo.set('strftime', '%a %b %e %H:%M:%S %Z %Y');
  procinfo.set('FS', 'FS');
  procinfo.set('platform', 'posix');
  escapeWarnings = [];
  const fs = cli.fs === undefined ? undefined : processEscapes(cli.fs);
  for (const m of escapeWarnings) await say(ctx, m);
  escapeWarnings = [];
  try {
    return await runProgram(ctx, prog, rt, {
      fs,
      assigns: cli.assigns,
      processEscapes,
    });
  } catch (e) {
    if (e instanceof Refused) { await say(ctx, `fatal: ${e.message}`); return 2; }
    throw e;
  }
}

async function reportCompile(ctx: CommandContext, e: unknown, sources: Source[]): Promise<number> {
  if (e instanceof Refused) { await say(ctx, `cmd. line:1: fatal: ${e.message}`); return 2; }
  if (e instanceof AwkSyntaxError) {
    const src = sources.length === 1 ? sources[0]!.name : 'cmd. line';
    const where = `${src}:${e.line}:`;
    if (e.message === 'syntax error' || e.message.startsWith('unterminated')) {
      await say(ctx, `${where} ${e.src}`);
      await say(ctx, `${where} ${' '.repeat(Math.max(0, e.col))}^ ${e.message}`);
    } else {
      await say(ctx, `${where} ${e.src}`);
      await say(ctx, `${where} ${' '.repeat(Math.max(0, e.col))}^ ${e.message}`);
    }
    return 1;
  }
  if (e instanceof AwkFatal) { await say(ctx, `cmd. line:1: fatal: ${e.message}`); return 2; }
  throw e;
}

export default def;
