import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import type { Nosh } from '../index.js';
import { commandNames } from '../../commands/index.js';
import { normalizeVirtual } from '../vfs/index.js';

const HISTORY = path.join(os.homedir(), '.nosh_history');

/** A prompt for a person: runs command lines in the zone, `cd` stays inside, `help`, `exit`. */
export async function repl(nosh: Nosh): Promise<number> {
  let cwd = '/';
  const history = loadHistory();
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout, history, historySize: 1000, terminal: process.stdin.isTTY });
  const prompt = () => rl.setPrompt(`nosh:${cwd}$ `);
  prompt();
  rl.prompt();
  for await (const raw of rl) {
    const line = raw.trim();
    if (line === 'exit' || line === 'quit') break;
    if (line !== '') {
      appendHistory(line);
      cwd = await handle(nosh, line, cwd);
    }
    prompt();
    rl.prompt();
  }
  rl.close();
  return 0;
}

async function handle(nosh: Nosh, line: string, cwd: string): Promise<string> {
  if (line === 'help') {
    process.stdout.write(`Commands: ${commandNames().join(' ')}\n` +
      'Type a command line as in a shell (quotes, globs, pipes). No redirections, no ; or &&.\n' +
      'cd DIR changes folder (inside the workspace only); CMD --help shows a command\'s flags; exit leaves.\n');
    return cwd;
  }
  const cd = /^cd(?:\s+(.*))?$/.exec(line);
  if (cd) {
    const target = normalizeVirtual(cd[1]?.replace(/^(['"])(.*)\1$/, '$2') || '/', cwd);
    const check = await nosh.exec({ cmd: 'pwd', cwd: target });
    if (!check.success) {
      process.stdout.write(`cd: ${cd[1]}: ${check.error.message}\n`);
      return cwd;
    }
    return check.data.stdout.trim() || target;
  }
  const res = await nosh.exec({ command: line, cwd });
  if (!res.success) {
    process.stdout.write(`error: ${res.error.message}\n${res.error.hint ? `  ${res.error.hint}\n` : ''}`);
    return cwd;
  }
  process.stdout.write(res.data.stdout);
  if (res.data.stderr) process.stdout.write(res.data.stderr);
  if (res.data.truncated) process.stdout.write(`[${res.message}]\n`);
  if (res.data.exit_code !== 0) process.stdout.write(`[exit ${res.data.exit_code}]\n`);
  return cwd;
}

function loadHistory(): string[] {
  try {
    return fs.readFileSync(HISTORY, 'utf8').split('\n').filter(Boolean).reverse().slice(0, 1000);
  } catch {
    return [];
  }
}

function appendHistory(line: string): void {
  try {
    fs.appendFileSync(HISTORY, line + '\n');
  } catch { /* history is a convenience */ }
}
