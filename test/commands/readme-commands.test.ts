// The README's list of the commands `exec` runs is the registry's, name for name (issue #25:
// "the README's command list is updated from what runs").
import * as fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandNames } from '../../commands/index.js';

describe('README command list', () => {
  it('names every registered command once, and nothing else', () => {
    const readme = fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const at = readme.indexOf('Commands that `exec` can run today');
    expect(at).toBeGreaterThan(0);
    const para = readme.slice(at, readme.indexOf('\n\n', at));
    const listed = para.slice(para.indexOf('):') + 2).replace(/\.\s*$/, '').split(/\s+/).filter(Boolean);
    expect(listed).toEqual([...commandNames()].sort());
  });
});
