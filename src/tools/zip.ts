import { z } from 'zod';
import { NoshError } from '../errors.js';
import { defineTool } from './types.js';
import { operand, runCommand } from './run-command.js';

const Input = z.object({
  path: z.string().min(1).describe('The archive to create or add to, inside the zone (.zip is added when the name has no extension).'),
  paths: z.array(z.string().min(1)).min(1).describe('Files and folders to add (folders with all their content).'),
  level: z.number().int().min(0).max(9).optional().describe('Compression level 0 (store) to 9 (best); default 6.'),
  exclude: z.array(z.string().min(1)).optional().describe('Leave out names matching these patterns (zip -x).'),
  junk_paths: z.boolean().optional().describe('Store files without their folders (zip -j).'),
}).strict();

export default defineTool({
  name: 'zip',
  description: 'Create a zip archive from files and folders of the zone, or add them to an existing one (zip -r). The ' +
    'archive is written whole and renamed into place; symbolic links are skipped, never stored. Returns the archive size.',
  input: Input,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  mutates: true,
  async run(ctx, args) {
    const argv = ['zip', '-r', `-${args.level ?? 6}`];
    if (args.junk_paths) argv.push('-j');
    argv.push(operand('path', args.path), ...args.paths.map((p) => operand('paths', p)));
    if (args.exclude?.length) argv.push('-x', ...args.exclude.map((x) => operand('exclude', x)));
    const r = await runCommand(ctx, argv);
    if (r.exitCode !== 0) {
      const text = (r.err + r.out).trim();
      throw new NoshError(r.exitCode === 12 ? 'FILE_NOT_FOUND' : 'INVALID_ARGUMENT', text || `zip failed (exit ${r.exitCode})`,
        r.exitCode === 12 ? 'None of the paths exist: list the folder first.' : 'Nothing was changed: the archive is replaced only when zip succeeds.',
        { path: args.path, exit_code: r.exitCode });
    }
    const added = r.out.split('\n').filter((l) => /^ {2}(adding|updating): /.test(l)).length;
    // zip's own naming: .zip is added to a name without an extension
    const named = args.path.slice(args.path.lastIndexOf('/') + 1).includes('.') ? args.path : args.path + '.zip';
    const { vpath: archive, stat } = ctx.fs.resolve(named, ctx.cwd);
    const size = stat?.size ?? 0;
    const warnings = r.err.split('\n').filter((l) => l.trim() !== '');
    return { data: { path: archive, entries_added: added, size, warnings }, message: `${archive}: ${added} entr${added === 1 ? 'y' : 'ies'} added, ${size} bytes` };
  },
});
