import { z } from 'zod';
import { formatPatch, structuredPatch } from 'diff';
import { NoshError } from '../errors.js';
import { defineTool } from './types.js';
import { decodeText, encodeText, readCapped } from './common.js';
import { valueLimit } from '../runtime/memory.js';
import { compileRegex, RegexSyntaxError } from '../regex/index.js';

/** Largest file edit reads whole. */
const EDIT_CAP = 50 * 1024 * 1024;

const Replace = z.object({
  old_text: z.string().min(1).describe('Exact text to find (whitespace and indentation included). Must occur exactly once unless replace_all.'),
  new_text: z.string().describe('Text to put in its place (empty string deletes it).'),
  replace_all: z.boolean().optional().describe('Replace every occurrence instead of requiring exactly one.'),
}).strict();

const Insert = z.object({
  insert_after_line: z.number().int().min(0).describe('Insert after this line number (1-based; 0 inserts at the top of the file).'),
  text: z.string().describe('Lines to insert; a final newline is added when missing.'),
}).strict();

const Lines = z.object({
  from_line: z.number().int().min(1).describe('First line to replace (1-based).'),
  to_line: z.number().int().min(1).describe('Last line to replace (inclusive; at least from_line).'),
  new_text: z.string().describe('Lines to put in their place (a final newline is added when missing; empty deletes the lines).'),
}).strict();

const Pattern = z.object({
  pattern: z.string().min(1).describe("A POSIX extended regular expression (grep -E / sed -E syntax); ^ and $ match at each line's start and end, . does not match a newline."),
  replacement: z.string().describe('Replacement text: \\1..\\9 for the groups, & for the whole match (as sed), \\& for a literal &.'),
  replace_all: z.boolean().optional().describe('Replace every match instead of requiring exactly one.'),
  ignore_case: z.boolean().optional().describe('Match letters in either case (ASCII).'),
}).strict();

const Input = z.object({
  path: z.string().min(1).describe('File to edit, inside the zone.'),
  edits: z.array(z.union([Replace, Insert, Lines, Pattern])).min(1).max(200)
    .describe('Edits applied in order, each to the result of the previous one; all succeed or the file is left unchanged. ' +
      'Each is {old_text, new_text, replace_all?} (str_replace), {insert_after_line, text}, {from_line, to_line, new_text} ' +
      '(replace a line range) or {pattern, replacement, replace_all?, ignore_case?} (regex).'),
  dry_run: z.boolean().optional().describe('Return the unified diff without writing the file.'),
}).strict();

type Edit = z.output<typeof Replace> | z.output<typeof Insert> | z.output<typeof Lines> | z.output<typeof Pattern>;

