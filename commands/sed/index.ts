import { defineCommand, parseArgs, UsageError, type CommandDef, type FlagSpec } from '../../src/command/index.js';
import { NoshError } from '../../src/errors.js';
import { VfsError } from '../../src/vfs/index.js';
import { compileProgram, SedError, type ScriptChunk } from './parse.js';
import { SedRunner } from './exec.js';
import { SedOutputs } from './output.js';

const FLAGS = [
  { key: 'n', short: 'n', long: 'quiet', help: 'suppress automatic printing of pattern space' },
  { key: 'n', long: 'silent', help: 'same as --quiet' },
  { key: 'e', short: 'e', long: 'expression', kind: 'string', arg: 'script', help: 'add the script to the commands to be executed' },
  { key: 'f', short: 'f', long: 'file', kind: 'string', arg: 'script-file', help: 'add the contents of script-file to the commands to be executed' },
  { key: 'i', short: 'i', long: 'in-place', kind: 'optional', arg: 'SUFFIX', help: 'edit files in place (makes backup if SUFFIX supplied)' },
  { key: 'l', short: 'l', long: 'line-length', kind: 'string', arg: 'N', help: "specify the desired line-wrap length for the `l' command" },
  { key: 'E', short: 'E', long: 'regexp-extended', help: 'use extended regular expressions in the script' },
  { key: 'E', short: 'r', help: 'same as -E' },
  { key: 's', short: 's', long: 'separate', help: 'consider files as separate rather than as a single, continuous long stream' },
  { key: 'sandbox', long: 'sandbox', help: 'operate in sandbox mode (disable e/r/w commands)' },
  { key: 'refused', long: 'posix', value: '--posix is not supported: nosh keeps the GNU extensions on; run the script without it', help: 'refused: nosh keeps the GNU extensions on' },
  { key: 'refused', long: 'debug', value: '--debug is not supported: nosh prints no execution trace; run the script without it', help: 'refused: nosh prints no execution trace' },
  { key: 'refused', long: 'follow-symlinks', value: '--follow-symlinks is not supported: sed -i never edits through a symbolic link; name the file it points to', help: 'refused: sed -i never edits through a symbolic link' },
  { key: 'binary', short: 'b', long: 'binary', help: 'open files in binary mode (CR+LFs are not processed specially; as GNU sed on POSIX systems, where this is always so)' },
  { key: 'u', short: 'u', long: 'unbuffered', help: 'load minimal amounts of data from the input files and flush the output buffers more often (accepted; nosh streams anyway)' },
  { key: 'z', short: 'z', long: 'null-data', help: 'separate lines by NUL characters' },
] as const satisfies readonly FlagSpec[];

/** Inline script chunks from the arguments (no -f files). */
function inlineScripts(opts: ReturnType<typeof parseArgs>['opts'], operands: string[]): ScriptChunk[] {
  const chunks: ScriptChunk[] = [];
  for (const o of opts.order) if (o.key === 'e') chunks.push({ text: o.value, kind: 'e' });
  if (!opts.has('e') && !opts.has('f') && operands.length > 0) chunks.push({ text: operands[0]!, kind: 'e' });
  return chunks;
}

function mutates(args: string[]): boolean {
  let parsed;
  try {
    parsed = parseArgs(def, args);
  } catch {
    return false;
  }
  if (parsed.opts.has('i')) return true;
  try {
    const prog = compileProgram(inlineScripts(parsed.opts, parsed.operands), { extended: parsed.opts.has('E') });
    return prog.wfiles.some((f) => f !== '/dev/stdout' && f !== '/dev/stderr');
  } catch {
    return false;
  }
}

const def: CommandDef = defineCommand({
  name: 'sed',
  reference: 'GNU sed 4.9',
  summary: 'Stream editor (GNU sed 4.9 language). If no -e, --expression, -f, or --file option is given, the first non-option argument is the script. The e command and the s///e flag are not supported: nosh never runs a command.',
  usage: '{script-only-if-no-other-script} [input-file]...',
  usageStatus: 1,
  troubleStatus: 2,
  mutates,
  flags: FLAGS,
  async run(ctx) {
    const o = ctx.opts;
    const v = ctx.values;
    // GNU options nosh does not offer: a usage error that says why (not "unrecognized").
    const refused = o.order.find((e) => e.key === 'refused');
    if (refused) throw new UsageError(refused.value);
    const operands = [...ctx.operands];
    const chunks: ScriptChunk[] = [];
    for (const e of o.order) {
      if (e.key === 'e') chunks.push({ text: e.value, kind: 'e' });
      else if (e.key === 'f') {
        let text: string;
        try {
          const buf = e.value === '-' ? await ctx.stdin.readAll() : ctx.fs.readFile(e.value, ctx.cwd);
          text = buf.toString('latin1');
        } catch (err) {
          if (err instanceof VfsError) {
            await ctx.warn(`couldn't open file ${e.value}: ${err.reason}`);
            return 4;
          }
          throw err;
        }
        // The last newline is dropped, but not after a backslash: a/i/c text whose last line ends
        // in one ends with the file (an empty line), where without the newline it goes on in the next -e.
        if (text.endsWith('\n') && !text.endsWith('\\\n')) text = text.slice(0, -1);
        chunks.push({ text, kind: 'f', name: e.value });
      }
    }
    if (chunks.length === 0) {
      if (operands.length === 0) throw new UsageError('no script specified');
      chunks.push({ text: operands.shift()!, kind: 'e' });
    }
    let lineLength = 70;
    if (v.l !== undefined) lineLength = parseInt(v.l, 10) || 0;
    const readonly = ctx.fs.policy.readonly;
    const outputs = new SedOutputs(ctx, v.z ? '\0' : '\n');
    const refuse = (): never => {
      throw new NoshError('ZONE_READONLY', 'sed: this zone is read-only',
        'Copy the file to a writable zone (e.g. storage) and change it there.', { command: 'sed' });
    };
    const inPlace = v.i;
    if (readonly && inPlace !== undefined) refuse();
    let prog;
    try {
      // w files are opened as the parser reaches them, as GNU does: a later error leaves them created
      prog = compileProgram(chunks, {
        extended: v.E === true,
        sandbox: v.sandbox === true,
        nullData: v.z === true,
        onWfile: (name) => {
          if (readonly && name !== '/dev/stdout' && name !== '/dev/stderr') refuse();
          outputs.open(name);
        },
      });
    } catch (e) {
      outputs.commitOpened();
      if (e instanceof SedError) {
        await ctx.warn(e.message);
        return e.status;
      }
      throw e;
    }
    try {
      const runner = new SedRunner(ctx, prog, {
        quiet: v.n === true || prog.quiet,
        separate: v.s === true,
        nullData: v.z === true,
        lineLength,
        inPlace,
      }, outputs);
      return await runner.run(operands);
    } catch (e) {
      if (e instanceof SedError) {
        await ctx.warn(e.message);
        return e.status;
      }
      throw e;
    }
  },
});

export default def;
