import { z } from 'zod';
import { NoshError } from '../errors.js';
import { defineTool } from './types.js';
import { operand, runCommand } from './run-command.js';

const Input = z.object({
  path: z.string().min(1).describe('The zip archive, inside the zone.'),
  destination: z.string().min(1).optional().describe('Folder to extract into (created if missing); default the current folder.'),
  overwrite: z.boolean().optional().describe('Replace files that already exist (default false: they are kept and listed in skipped).'),
  members: z.array(z.string().min(1)).optional().describe('Only these entries (wildcards * ? [...] as unzip takes them).'),
  exclude: z.array(z.string().min(1)).optional().describe('Leave out entries matching these patterns.'),
  junk_paths: z.boolean().optional().describe('Extract every file into the destination itself, without its folders (unzip -j).'),
}).strict();

/**
 * What the call made and where it is now: its changes replayed in order (a file staged and
 * moved, a staged folder moved whole with what was made in it, what was removed again).
 */
function madeNow(changes: readonly { op: string; path: string; to?: string }[]): Map<string, 'file' | 'folder'> {
  const made = new Map<string, 'file' | 'folder'>();
  for (const c of changes) {
    if (c.op === 'write') made.set(c.path, 'file');
    else if (c.op === 'mkdir') made.set(c.path, 'folder');
    else if (c.op === 'delete') made.delete(c.path);
    else if (c.op === 'rename' && c.to !== undefined) {
      for (const [p, k] of [...made]) {
        if (p !== c.path && !p.startsWith(c.path + '/')) continue;
        made.delete(p);
        made.set(c.to + p.slice(c.path.length), k);
      }
    }
  }
  return made;
}

export default defineTool({
  name: 'unzip',
  description: 'Extract a zip archive into a folder of the zone, all or nothing: entries are staged and moved into place ' +
    'at the end, so a zip bomb, quota stop or unsafe archive leaves nothing behind. Unsafe names (../, absolute), links, ' +
    'devices and encrypted entries are never created (listed in warnings). Returns the files and folders created.',
  input: Input,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  mutates: true,
  async run(ctx, args) {
    // Without -o, unzip keeps an existing file and says so (nosh's unzip never prompts).
    const argv = args.overwrite ? ['unzip', '-o'] : ['unzip'];
    if (args.junk_paths) argv.push('-j');
    argv.push(operand('path', args.path));
    for (const m of args.members ?? []) argv.push(operand('members', m));
    if (args.exclude?.length) argv.push('-x', ...args.exclude.map((x) => operand('exclude', x)));
    if (args.destination) argv.push('-d', operand('destination', args.destination));
    const r = await runCommand(ctx, argv);
    const warnings = r.err.split('\n').filter((l) => l.trim() !== '');
    if (r.exitCode === 9 || r.exitCode === 3 || r.exitCode === 11) {
      const notFound = r.exitCode === 9 && /cannot find or open/.test(r.err);
      throw new NoshError(notFound ? 'FILE_NOT_FOUND' : 'INVALID_ARGUMENT', warnings.join('\n') || `unzip failed (exit ${r.exitCode})`,
        r.exitCode === 11 ? 'No entry matched members: list the archive with zipinfo.'
          : r.exitCode === 3 ? 'Nothing was extracted. The archive is damaged or over a limit; zipinfo shows its entries.'
            : 'Check the path; only zip archives are read here.', { path: args.path, exit_code: r.exitCode });
    }
    // What was created, from the zone's own record of the changes (not from the printed lines).
    const staged = /(^|\/)\.nosh-unzip-[0-9a-f]+(\/|$)/;
    const made = madeNow(r.changes);
    const files = [...made].filter(([p, k]) => k === 'file' && !staged.test(p)).map(([p]) => p);
    const folders = [...made].filter(([p, k]) => k === 'folder' && !staged.test(p)).map(([p]) => p);
    const skipped = warnings.filter((l) => / exists: not replaced/.test(l)).map((l) => l.replace(/^unzip: (.*) exists: not replaced.*$/, '$1'));
    return {
      data: { path: args.path, destination: args.destination ?? '.', files, folders, skipped, warnings, exit_code: r.exitCode },
      message: `extracted ${files.length} file${files.length === 1 ? '' : 's'}` + (skipped.length ? `, kept ${skipped.length} existing (overwrite: true replaces them)` : ''),
    };
  },
});
