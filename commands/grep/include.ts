import { fnmatch, fnmatchRegExp, type GlobMatcher } from '../../src/gnulib/fnmatch.js';
import { Fatal, bytesOf, compiles } from './matcher.js';

// --include / --exclude / --exclude-dir: gnulib exclude.c over the one fnmatch.
// ---- file name globs (fnmatch without FNM_PATHNAME / FNM_PERIOD) ----------------------

export function globMatcher(glob: string): GlobMatcher {
  const re = fnmatchRegExp(bytesOf(glob), 0);
  if (re !== null && !compiles(re)) throw new Fatal('glob pattern too large (the JavaScript regex engine refuses it); use a shorter --include/--exclude pattern');
  return fnmatch(glob, 0);
}

export interface FilterRule {
  include: boolean;
  re: GlobMatcher;
}

/** gnulib exclude.c: anchored (basename) or any '/'-suffix (command-line names). */
export function globMatches(re: GlobMatcher, name: string, anchored: boolean): boolean {
  if (re.test(name)) return true;
  if (anchored) return false;
  for (let i = 0; i < name.length; i++) if (name[i] === '/' && name[i + 1] !== '/' && i + 1 < name.length && re.test(name.slice(i + 1))) return true;
  return false;
}

/** Last matching --include/--exclude wins; none matching: excluded iff the first one was --include. */
export function excludedBy(rules: FilterRule[], name: string, anchored: boolean): boolean {
  if (rules.length === 0) return false;
  for (let i = rules.length - 1; i >= 0; i--) if (globMatches(rules[i]!.re, name, anchored)) return !rules[i]!.include;
  return rules[0]!.include;
}