export default defineTool({
  name: 'edit',
  description: 'Change part of a text file. Each edit is a str_replace ({old_text, new_text}: old_text must match exactly once, ' +
    'else the error says how many matches and on which lines; replace_all replaces every one), an insert ' +
    '({insert_after_line: N, text}), a line range ({from_line, to_line, new_text}) or a regex ({pattern, replacement}: ERE, ' +
    '\\1 and & in the replacement; one match unless replace_all). Several edits apply in order, all or none. dry_run previews. The result always ' +
    'has the unified diff. CRLF files keep CRLF (write old_text/new_text with \\n); a missing final newline stays missing.',
  input: Input,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  mutates: true,
  run(ctx, args) {
    const vpath = ctx.fs.resolve(args.path, ctx.cwd).vpath;
    const buf = readCapped(ctx.fs, args.path, ctx.cwd, EDIT_CAP, 'edit');
    // The text is held several times over (decoded, edited, encoded back, diffed), each in one piece.
    if (buf.length > valueLimit()) {
      const mb = Math.round(valueLimit() * 4 / 1048576);
      throw new NoshError('MEMORY_LIMIT', `${vpath}: ${buf.length} bytes is more than edit handles in the worker memory limit of ${mb} MB (a quarter of it)`,
        'Change it with exec and sed (it streams), or split the file.', { path: vpath, size: buf.length, memory_mb: mb });
    }
    const { text, encoding } = decodeText(buf);
    const crlfCount = count(text, '\r\n');
    const lfCount = count(text, '\n');
    const lineEndings = lfCount === 0 ? 'none' : crlfCount === lfCount ? 'crlf' : crlfCount === 0 ? 'lf' : 'mixed';
    // CRLF files are edited as LF text and written back with CRLF: callers write \n.
    const crlf = lineEndings === 'crlf';
    const norm = (s: string) => (crlf ? s.replace(/\r\n/g, '\n') : s);
    const before = norm(text);
    let work = before;
    let replacements = 0;
    args.edits.forEach((edit: Edit, i: number) => {
      const label = args.edits.length > 1 ? `edit ${i + 1} of ${args.edits.length}` : 'edit';
      if ('old_text' in edit) {
        const old = norm(edit.old_text);
        const repl = norm(edit.new_text);
        const at = occurrences(work, old);
        if (at.count === 0) {
          throw new NoshError('INVALID_ARGUMENT', `${label}: old_text not found in ${vpath}`, notFoundHint(work, old, lineEndings, i),
            { path: vpath, edit: i + 1, matches: 0 });
        }
        if (at.count > 1 && !edit.replace_all) {
          const lines = linesOf(work, at.first).slice(0, 20);
          throw new NoshError('INVALID_ARGUMENT', `${label}: old_text matches ${at.count} times in ${vpath} (lines ${lines.join(', ')}${at.count > lines.length ? ', ...' : ''})`,
            'Include more surrounding lines in old_text so it matches once, or set replace_all: true to replace every match.' + (i > 0 ? ' Line numbers count after the earlier edits.' : ''),
            { path: vpath, edit: i + 1, matches: at.count, lines });
        }
        const n = edit.replace_all ? at.count : 1;
        checkGrowth(work.length + n * (repl.length - old.length), label, vpath, i);
        work = edit.replace_all ? replaceEvery(work, old, repl) : work.slice(0, at.first[0]) + repl + work.slice(at.first[0]! + old.length);
        replacements += n;
      } else if ('from_line' in edit) {
        checkGrowth(work.length + edit.new_text.length + 1, label, vpath, i);
        work = replaceLines(work, edit.from_line, edit.to_line, norm(edit.new_text), label, vpath, i);
        replacements++;
      } else if ('pattern' in edit) {
        const r = replacePattern(work, edit, norm(edit.replacement), label, vpath, i);
        checkGrowth(r.text.length, label, vpath, i);
        work = r.text;
        replacements += r.count;
      } else {
        checkGrowth(work.length + edit.text.length + 1, label, vpath, i);
        work = insertAfter(work, edit.insert_after_line, norm(edit.text), label, vpath, i);
        replacements++;
      }
    });
    const out = crlf ? work.replace(/\n/g, '\r\n') : work;
    const changed = out !== text;
    if (changed && !args.dry_run) ctx.fs.writeFile(args.path, encodeText(out, encoding), ctx.cwd);
    const { diff, truncated } = unifiedDiff(vpath, before, work, ctx.limits.maxOutputBytes);
    return {
      data: {
        path: vpath, diff, ...(truncated ? { diff_truncated: true } : {}), changed, dry_run: !!args.dry_run, edits_applied: args.edits.length, replacements,
        line_endings: lineEndings, final_newline: out.endsWith('\n'),
      },
      message: args.dry_run ? `dry run: ${args.edits.length} edit(s) would change ${vpath} (not written)`
        : changed ? `edited ${vpath}: ${args.edits.length} edit(s), ${replacements} change(s)` : `${vpath} unchanged (the edits produce the same text)`,
    };
  },
});

function count(s: string, sub: string): number {
  let n = 0;
  for (let i = s.indexOf(sub); i >= 0; i = s.indexOf(sub, i + sub.length)) n++;
  return n;
}

/** How many non-overlapping times `sub` occurs, and the offsets of the first ones (enough to name their lines). */
function occurrences(s: string, sub: string, keep = 1000): { count: number; first: number[] } {
  const first: number[] = [];
  let count = 0;
  for (let i = s.indexOf(sub); i >= 0; i = s.indexOf(sub, i + sub.length)) {
    if (count++ < keep) first.push(i);
  }
  return { count, first };
}

/**
 * Every occurrence replaced, built in bounded pieces: split/join or replaceAll over millions of
 * matches makes arrays or rope strings so large that V8 aborts the whole process (a worker's heap
 * limit does not catch that allocation).
 */
function replaceEvery(s: string, old: string, repl: string): string {
  const chunks: string[] = [];
  let pieces: string[] = [];
  let from = 0;
  for (let i = s.indexOf(old); i >= 0; i = s.indexOf(old, from)) {
    pieces.push(s.slice(from, i), repl);
    from = i + old.length;
    if (pieces.length >= 8192) {
      chunks.push(pieces.join(''));
      pieces = [];
    }
  }
  pieces.push(s.slice(from));
  chunks.push(pieces.join(''));
  return chunks.join('');
}

