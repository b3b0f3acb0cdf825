import { z } from 'zod';
import type { ErrorCode } from '../errors.js';
import { BlockMatcher, VfsError, extensionOf, splitVirtual, type Resolved } from '../vfs/index.js';
import { defineTool, type ToolContext } from './types.js';
import { closestNames, typeOf } from './common.js';

const Input = z.object({
  path: z.string().min(1).describe('Path to check, inside the zone.'),
  operation: z.enum(['read', 'write', 'delete', 'list']).optional().describe('What you intend to do with it (default read).'),
}).strict();

interface Verdict { allowed: boolean; code: ErrorCode | null; reason: string }

export default defineTool({
  name: 'check_access',
  description: 'Would an operation (read, write, delete, list) on this path be allowed, and why not? Explains refusals: a ' +
    'blocked name pattern (and which), an extension not allowed, a read-only zone, a symlink leaving the zone or not ' +
    'followed, a missing file or folder (with the closest names). Also returns the zone policy. Never changes anything.',
  input: Input,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  mutates: false,
  run(ctx, args) {
    const op = args.operation ?? 'read';
    const p = ctx.fs.policy;
    const policy = {
      readonly: p.readonly, allow_delete: p.readonly ? p.allowDelete : true, allowed_extensions: p.allowedExtensions,
      blocked_patterns: p.blockedPatterns, follow_symlinks: p.followSymlinks, max_file_size: p.maxFileSize,
    };
    let r: Resolved | null = null;
    let verdict: Verdict;
    try {
      r = ctx.fs.resolve(args.path, ctx.cwd);
      verdict = judge(ctx, r, op);
    } catch (e) {
      verdict = refusal(ctx, e, args.path);
    }
    const data = {
      path: r?.vpath ?? args.path, operation: op, allowed: verdict.allowed, code: verdict.code, reason: verdict.reason,
      exists: r ? r.stat !== null : null, type: r?.stat ? typeOf(r.stat) : null, policy,
    };
    return { data, message: `${op} ${data.path}: ${verdict.allowed ? 'allowed' : 'refused'}: ${verdict.reason}` };
  },
});

const ok = (reason: string): Verdict => ({ allowed: true, code: null, reason });
const no = (code: ErrorCode, reason: string): Verdict => ({ allowed: false, code, reason });

function judge(ctx: ToolContext, r: Resolved, op: string): Verdict {
  const p = ctx.fs.policy;
  const st = r.stat;
  const name = r.parts[r.parts.length - 1] ?? '';
  if (op === 'read' || op === 'list') {
    if (!st) return missing(ctx, r.vpath);
    let real = st;
    if (st.isSymbolicLink()) {
      try {
        real = ctx.fs.stat(r.vpath);
      } catch (e) {
        return refusal(ctx, e, r.vpath);
      }
    }
    if (op === 'read' && real.isDirectory()) return no('IS_A_DIRECTORY', 'it is a folder: use list (or tree/find) to see its content');
    if (op === 'list' && !real.isDirectory()) return no('NOT_A_DIRECTORY', 'it is not a folder: use read or stat');
    if (!real.isFile() && !real.isDirectory()) return no('PERMISSION_DENIED', 'special files (FIFO, socket, device) are never opened');
    if (op === 'read' && real.isFile() && real.size > p.maxFileSize) {
      return no('FILE_TOO_LARGE', `the file is ${real.size} bytes, more than this zone's maximum file size (${p.maxFileSize} bytes): ` +
        'its content cannot be read (stat and listings still show it)');
    }
    return ok(op === 'read' ? 'readable' : 'listable');
  }
  if (op === 'delete') {
    if (!st) return missing(ctx, r.vpath);
    if (r.parts.length === 0) return no('PERMISSION_DENIED', 'the zone root cannot be deleted');
    if (p.readonly && !p.allowDelete) return no('ZONE_READONLY', 'the zone is read-only (deleting is not allowed either)');
    return ok(st.isDirectory() ? 'deletable (a folder that is not empty needs recursive: true)' : 'deletable');
  }
  // write
  if (p.readonly) return no('ZONE_READONLY', 'the zone is read-only: work on a copy in a writable zone');
  if (r.parts.length === 0 || st?.isDirectory()) return no('IS_A_DIRECTORY', 'it is a folder: write a file inside it');
  if (st?.isSymbolicLink()) return no('PATH_ESCAPE', 'it is a symlink: files are not written through links');
  if (st && !st.isFile()) return no('PERMISSION_DENIED', 'special files are never written');
  if (st && st.nlink > 1) return no('PERMISSION_DENIED', 'the file has several hard links and is not written through');
  if (p.allowedExtensions && !p.allowedExtensions.includes(extensionOf(name))) {
    return no('BLOCKED_PATH', `extension '${extensionOf(name) || '(none)'}' is not allowed here (allowed: ${p.allowedExtensions.join(' ')})`);
  }
  return ok(st ? 'writable (would replace the file)' : 'writable (would create the file)');
}

