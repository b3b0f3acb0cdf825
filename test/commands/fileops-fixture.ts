// Shared setup for the unit tests of the file-changing commands.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll } from 'vitest';
import { tempDir } from '../helpers.js';

const scratch = tempDir('nosh-fileops-');
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
let n = 0;

/** A fresh zone root with a zone-external sibling folder ('outside') for escape checks. */
export function zone(files: Record<string, string | null> = {}): { root: string; outside: string; at(p: string): string } {
  const base = path.join(scratch, String(n++));
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(root, { recursive: true });
  fs.mkdirSync(outside, { recursive: true });
  fs.writeFileSync(path.join(outside, 'keep.txt'), 'outside\n');
  for (const [name, content] of Object.entries(files)) {
    const p = path.join(root, name);
    fs.mkdirSync(content === null ? p : path.dirname(p), { recursive: true });
    if (content !== null) fs.writeFileSync(p, content);
  }
  return { root, outside, at: (p: string) => path.join(root, p) };
}

/** Names of temp files left in a folder (there must be none after a command). */
export function leftovers(dir: string): string[] {
  return fs.readdirSync(dir).filter((f) => f.includes('.nosh-tmp-'));
}