/** An edit may not make the text larger than edit handles (it is built whole in memory). */
function checkGrowth(length: number, label: string, vpath: string, index: number): void {
  const limit = Math.min(EDIT_CAP, valueLimit());
  if (length <= limit) return;
  throw new NoshError('FILE_TOO_LARGE', `${label}: the result would be ${length} characters, more than edit handles (${limit})`,
    'Replace fewer matches at once (without replace_all, or with a longer old_text), or write the new content with write.',
    { path: vpath, edit: index + 1, size: length, limit });
}

/** Edits (lines changed) the Myers diff may search for before the whole changed region is shown as one hunk. */
const DIFF_MAX_EDITS = 2000;


/**
 * The unified diff of an edit, cut at `cap` bytes (on a line end). Only the changed region
 * (between the common first and last lines) and its context are looked at: diffing the whole
 * texts split them into arrays of lines, and a replace_all over a file of 20 M lines built
 * 40 M strings, past the worker's heap, and V8's out-of-memory aborted the whole process.
 * A region too large for a minimal diff within DIFF_MAX_EDITS, or for the heap, is
 * one hunk, each old line followed by its new one, written only up to the cap. The Myers diff
 * (the diff package) takes about 100 bytes of heap per line of each text: a region is diffed
 * so when its lines take at most a quarter of the budget.
 */
function unifiedDiff(vpath: string, before: string, after: string, cap: number): { diff: string; truncated: boolean } {
  const r = changedRegion(before, after, 3);
  const regionA = before.slice(r.start, r.endA);
  const regionB = after.slice(r.start, r.endB);
  let diff: string | undefined;
  const maxLines = valueLimit() / 200;
  const maxChars = valueLimit() / 4;
  if (regionA.length <= maxChars && regionB.length <= maxChars && count(regionA, '\n') <= maxLines && count(regionB, '\n') <= maxLines) {
    const patch = structuredPatch(vpath, vpath, regionA, regionB, '', '', { context: 3, maxEditLength: DIFF_MAX_EDITS });
    if (patch) {
      for (const h of patch.hunks) {
        h.oldStart += r.line;
        h.newStart += r.line;
      }
      diff = formatPatch(patch);
    }
  }
  diff ??= oneHunkDiff(vpath, before, after, 3, cap + 1);
  if (Buffer.byteLength(diff) <= cap) return { diff, truncated: false };
  let cut = Buffer.from(diff).subarray(0, cap).toString('utf8');
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  const nl = cut.lastIndexOf('\n');
  return { diff: nl >= 0 ? cut.slice(0, nl + 1) : '', truncated: true };
}

/**
 * Where two texts differ, in whole lines with `context` lines around: [start, endA) of
 * `before` and [start, endB) of `after`, the rest equal; `line` is the count of lines before start.
 */
function changedRegion(before: string, after: string, context: number): { start: number; endA: number; endB: number; line: number } {
  const min = Math.min(before.length, after.length);
  let p = 0;
  while (p < min && before.charCodeAt(p) === after.charCodeAt(p)) p++;
  let start = p === 0 ? 0 : before.lastIndexOf('\n', p - 1) + 1;
  // The common end, not overlapping the common start; it begins after a newline inside it.
  let q = 0;
  while (q < min - start && before.charCodeAt(before.length - 1 - q) === after.charCodeAt(after.length - 1 - q)) q++;
  const nl = before.indexOf('\n', before.length - q);
  let endA = nl < 0 ? before.length : nl + 1;
  for (let k = 0; k < context && start > 0; k++) start = lineStartBefore(before, start);
  for (let k = 0; k < context && endA < before.length; k++) {
    const n = before.indexOf('\n', endA);
    endA = n < 0 ? before.length : n + 1;
  }
  return { start, endA, endB: endA + after.length - before.length, line: count(before.slice(0, start), '\n') };
}

