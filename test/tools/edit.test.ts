import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspace, type Ws } from './setup.js';

let ws: Ws;
beforeAll(async () => { ws = await workspace(); });
afterAll(async () => { await ws.close(); });

describe('edit', () => {
  it('replaces text that matches exactly once and returns the diff', async () => {
    ws.put('a.txt', 'one\ntwo\nthree\n');
    const r = await ws.call('edit', { path: 'a.txt', edits: [{ old_text: 'two', new_text: 'TWO' }] });
    expect(r.success).toBe(true);
    expect(ws.get('a.txt')).toBe('one\nTWO\nthree\n');
    expect(r.data.diff).toContain('-two\n+TWO');
    expect(r.data.diff).toContain('--- /a.txt');
    expect(r.data).toMatchObject({ changed: true, dry_run: false, replacements: 1, line_endings: 'lf', final_newline: true });
  });

  it('zero matches: INVALID_ARGUMENT with matches 0, file unchanged', async () => {
    ws.put('z.txt', 'alpha\n');
    const r = await ws.call('edit', { path: 'z.txt', edits: [{ old_text: 'beta', new_text: 'x' }] });
    expect(r.success).toBe(false);
    expect(r.error.code).toBe('INVALID_ARGUMENT');
    expect(r.error.details.matches).toBe(0);
    expect(r.error.message).toContain('not found');
    expect(ws.get('z.txt')).toBe('alpha\n');
  });

  it('zero matches that differ only in whitespace say so in the hint', async () => {
    ws.put('ws.txt', 'if (x) {\n\treturn 1;\n}\n');
    const r = await ws.call('edit', { path: 'ws.txt', edits: [{ old_text: 'if (x) {\n    return 1;', new_text: 'y' }] });
    expect(r.error.hint).toMatch(/whitespace/);
  });

  it('several matches: the error says how many and on which lines', async () => {
    ws.put('m.txt', 'x = 1\ny = 2\nx = 1\nz\nx = 1\n');
    const r = await ws.call('edit', { path: 'm.txt', edits: [{ old_text: 'x = 1', new_text: 'x = 9' }] });
    expect(r.success).toBe(false);
    expect(r.error.code).toBe('INVALID_ARGUMENT');
    expect(r.error.message).toContain('matches 3 times');
    expect(r.error.details).toMatchObject({ matches: 3, lines: [1, 3, 5] });
    expect(r.error.hint).toContain('replace_all');
    expect(ws.get('m.txt')).toBe('x = 1\ny = 2\nx = 1\nz\nx = 1\n');
  });

  it('replace_all replaces every match', async () => {
    ws.put('ra.txt', 'a-a-a\n');
    const r = await ws.call('edit', { path: 'ra.txt', edits: [{ old_text: 'a', new_text: '$&b', replace_all: true }] });
    expect(r.data.replacements).toBe(3);
    expect(ws.get('ra.txt')).toBe('$&b-$&b-$&b\n');
  });

  it('several edits apply in order; a failing second edit leaves the file unchanged', async () => {
    ws.put('multi.txt', 'red\ngreen\nblue\n');
    const bad = await ws.call('edit', { path: 'multi.txt', edits: [
      { old_text: 'red', new_text: 'RED' },
      { old_text: 'purple', new_text: 'x' },
    ] });
    expect(bad.success).toBe(false);
    expect(bad.error.message).toContain('edit 2 of 2');
    expect(bad.error.details.edit).toBe(2);
    expect(ws.get('multi.txt')).toBe('red\ngreen\nblue\n');
    const good = await ws.call('edit', { path: 'multi.txt', edits: [
      { old_text: 'red', new_text: 'RED' },
      { old_text: 'RED\ngreen', new_text: 'RED\nGREEN' },
      { insert_after_line: 3, text: 'black' },
    ] });
    expect(good.success).toBe(true);
    expect(ws.get('multi.txt')).toBe('RED\nGREEN\nblue\nblack\n');
  });

  it('dry_run returns the diff and leaves the file unchanged', async () => {
    ws.put('dry.txt', 'keep\n');
    const r = await ws.call('edit', { path: 'dry.txt', dry_run: true, edits: [{ old_text: 'keep', new_text: 'change' }] });
    expect(r.success).toBe(true);
    expect(r.data.dry_run).toBe(true);
    expect(r.data.diff).toContain('-keep\n+change');
    expect(ws.get('dry.txt')).toBe('keep\n');
  });

  it('CRLF files: old_text written with \\n matches, and CRLF is kept', async () => {
    ws.put('crlf.txt', 'one\r\ntwo\r\nthree\r\n');
    const r = await ws.call('edit', { path: 'crlf.txt', edits: [
      { old_text: 'one\ntwo', new_text: 'one\nTWO\n2b' },
      { insert_after_line: 0, text: 'zero' },
    ] });
    expect(r.success).toBe(true);
    expect(r.data.line_endings).toBe('crlf');
    expect(ws.get('crlf.txt')).toBe('zero\r\none\r\nTWO\r\n2b\r\nthree\r\n');
  });

  it('CRLF files: old_text written with \\r\\n matches too', async () => {
    ws.put('crlf2.txt', 'a\r\nb\r\n');
    const r = await ws.call('edit', { path: 'crlf2.txt', edits: [{ old_text: 'a\r\nb', new_text: 'A\r\nB' }] });
    expect(r.success).toBe(true);
    expect(ws.get('crlf2.txt')).toBe('A\r\nB\r\n');
  });

  it('a file without a final newline stays without one', async () => {
    ws.put('nofinal.txt', 'first\nlast');
    await ws.call('edit', { path: 'nofinal.txt', edits: [{ old_text: 'last', new_text: 'LAST' }] });
    expect(ws.get('nofinal.txt')).toBe('first\nLAST');
    const r = await ws.call('edit', { path: 'nofinal.txt', edits: [{ insert_after_line: 2, text: 'after' }, { insert_after_line: 1, text: 'mid\n' }] });
    expect(r.data.final_newline).toBe(false);
    expect(ws.get('nofinal.txt')).toBe('first\nmid\nLAST\nafter');
  });

  it('insert past the end is refused with the line count', async () => {
    ws.put('short.txt', 'a\nb\n');
    const r = await ws.call('edit', { path: 'short.txt', edits: [{ insert_after_line: 5, text: 'x' }] });
    expect(r.error.code).toBe('INVALID_ARGUMENT');
    expect(r.error.details.lines).toBe(2);
  });

  it('keeps the file mode and refuses bad arguments', async () => {
    ws.put('mode.sh', 'echo hi\n');
    (await import('node:fs')).chmodSync(`${ws.root}/mode.sh`, 0o755);
    await ws.call('edit', { path: 'mode.sh', edits: [{ old_text: 'hi', new_text: 'ho' }] });
    expect((await ws.call('stat', { path: 'mode.sh' })).data.mode).toBe('0755');
    const empty = await ws.call('edit', { path: 'mode.sh', edits: [{ old_text: '', new_text: 'x' }] });
    expect(empty.error.code).toBe('INVALID_ARGUMENT');
    const none = await ws.call('edit', { path: 'mode.sh', edits: [] });
    expect(none.error.code).toBe('INVALID_ARGUMENT');
  });

  it('an edit whose result would pass the size cap is refused before it is built, file unchanged', async () => {
    ws.put('grow.txt', 'abc\n');
    const edits = Array.from({ length: 60 }, () => ({ old_text: 'a', new_text: 'aa', replace_all: true }));
    const r = await ws.call('edit', { path: 'grow.txt', edits });
    expect(r.success).toBe(false);
    expect(r.error.code).toBe('FILE_TOO_LARGE');
    expect(r.error.message).toMatch(/edit \d+ of 60/);
    expect(r.error.hint).not.toBe('');
    expect(ws.get('grow.txt')).toBe('abc\n');
  });

  it('replace_all on every line of a large file answers, with a diff cut to the output limit', async () => {
    const n = 20_000;
    ws.put('every.txt', Array.from({ length: n }, (_, i) => `a line ${i}\n`).join(''));
    const r = await ws.call('edit', { path: 'every.txt', edits: [{ old_text: 'a line', new_text: 'b line', replace_all: true }] });
    expect(r.success).toBe(true);
    expect(r.data.replacements).toBe(n);
    expect(ws.get('every.txt')).toBe(Array.from({ length: n }, (_, i) => `b line ${i}\n`).join(''));
    expect(r.data.diff_truncated).toBe(true);
    expect(Buffer.byteLength(r.data.diff)).toBeLessThanOrEqual(50_000);
    expect(r.data.diff).toContain('-a line 0\n');
    expect(r.data.diff).toContain('+b line 0\n');
  }, 120_000);

  it('a large diff that is not cut is a valid unified diff of the whole change', async () => {
    const n = 3000;
    ws.put('mid.txt', Array.from({ length: n }, (_, i) => `line ${i}\n`).join(''));
    const r = await ws.call('edit', { path: 'mid.txt', edits: [{ old_text: 'line 1', new_text: 'LINE 1', replace_all: true }], dry_run: true });
    expect(r.success).toBe(true);
    const { applyPatch } = await import('diff');
    expect(r.data.diff_truncated).toBeFalsy();
    const before = ws.get('mid.txt');
    expect(applyPatch(before, r.data.diff)).toBe(before.replaceAll('line 1', 'LINE 1'));
  }, 120_000);

  it('a missing file suggests close names', async () => {
    ws.put('config.json', '{}');
    const r = await ws.call('edit', { path: 'confg.json', edits: [{ old_text: 'a', new_text: 'b' }] });
    expect(r.error.code).toBe('FILE_NOT_FOUND');
    expect(r.error.hint).toContain('config.json');
    expect(r.error.details.suggestions).toContain('config.json');
  });
});

