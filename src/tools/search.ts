import { z } from 'zod';
import { LIMITS } from '../limits.js';
import { NoshError } from '../errors.js';
import { VfsError } from '../vfs/index.js';
import { compileRegex, RegexSyntaxError } from '../regex/index.js';
import { defineTool, type ToolContext } from './types.js';
import { Glob, joinV, walk } from './common.js';
import { valueLimit } from '../runtime/memory.js';

/** Longest line text returned (characters); longer lines are cut with an ellipsis. */
const LINE_CAP = 500;

const Input = z.object({
  pattern: z.string().min(1).describe('What to look for: a POSIX extended regex (grep -E syntax) unless literal is true.'),
  path: z.string().min(1).optional().describe('File or folder to search (default: the working directory; folders are searched recursively).'),
  literal: z.boolean().optional().describe('Treat pattern as plain text, not a regex.'),
  ignore_case: z.boolean().optional().describe('Match without regard to ASCII case.'),
  context_lines: z.number().int().min(0).max(50).optional().describe('Lines of context before and after each match (default 0).'),
  include: z.array(z.string().min(1)).optional().describe("Only files matching one of these globs, e.g. ['*.ts', 'src/**']."),
  exclude: z.array(z.string().min(1)).optional().describe("Skip files and folders matching these globs, e.g. ['node_modules', '*.min.js']."),
  hidden: z.boolean().optional().describe('Also search names starting with a dot (default false).'),
  max_results: z.number().int().min(1).max(100_000).optional().describe('Stop after this many matching lines in total (default: the zone search limit).'),
  max_per_file: z.number().int().min(1).optional().describe('At most this many matching lines per file.'),
  timeout_ms: z.number().int().min(1).max(LIMITS.timeoutMs.max).optional().describe('Stop searching after this long and return what was found (truncated: true).'),
}).strict();

interface Line { line: number; text: string }
interface Match extends Line { path: string; before?: Line[]; after?: Line[] }

export default defineTool({
  name: 'search',
  description: 'Search file contents for a regex (POSIX ERE, as grep -E) or literal text, in one file or recursively in a ' +
    'folder. Returns matching lines with path, line number and optional context lines; include/exclude globs, ignore_case, ' +
    'caps on total and per-file matches (truncated tells when a cap or timeout_ms stopped it). Binary files are skipped.',
  input: Input,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  mutates: false,
  run(ctx, args) {
    const re = compile(args.pattern, !!args.literal, !!args.ignore_case);
    const base = ctx.fs.resolveExisting(args.path ?? '.', ctx.cwd, { followFinal: ctx.fs.policy.followSymlinks });
    const include = new Glob(args.include ?? [], 'include');
    const exclude = new Glob(args.exclude ?? [], 'exclude');
    const cap = args.max_results ?? ctx.limits.maxResults;
    const deadline = args.timeout_ms !== undefined ? Date.now() + args.timeout_ms : Infinity;
    const state = { matches: [] as Match[], files: 0, filesMatched: 0, binary: 0, longLines: 0, bytes: 0, tooLarge: [] as string[], stop: '' as '' | 'results' | 'output' | 'timeout' };
    const searchOne = (path: string, chunks: Iterable<Buffer>) => {
      state.files++;
      searchFile(ctx, path, chunks, re, args.context_lines ?? 0, args.max_per_file ?? Infinity, cap, deadline, state);
    };
    if (!base.stat.isDirectory()) searchOne(base.vpath, ctx.fs.readChunks(base.vpath));
    else {
      walk(ctx.fs, base.vpath, '/', {
        maxDepth: Infinity,
        hidden: !!args.hidden,
        signal: ctx.signal,
        prune: (e) => exclude.matches(e.rel),
        visit(e) {
          // Every entry looks at the deadline: files passed over (include, exclude, folders)
          // cost time too, and a tree of them ran on past timeout_ms.
          if (Date.now() > deadline) {
            state.stop = 'timeout';
            return false;
          }
          if (e.type !== 'file' || exclude.matches(e.rel)) return;
          if (!include.empty && !include.matches(e.rel)) return;
          try {
            searchOne(joinV(base.vpath, e.rel), ctx.fs.readChunksAt(e.dir, e.name));
          } catch (err) {
            if (err instanceof NoshError) throw err;
            // Larger than the zone's maxFileSize: not read, but said (grep -r reports it too).
            if (err instanceof VfsError && err.errno === 'EFBIG') state.tooLarge.push(err.path);
            // A file that vanished or cannot be opened is skipped, as grep -s.
          }
          if (state.stop) return false;
        },
      });
    }
    const truncated = state.stop !== '';
    const why = state.stop === 'results' ? `stopped at ${cap} matches (raise max_results or narrow the search)`
      : state.stop === 'output' ? 'stopped at the output limit (narrow the search or use include)'
      : state.stop === 'timeout' ? 'stopped by timeout_ms' : '';
    return {
      data: {
        matches: state.matches, count: state.matches.length, files_searched: state.files, files_matched: state.filesMatched,
        binary_files_skipped: state.binary, ...(state.longLines ? { long_lines_skipped: state.longLines } : {}),
        ...(state.tooLarge.length ? { too_large_skipped: state.tooLarge } : {}), truncated,
      },
      message: `${state.matches.length} matching lines in ${state.filesMatched} files` + (why ? `; ${why}` : '') +
        (state.longLines ? `; ${state.longLines} line(s) longer than ${Math.floor(valueLimit() / 1048576)} MB (a quarter of the memory limit) ` +
          'not searched: find matches in them with exec, e.g. grep -o -b PATTERN FILE (byte offsets)' : '') +
        (state.tooLarge.length ? `; ${state.tooLarge.length} file(s) larger than this zone's maximum file size ` +
          `(${ctx.fs.policy.maxFileSize} bytes) not searched: ${state.tooLarge.slice(0, 5).join(', ')}` : ''),
    };
  },
});

