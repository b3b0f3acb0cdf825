/**
 * The command-line parser: the boundary between an agent's command line and nosh's
 * commands. No shell ever runs; the line is read the way bash would read it, and every
 * construct that would make bash do more than run one pipeline of simple commands is
 * rejected with METACHAR_REJECTED.
 */
import { NoshError } from '../errors.js';
import { braceBudget, braceExpand } from './brace.js';
import { splitLine, unquoteWord, type Word } from './tokenize.js';

export type { Word } from './tokenize.js';
export { expandGlob, expandWords, compareC, type DirEntryLite, type ListDir } from './glob.js';

export interface ParsedLine {
  /** Pipeline stages split on unquoted `|`; a single command is one stage. */
  stages: Word[][];
}

export interface ParseOptions {
  /** Default true; false makes an unquoted `|` METACHAR_REJECTED. */
  pipes?: boolean;
  /** Bound on the words produced by brace expansion over the whole line (default 10000). */
  maxWords?: number;
}

/** Parses one command line; throws NoshError (METACHAR_REJECTED or INVALID_ARGUMENT). */
export function parseCommandLine(line: string, opts: ParseOptions = {}): ParsedLine {
  if (typeof line !== 'string') throw new NoshError('INVALID_ARGUMENT', 'the command line must be a string', 'pass the command as one string');
  const maxWords = opts.maxWords ?? 10_000;
  const split = splitLine(line, opts.pipes ?? true, maxWords);
  let total = 0;
  const budget = braceBudget();
  const stages = split.stages.map((raws, s) => {
    const words: Word[] = [];
    for (const raw of raws) {
      if (total >= maxWords) {
        throw new NoshError('INVALID_ARGUMENT', `the command line has more than ${maxWords} words`,
          'use a smaller brace expansion, or split the work into several calls');
      }
      const expanded = braceExpand(raw, maxWords - total, maxWords, budget);
      total += expanded.length;
      for (const e of expanded) {
        const w = unquoteWord(e);
        if (w) words.push(w);
      }
    }
    if (words.length === 0) {
      throw new NoshError('INVALID_ARGUMENT', `pipeline stage ${s + 1} is empty after brace expansion`, 'write a command name');
    }
    return words;
  });
  return { stages };
}