/** The whole change as one hunk, old line then new line, built only up to `limit` characters. */
function oneHunkDiff(vpath: string, before: string, after: string, context: number, limit: number): string {
  const r = changedRegion(before, after, 0);
  const a = new LineCursor(before, r.start, r.endA);
  const b = new LineCursor(after, r.start, r.endB);
  const countA = count(before.slice(r.start, r.endA), '\n') + (r.endA === before.length && r.endA > r.start && !before.endsWith('\n') ? 1 : 0);
  const countB = count(after.slice(r.start, r.endB), '\n') + (r.endB === after.length && r.endB > r.start && !after.endsWith('\n') ? 1 : 0);
  const ctxBefore: string[] = [];
  let s = r.start;
  for (let k = 0; k < context && s > 0; k++) {
    const p = lineStartBefore(before, s);
    ctxBefore.unshift(before.slice(p, s));
    s = p;
  }
  const ctxAfter: string[] = [];
  let e = r.endA;
  for (let k = 0; k < context && e < before.length; k++) {
    const n = before.indexOf('\n', e);
    const end = n < 0 ? before.length : n + 1;
    ctxAfter.push(before.slice(e, end));
    e = end;
  }
  const first = r.line - ctxBefore.length;
  const nA = ctxBefore.length + countA + ctxAfter.length;
  const nB = ctxBefore.length + countB + ctxAfter.length;
  const range = (n: number) => `${n === 0 ? first : first + 1},${n}`;
  // Pieces joined in blocks: a cap of 5 MB of two-character lines is millions of them.
  const blocks: string[] = [];
  let pieces: string[] = [`Index: ${vpath}`, '='.repeat(67), `--- ${vpath}\t`, `+++ ${vpath}\t`, `@@ -${range(nA)} +${range(nB)} @@`];
  let size = 0;
  const line = (prefix: string, l: string) => {
    const text = prefix + (l.endsWith('\n') ? l.slice(0, -1) : l);
    pieces.push(text);
    size += text.length + 1;
    if (!l.endsWith('\n')) pieces.push('\\ No newline at end of file');
    if (pieces.length >= 8192) {
      blocks.push(pieces.join('\n'));
      pieces = [];
    }
  };
  for (const l of ctxBefore) line(' ', l);
  // Each old line next to its new one, so that a cut diff still shows changes, not only removals.
  for (;;) {
    if (size > limit) break;
    const la = a.next();
    const lb = b.next();
    if (la === null && lb === null) break;
    if (la !== null) line('-', la);
    if (lb !== null) line('+', lb);
  }
  if (size <= limit) for (const l of ctxAfter) line(' ', l);
  blocks.push(pieces.join('\n'));
  return blocks.join('\n') + '\n';
}

/** Where the line before the one starting at `at` (> 0) starts. */
function lineStartBefore(text: string, at: number): number {
  return at >= 2 ? text.lastIndexOf('\n', at - 2) + 1 : 0;
}

/** The lines of text[from, to), one at a time. */
class LineCursor {
  constructor(private readonly text: string, private at: number, private readonly to: number) {}
  next(): string | null {
    if (this.at >= this.to) return null;
    const n = this.text.indexOf('\n', this.at);
    const end = n < 0 || n >= this.to ? this.to : n + 1;
    const l = this.text.slice(this.at, end);
    this.at = end;
    return l;
  }
}

/** Distinct line numbers of sorted offsets, in one pass. */
function linesOf(s: string, offsets: number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let nl = s.indexOf('\n');
  for (const pos of offsets) {
    while (nl >= 0 && nl < pos) {
      line++;
      nl = s.indexOf('\n', nl + 1);
    }
    if (out[out.length - 1] !== line) out.push(line);
  }
  return out;
}

function notFoundHint(work: string, old: string, eol: string, index: number): string {
  const squash = (s: string) => s.replace(/[ \t]+/g, ' ').replace(/ ?\n ?/g, '\n').trim();
  let hint = 'old_text must match the file exactly, whitespace and indentation included: read the file again and copy the text.';
  if (old.includes('\r') && eol !== 'crlf' && eol !== 'mixed') hint = 'old_text has \\r but the file has LF line endings: use \\n. ' + hint;
  else if (squash(work).includes(squash(old))) hint = 'A match exists if whitespace is ignored: check indentation (tabs vs spaces) and trailing spaces. ' + hint;
  else if (eol === 'mixed' && !old.includes('\r')) hint = 'The file mixes CRLF and LF line endings: lines ending in CRLF need \\r\\n in old_text. ' + hint;
  if (index > 0) hint += ' Edits apply in order: earlier edits may have changed this text.';
  return hint;
}