function missing(ctx: ToolContext, vpath: string): Verdict {
  let near: ReturnType<typeof closestNames> = null;
  try {
    near = closestNames(ctx.fs, vpath, '/');
  } catch { /* no suggestion */ }
  return no('FILE_NOT_FOUND', 'it does not exist' + (near?.names.length ? ` (closest names: ${near.names.join(', ')})` : ''));
}

function refusal(ctx: ToolContext, e: unknown, path: string): Verdict {
  if (!(e instanceof VfsError)) throw e;
  switch (e.errno) {
    case 'EBLOCKED': {
      const pattern = blockingPattern(ctx, path);
      return no('BLOCKED_PATH', pattern ? `the name matches the blocked pattern '${pattern}' of this zone` : 'the name is reserved or blocked by the zone policy');
    }
    case 'EEXT': {
      const ext = extensionOf(splitVirtual(path, ctx.cwd).pop() ?? '');
      return no('BLOCKED_PATH', `extension '${ext || '(none)'}' is not allowed here (allowed: ${ctx.fs.policy.allowedExtensions?.join(' ') ?? 'all'})`);
    }
    case 'ESYMLINK': return no('PATH_ESCAPE', 'the path goes through a symlink and this zone does not follow symlinks');
    case 'EESCAPE': return no('PATH_ESCAPE', 'the path goes through a symlink that points outside the zone');
    case 'ELOOP': return no('PATH_ESCAPE', 'too many levels of symlinks');
    case 'ENOENT': {
      // A missing folder on the way: a blocked name further on is still the answer.
      const pattern = blockingPattern(ctx, path);
      if (pattern) return no('BLOCKED_PATH', `the name matches the blocked pattern '${pattern}' of this zone`);
      return missing(ctx, path);
    }
    case 'ENOTDIR': return no('NOT_A_DIRECTORY', 'a component of the path is a file, not a folder');
    case 'ENAMETOOLONG': return no('INVALID_ARGUMENT', 'the path or a name in it is too long');
    case 'ETOODEEP': return no('INVALID_ARGUMENT', 'the folder is nested too deep for nosh to follow');
    case 'EINVAL': return no('INVALID_ARGUMENT', 'the path contains a NUL byte or is invalid');
    default: return no(e.code, e.reason);
  }
}

/** Which configured pattern blocks some component of the path (lexically, '..' clamped). */
function blockingPattern(ctx: ToolContext, path: string): string | null {
  const parts = splitVirtual(path, ctx.cwd);
  for (const pattern of ctx.fs.policy.blockedPatterns) {
    const m = BlockMatcher.for([pattern]);
    for (let i = 0; i < parts.length; i++) {
      const isLast = i === parts.length - 1;
      if (m.blocksComponent(parts.slice(0, i), parts[i]!, !isLast) || (isLast && m.blocksComponent(parts.slice(0, i), parts[i]!, true))) return pattern;
    }
  }
  return null;
}
