import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { errorBody } from '../../src/runtime/error-body.js';
import { hintFor } from '../../src/runtime/hints.js';
import { envelopeOfError } from '../../src/api/exec.js';
import { errorBody as execErrorBody } from '../../src/exec/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { NoshError } from '../../src/errors.js';

describe('one translation of an error into an envelope body (src/runtime/error-body.ts)', () => {
  test('a VfsError: its code, the virtual path and strerror text, the errno hint, the path in details', () => {
    const body = errorBody(new VfsError('EFBIG', '/d/big.bin', { operation: 'read', size: 10, limit: 5 }));
    expect(body).toEqual({
      code: 'FILE_TOO_LARGE',
      message: '/d/big.bin: File too large',
      hint: hintFor('EFBIG', { operation: 'read', size: 10, limit: 5 }),
      details: { path: '/d/big.bin', operation: 'read', size: 10, limit: 5 },
    });
    expect(body.hint).toMatch(/maximum file size/);
    expect(errorBody(new VfsError('ENOENT', 'x.txt')).hint).toMatch(/Check the path with ls/);
  });

  test('a ZodError: INVALID_ARGUMENT naming the first bad parameter, a few issues listed', () => {
    const r = z.object({ path: z.string(), limit: z.number() }).strict().safeParse({ path: 3, limit: 'x' });
    expect(r.success).toBe(false);
    const body = errorBody(r.error);
    expect(body.code).toBe('INVALID_ARGUMENT');
    expect(body.message).toMatch(/^path: /);
    expect(body.hint).toBe('Check the parameter names and types.');
    expect((body.details.issues as { path: string }[]).map((i) => i.path)).toEqual(['path', 'limit']);
  });

  test('the api envelope, the exec export and the runtime function give the same body', () => {
    const errors: unknown[] = [new NoshError('TIMEOUT', 'slow', 'wait'), new VfsError('EROFS', '/a'),
      new RangeError('Invalid string length'), new TypeError("cannot read '/home/alice/x'"), 'a string'];
    for (const e of errors) {
      expect(envelopeOfError(e)).toEqual({ success: false, error: errorBody(e) });
      expect(execErrorBody(e)).toEqual(errorBody(e));
    }
    expect(JSON.stringify(errorBody(new TypeError("cannot read '/home/alice/x'")))).not.toContain('/home/alice');
  });
});