function insertAfter(work: string, n: number, text: string, label: string, vpath: string, index: number): string {
  const lineCount = work === '' ? 0 : count(work, '\n') + (work.endsWith('\n') ? 0 : 1);
  if (n > lineCount) {
    throw new NoshError('INVALID_ARGUMENT', `${label}: insert_after_line ${n} is past the end of ${vpath} (${lineCount} lines)`,
      `Use a line number from 0 to ${lineCount}.`, { path: vpath, edit: index + 1, lines: lineCount });
  }
  if (text === '') return work;
  const block = text.endsWith('\n') ? text : text + '\n';
  if (n === 0) return block + work;
  let pos = -1;
  for (let k = 0; k < n; k++) {
    pos = work.indexOf('\n', pos + 1);
    if (pos < 0) break;
  }
  if (pos < 0) {
    // After the last line of a file without a final newline: it stays without one.
    return work + '\n' + block.slice(0, -1);
  }
  return work.slice(0, pos + 1) + block + work.slice(pos + 1);
}

/** Lines from..to (1-based, inclusive) replaced by `text` (a final newline added when missing; '' deletes them). */
function replaceLines(work: string, from: number, to: number, text: string, label: string, vpath: string, index: number): string {
  const starts = [0];
  for (let i = work.indexOf('\n'); i >= 0 && i + 1 < work.length; i = work.indexOf('\n', i + 1)) starts.push(i + 1);
  const total = work === '' ? 0 : starts.length;
  if (to < from || to > total) {
    throw new NoshError('INVALID_ARGUMENT', `${label}: lines ${from}..${to} are not in ${vpath} (${total} lines)`,
      `Give 1 <= from_line <= to_line <= ${total}.` + (index > 0 ? ' Line numbers count after the earlier edits.' : ''), { path: vpath, edit: index + 1, lines: total });
  }
  const start = starts[from - 1]!;
  const end = to < total ? starts[to]! : work.length;
  const lastHadNewline = work.slice(start, end).endsWith('\n');
  let piece = text === '' || text.endsWith('\n') ? text : text + '\n';
  // the file's last line without a final newline stays without one
  if (to === total && !lastHadNewline && piece.endsWith('\n')) piece = piece.slice(0, -1);
  return work.slice(0, start) + piece + work.slice(end);
}

/** sed's replacement: \1..\9 groups, & the match, \& and \\ literal, \n a newline. */
function expand(repl: string, m: RegExpExecArray): string {
  let out = '';
  for (let i = 0; i < repl.length; i++) {
    const c = repl[i]!;
    if (c === '&') out += m[0];
    else if (c === '\\' && i + 1 < repl.length) {
      const d = repl[++i]!;
      if (d >= '0' && d <= '9') out += m[Number(d)] ?? '';
      else out += d === 'n' ? '\n' : d === 't' ? '\t' : d;
    } else out += c;
  }
  return out;
}

/** A regex edit: ERE through the regex module; exactly one match unless replace_all. */
function replacePattern(work: string, edit: z.output<typeof Pattern>, repl: string, label: string, vpath: string, index: number): { text: string; count: number } {
  let re: RegExp;
  try {
    re = compileRegex(edit.pattern, { dialect: 'extended', flavor: 'sed', multiline: true, ignoreCase: edit.ignore_case }, 'g');
  } catch (e) {
    if (e instanceof RegexSyntaxError) throw new NoshError('INVALID_ARGUMENT', `${label}: bad pattern: ${e.message}`, 'Write a POSIX extended regular expression (as grep -E).', { path: vpath, edit: index + 1 });
    throw e;
  }
  const matches: RegExpExecArray[] = [];
  for (let m = re.exec(work); m !== null; m = re.exec(work)) {
    matches.push(m);
    if (m[0] === '') re.lastIndex++;
    if (matches.length > 1 && !edit.replace_all) break;
  }
  if (matches.length === 0) {
    throw new NoshError('INVALID_ARGUMENT', `${label}: pattern matches nothing in ${vpath}`, 'Check the pattern with search or grep -nE first.', { path: vpath, edit: index + 1, matches: 0 });
  }
  if (matches.length > 1 && !edit.replace_all) {
    re.lastIndex = 0;
    const all = [...work.matchAll(re)].map((m) => m.index!);
    const lines = linesOf(work, all.slice(0, 20));
    throw new NoshError('INVALID_ARGUMENT', `${label}: pattern matches ${all.length} times in ${vpath} (lines ${lines.join(', ')}${all.length > 20 ? ', ...' : ''})`,
      'Make the pattern match once, or set replace_all: true.', { path: vpath, edit: index + 1, matches: all.length, lines });
  }
  const parts: string[] = [];
  let from = 0;
  for (const m of matches) {
    parts.push(work.slice(from, m.index), expand(repl, m));
    from = m.index + m[0].length;
  }
  parts.push(work.slice(from));
  return { text: parts.join(''), count: matches.length };
}
