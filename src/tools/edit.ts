import { z } from 'zod';
import { createTwoFilesPatch } from 'diff';
import { NoshError } from '../errors.js';
import { defineTool } from './types.js';
import { decodeText, encodeText, readCapped } from './common.js';

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

const Input = z.object({
  path: z.string().min(1).describe('File to edit, inside the zone.'),
  edits: z.array(z.union([Replace, Insert])).min(1).max(200)
    .describe('Edits applied in order, each to the result of the previous one; all succeed or the file is left unchanged. ' +
      'Either {old_text, new_text, replace_all?} (str_replace) or {insert_after_line, text}.'),
  dry_run: z.boolean().optional().describe('Return the unified diff without writing the file.'),
}).strict();

type Edit = z.output<typeof Replace> | z.output<typeof Insert>;

export default defineTool({
  name: 'edit',
  description: 'Change part of a text file. Each edit is a str_replace ({old_text, new_text}: old_text must match exactly once, ' +
    'else the error says how many matches and on which lines; replace_all replaces every one) or an insert ' +
    '({insert_after_line: N, text}). Several edits apply in order, all or none. dry_run previews. The result always ' +
    'has the unified diff. CRLF files keep CRLF (write old_text/new_text with \\n); a missing final newline stays missing.',
  input: Input,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  mutates: true,
  run(ctx, args) {
    const vpath = ctx.fs.resolve(args.path, ctx.cwd).vpath;
    const buf = readCapped(ctx.fs, args.path, ctx.cwd, EDIT_CAP, 'edit');
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
        if (at.length === 0) {
          throw new NoshError('INVALID_ARGUMENT', `${label}: old_text not found in ${vpath}`, notFoundHint(work, old, lineEndings, i),
            { path: vpath, edit: i + 1, matches: 0 });
        }
        if (at.length > 1 && !edit.replace_all) {
          const lines = linesOf(work, at);
          throw new NoshError('INVALID_ARGUMENT', `${label}: old_text matches ${at.length} times in ${vpath} (lines ${lines.slice(0, 20).join(', ')}${lines.length > 20 ? ', ...' : ''})`,
            'Include more surrounding lines in old_text so it matches once, or set replace_all: true to replace every match.' + (i > 0 ? ' Line numbers count after the earlier edits.' : ''),
            { path: vpath, edit: i + 1, matches: at.length, lines });
        }
        work = edit.replace_all ? work.split(old).join(repl) : work.slice(0, at[0]) + repl + work.slice(at[0]! + old.length);
        replacements += edit.replace_all ? at.length : 1;
      } else {
        work = insertAfter(work, edit.insert_after_line, norm(edit.text), label, vpath, i);
        replacements++;
      }
    });
    const out = crlf ? work.replace(/\n/g, '\r\n') : work;
    const changed = out !== text;
    const diff = createTwoFilesPatch(vpath, vpath, before, work, '', '', { context: 3 });
    if (changed && !args.dry_run) ctx.fs.writeFile(args.path, encodeText(out, encoding), ctx.cwd);
    return {
      data: {
        path: vpath, diff, changed, dry_run: !!args.dry_run, edits_applied: args.edits.length, replacements,
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

function occurrences(s: string, sub: string): number[] {
  const out: number[] = [];
  for (let i = s.indexOf(sub); i >= 0; i = s.indexOf(sub, i + sub.length)) out.push(i);
  return out;
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