describe('edit by line range and by regex (issue 28, Fileshed shed_patch_text)', () => {
  it('replaces a line range, deletes with empty text, keeps a missing final newline missing', async () => {
    ws.put('lr.txt', 'a\nb\nc\nd\n');
    const r = await ws.call('edit', { path: 'lr.txt', edits: [{ from_line: 2, to_line: 3, new_text: 'B\nC\nX' }] });
    expect(r.success, JSON.stringify(r)).toBe(true);
    expect(ws.get('lr.txt')).toBe('a\nB\nC\nX\nd\n');
    await ws.call('edit', { path: 'lr.txt', edits: [{ from_line: 1, to_line: 1, new_text: '' }] });
    expect(ws.get('lr.txt')).toBe('B\nC\nX\nd\n');
    ws.put('nf.txt', 'one\ntwo');
    await ws.call('edit', { path: 'nf.txt', edits: [{ from_line: 2, to_line: 2, new_text: 'TWO\n' }] });
    expect(ws.get('nf.txt')).toBe('one\nTWO');
    const bad = await ws.call('edit', { path: 'nf.txt', edits: [{ from_line: 2, to_line: 5, new_text: 'x' }] });
    expect(bad.error.code).toBe('INVALID_ARGUMENT');
    expect(bad.error.hint).toMatch(/to_line <= 2/);
    expect(ws.get('nf.txt')).toBe('one\nTWO');
  });

  it('a regex edit uses ERE with \\1 and &, one match unless replace_all; CRLF files stay CRLF', async () => {
    ws.put('re.txt', 'version = 1.2.3\nname = x\nversion_note = old\n');
    const one = await ws.call('edit', { path: 're.txt', edits: [{ pattern: '^version = ([0-9]+)\\.([0-9]+)\\.[0-9]+$', replacement: 'version = \\1.\\2.4 # was &' }] });
    expect(one.success, JSON.stringify(one)).toBe(true);
    expect(ws.get('re.txt')).toBe('version = 1.2.4 # was version = 1.2.3\nname = x\nversion_note = old\n');
    const many = await ws.call('edit', { path: 're.txt', edits: [{ pattern: '^version', replacement: 'v' }] });
    expect(many.error.message).toMatch(/matches 2 times .*lines 1, 3/);
    const all = await ws.call('edit', { path: 're.txt', edits: [{ pattern: 'NAME', replacement: 'id', ignore_case: true, replace_all: true }] });
    expect(all.data.replacements).toBe(1);
    expect(ws.get('re.txt')).toContain('id = x\n');
    expect((await ws.call('edit', { path: 're.txt', edits: [{ pattern: 'a(', replacement: '' }] })).error.message).toMatch(/bad pattern/);
    expect((await ws.call('edit', { path: 're.txt', edits: [{ pattern: 'zzz', replacement: '' }] })).error.message).toMatch(/matches nothing/);
    ws.put('crlf.txt', 'k=1\r\nk=2\r\n');
    await ws.call('edit', { path: 'crlf.txt', edits: [{ pattern: '^k=([0-9])$', replacement: 'key=\\1', replace_all: true }] });
    expect(ws.get('crlf.txt')).toBe('key=1\r\nkey=2\r\n');
  });
});
