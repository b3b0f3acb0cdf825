import { describe, expect, test } from 'vitest';
import { errorBody } from '../../src/exec/index.js';
import { NoshError } from '../../src/errors.js';

describe('what a command throws becomes an error envelope', () => {
  test("V8's size limits (a string or buffer too big to build) are MEMORY_LIMIT, not an internal error", () => {
    let thrown: unknown;
    try {
      'x'.repeat(2 ** 30); // over V8's longest string, refused before anything is allocated
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(RangeError);
    const body = errorBody(thrown);
    expect(body.code).toBe('MEMORY_LIMIT');
    expect(body.message).toContain('Invalid string length');
    expect(body.hint).toMatch(/Stream/);
    expect(errorBody(new RangeError('Array buffer allocation failed')).code).toBe('MEMORY_LIMIT');
  });

  test('running out of stack (a repeated regex group over a long line) is MEMORY_LIMIT with what to simplify', () => {
    const body = errorBody(new RangeError('Maximum call stack size exceeded'));
    expect(body.code).toBe('MEMORY_LIMIT');
    expect(body.message).toMatch(/out of stack/);
    expect(body.hint).toMatch(/Simplify the pattern/);
  });

  test('other errors are INTERNAL_ERROR with host paths scrubbed; NoshErrors pass as they are', () => {
    const body = errorBody(new TypeError("cannot read '/home/alice/secret/x.txt'"));
    expect(body.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(body)).not.toContain('/home/alice');
    expect(errorBody(new RangeError('Invalid time value')).code).toBe('INTERNAL_ERROR');
    expect(errorBody(new NoshError('TIMEOUT', 'slow', 'hint')).code).toBe('TIMEOUT');
  });
});