function compile(pattern: string, literal: boolean, ignoreCase: boolean): RegExp {
  // Patterns and lines are byte strings (latin1): one char per byte, as the regex module expects.
  const bytes = Buffer.from(pattern, 'utf8').toString('latin1');
  try {
    return compileRegex(bytes, { dialect: literal ? 'fixed' : 'extended', ignoreCase });
  } catch (e) {
    if (e instanceof RegexSyntaxError || e instanceof SyntaxError) {
      throw new NoshError('INVALID_ARGUMENT', `search: bad regex: ${(e as Error).message}`,
        'The pattern is a POSIX extended regex (as grep -E): escape ( ) [ ] { } . * + ? | with \\, or set literal: true.', { pattern });
    }
    throw e;
  }
}

function show(byteLine: string): string {
  // 4 bytes a character at most: a long line's start is enough for LINE_CAP of them.
  const head = byteLine.length > LINE_CAP * 4 ? byteLine.slice(0, LINE_CAP * 4) : byteLine;
  const text = Buffer.from(head, 'latin1').toString('utf8');
  return text.length > LINE_CAP ? text.slice(0, LINE_CAP) + '…' : text;
}

function searchFile(
  ctx: ToolContext, path: string, chunks: Iterable<Buffer>, re: RegExp, context: number, perFile: number, cap: number, deadline: number,
  state: { matches: Match[]; filesMatched: number; binary: number; longLines: number; bytes: number; stop: string },
): void {
  const before: Line[] = [];
  const pending: Match[] = [];
  let lineNo = 0;
  let inFile = 0;
  let carry = '';
  const carryParts: string[] = [];
  let partsLength = 0;
  let first = true;
  let done = false;
  /** Inside a line too long to test: its bytes are dropped up to its newline. */
  let skipping = false;
  const onLine = (raw: string): void => {
    lineNo++;
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const isMatch = !state.stop && inFile < perFile && re.test(text);
    if (isMatch) {
      const m: Match = { path, line: lineNo, text: show(text) };
      if (context > 0) {
        m.before = before.slice();
        m.after = [];
      }
      pending.length = 0; // the previous match's after-context ends at this match
      if (context > 0) pending.push(m);
      state.matches.push(m);
      state.bytes += m.text.length + path.length + 32;
      if (inFile === 0) state.filesMatched++;
      inFile++;
      before.length = 0;
      if (state.matches.length >= cap) state.stop = 'results';
      else if (state.bytes > ctx.limits.maxOutputBytes) state.stop = 'output';
    } else if (context > 0) {
      const l = { line: lineNo, text: show(text) };
      const p = pending[0];
      if (p) {
        p.after!.push(l);
        state.bytes += l.text.length + 16;
        if (p.after!.length >= context) pending.length = 0;
      }
      before.push(l);
      if (before.length > context) before.shift();
    }
    if ((state.stop || inFile >= perFile) && pending.length === 0) done = true;
  };
  for (let chunk of chunks) {
    if (first) {
      first = false;
      if (chunk.subarray(0, 8192).includes(0)) {
        state.binary++;
        return;
      }
    }
    if (skipping) {
      const nl = chunk.indexOf(10);
      if (nl < 0) {
        if (Date.now() > deadline) {
          state.stop = 'timeout';
          return;
        }
        if (ctx.signal.aborted) throw new NoshError('CANCELLED', 'search cancelled');
        continue;
      }
      skipping = false;
      lineNo++;
      before.length = 0; // context around a line not shown stops at it
      pending.length = 0;
      chunk = chunk.subarray(nl + 1);
    }
    // A chunk inside one long line is only kept: joining as it comes would copy the line again
    // for every chunk (a 150 MB line, 600 chunks).
    if (chunk.indexOf(10) < 0) {
      // inside one long line, chunk after chunk: the deadline holds here too
      if (Date.now() > deadline) {
        state.stop = 'timeout';
        return;
      }
      if (ctx.signal.aborted) throw new NoshError('CANCELLED', 'search cancelled');
      carryParts.push(chunk.toString('latin1'));
      partsLength += chunk.length;
      // A line is tested whole, as one string: one past a quarter of the budget (a 150 MB line in
      // a 200 MB worker) was joined in one allocation that V8's fatal out-of-memory stopped by
      // aborting the whole process. It is counted and skipped instead.
      if (carry.length + partsLength > valueLimit()) {
        state.longLines++;
        skipping = true;
        carry = '';
        carryParts.length = 0;
        partsLength = 0;
      }
      continue;
    }
    if (carryParts.length > 0) {
      carry += carryParts.join('');
      carryParts.length = 0;
      partsLength = 0;
    }
    const s = carry + chunk.toString('latin1');
    let start = 0;
    for (let i = s.indexOf('\n'); i >= 0 && !done; i = s.indexOf('\n', start)) {
      onLine(s.slice(start, i));
      start = i + 1;
    }
    if (done) return;
    carry = s.slice(start);
    if (ctx.signal.aborted) throw new NoshError('CANCELLED', 'search cancelled');
    if (Date.now() > deadline) {
      state.stop = 'timeout';
      return;
    }
  }
  carry += carryParts.join('');
  if (carry !== '' && !done) onLine(carry);
  if (Date.now() > deadline && !state.stop) state.stop = 'timeout';
}
