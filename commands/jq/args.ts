/**
 * Which of jq's arguments name files, read the way jq 1.7.1's main() walks argv: options
 * anywhere, short ones clustered (-nr), `--` ends them; the first other word is the program
 * (a file with -f/--from-file), the rest are input files unless --args/--jsonargs came first.
 * jq itself parses argv again in the wasm; this only decides which zone files to hand it.
 * A word this walk misreads is at worst a file jq does not find ("Could not open file").
 */
export interface JqFiles {
  /** Input files, the program file (-f) and the --slurpfile/--rawfile files, as given. */
  files: string[];
  /** -L directories (modules are not offered: see the README). */
  libraryDirs: string[];
  /** --run-tests: not offered. */
  runTests: boolean;
  /** --version or -V: nosh's version text (the wasm build calls itself jq-1.7.1-dirty). */
  version: boolean;
}

function isOption(text: string): boolean {
  return text[0] === '-' && (text[1] === '-' || /^[A-Za-z]$/.test(text[1] ?? ''));
}

export function jqFiles(argv: readonly string[]): JqFiles {
  const files: string[] = [];
  const libraryDirs: string[] = [];
  let program: string | undefined;
  let fromFile = false;
  let argsDone = false;
  let positionalOnly = false;
  let runTests = false;
  let version = false;
  const programFile = () => {
    if (fromFile && program !== undefined && !files.includes(program)) files.unshift(program);
  };
  for (let i = 0; i < argv.length; i++) {
    const text = argv[i]!;
    if (argsDone || !isOption(text)) {
      if (program === undefined) program = text;
      else if (!positionalOnly && text !== '-') files.push(text);
      continue;
    }
    if (text === '--') {
      argsDone = true;
      continue;
    }
    if (text.startsWith('--')) {
      switch (text) {
        case '--arg': case '--argjson': i += 2; break;
        case '--slurpfile': case '--rawfile':
          if (argv[i + 2] !== undefined) files.push(argv[i + 2]!);
          i += 2;
          break;
        case '--indent': i += 1; break;
        case '--args': case '--jsonargs': positionalOnly = true; break;
        case '--from-file': fromFile = true; break;
        case '--library-path': if (argv[i + 1] !== undefined) libraryDirs.push(argv[++i]!); break;
        case '--run-tests': runTests = true; break;
        case '--version': version = true; break;
        default: break;
      }
      continue;
    }
    if (text.startsWith('-L')) {
      if (text.length > 2) libraryDirs.push(text.slice(2));
      else if (argv[i + 1] !== undefined) libraryDirs.push(argv[++i]!);
      continue;
    }
    if (text.includes('f')) fromFile = true;
    if (text.includes('V')) version = true;
  }
  programFile();
  return { files, libraryDirs, runTests, version };
}
