import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { tempDir } from '../helpers.js';

const MAIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

let root: string;
let client: Client;
let transport: StdioClientTransport;

beforeAll(async () => {
  root = tempDir('nosh-mcp-');
  fs.writeFileSync(path.join(root, 'notes.txt'), 'alpha\nbeta\ngamma\n');
  transport = new StdioClientTransport({ command: process.execPath, args: [MAIN, 'mcp', '--root', root], stderr: 'pipe' });
  client = new Client({ name: 'nosh-test', version: '1.0.0' });
  await client.connect(transport);
}, 30_000);

afterAll(async () => {
  await client?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** The envelope a tool call returned, as structured content. */
async function call(name: string, args: Record<string, unknown>): Promise<{ isError: boolean; env: any; text: string }> {
  const r = await client.callTool({ name, arguments: args });
  const content = r.content as { type: string; text: string }[];
  return { isError: !!r.isError, env: r.structuredContent, text: content[0]?.text ?? '' };
}

describe('nosh mcp with the SDK client', () => {
  it('identifies itself and lists the tools with JSON schemas and annotations', async () => {
    expect(client.getServerVersion()?.name).toBe('nosh');
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['exec', 'read', 'read_many', 'write', 'edit', 'delete', 'move', 'copy', 'mkdir', 'exists', 'stat', 'list', 'tree', 'find', 'search', 'check_access']) {
      expect(names).toContain(n);
    }
    const edit = tools.find((t) => t.name === 'edit')!;
    expect(edit.description).toContain('str_replace');
    expect(edit.inputSchema.type).toBe('object');
    expect(edit.inputSchema.properties).toHaveProperty('edits');
    expect(edit.inputSchema.properties).toHaveProperty('zone');
    expect(edit.inputSchema.required).toEqual(['path', 'edits']);
    expect(edit.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(tools.find((t) => t.name === 'read')!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
  });

  it('calls read', async () => {
    const r = await call('read', { path: 'notes.txt', offset: 2, limit: 1 });
    expect(r.isError).toBe(false);
    expect(r.env).toMatchObject({ success: true, data: { content: 'beta\n', start_line: 2, end_line: 2, total_lines: 3 } });
    expect(JSON.parse(r.text)).toEqual(r.env);
  });

  it('calls write, then edit, and sees the diff', async () => {
    const w = await call('write', { path: 'dir/new.md', content: '# Title\nold line\n', create_dirs: true });
    expect(w.env).toMatchObject({ success: true, data: { created: true, bytes_written: 17 } });
    const e = await call('edit', { path: 'dir/new.md', edits: [{ old_text: 'old line', new_text: 'new line' }] });
    expect(e.isError).toBe(false);
    expect(e.env.data.diff).toContain('-old line\n+new line');
    expect(fs.readFileSync(path.join(root, 'dir/new.md'), 'utf8')).toBe('# Title\nnew line\n');
  });

  it('calls exec', async () => {
    const r = await call('exec', { command: 'grep -n a notes.txt | wc -l' });
    expect(r.env).toMatchObject({ success: true, data: { exit_code: 0, stdout: '3\n' } });
  });

  it('calls hexdump and convert_eol (Fileshed parity tools)', async () => {
    const h = await call('hexdump', { path: 'notes.txt', length: 6 });
    expect(h.env).toMatchObject({ success: true, data: { dump: '00000000  61 6c 70 68 61 0a                                 |alpha.|\n00000006\n', next_offset: 6 } });
    fs.writeFileSync(path.join(root, 'eol.txt'), 'a\nb\n');
    const c = await call('convert_eol', { path: 'eol.txt', to: 'crlf' });
    expect(c.env).toMatchObject({ success: true, data: { changed: 2 } });
    expect(fs.readFileSync(path.join(root, 'eol.txt'), 'utf8')).toBe('a\r\nb\r\n');
  });

  it('a failure is isError with structuredContent.error.code and a hint', async () => {
    const r = await call('read', { path: 'note.txt' });
    expect(r.isError).toBe(true);
    expect(r.env.success).toBe(false);
    expect(r.env.error.code).toBe('FILE_NOT_FOUND');
    expect(r.env.error.hint).toContain('notes.txt');
    const e = await call('edit', { path: 'notes.txt', edits: [{ old_text: 'a', new_text: 'b' }] });
    expect(e.isError).toBe(true);
    expect(e.env.error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { matches: 5, lines: [1, 2, 3] } });
    const bad = await call('write', { path: 'x.txt', content: 1 });
    expect(bad.isError).toBe(true);
    expect(bad.env.error.code).toBe('INVALID_ARGUMENT');
  });

  it('an unknown tool is an error result, and the server keeps answering', async () => {
    const r = await call('nope', {});
    expect(r.isError).toBe(true);
    expect(r.env).toMatchObject({ success: false, error: { code: 'INVALID_ARGUMENT', message: "unknown tool 'nope'" } });
    expect(r.env.error.hint).toContain('read_many');
    expect(JSON.parse(r.text)).toEqual(r.env);
    expect((await call('exists', { path: 'notes.txt' })).env.data.exists).toBe(true);
  });
});

describe('nosh mcp with big messages', () => {
  // The SDK's stdio transport closes the session on a message over 10 MB: nosh passes it
  // lines up to 16 MB, and refuses a longer one by itself.
  it('answers an 11 MB call and keeps answering', async () => {
    const r = await call('exec', { command: 'wc -c', stdin: 'a'.repeat(11_000_000) });
    expect(r.env).toMatchObject({ success: true, data: { stdout: '11000000\n' } });
    expect((await call('exists', { path: 'notes.txt' })).env.data.exists).toBe(true);
  }, 30_000);

  it('refuses a line over 16 MB with an error and keeps answering', async () => {
    const { spawn } = await import('node:child_process');
    const p = spawn(process.execPath, [MAIN, 'mcp', '--root', root], { stdio: ['pipe', 'pipe', 'ignore'] });
    const answers: any[] = [];
    let buf = '';
    p.stdout.on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) { answers.push(JSON.parse(buf.slice(0, nl))); buf = buf.slice(nl + 1); }
    });
    const send = (o: unknown) => p.stdin.write(JSON.stringify(o) + '\n');
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'exec', arguments: { command: 'wc -c', stdin: 'a'.repeat(17_000_000) } } });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'exec', arguments: { command: 'echo hi' } } });
    try {
      for (let i = 0; i < 200 && !answers.some((a) => a.id === 3); i++) await new Promise((r) => setTimeout(r, 50));
      expect(answers.find((a) => a.id === null)).toMatchObject({ error: { code: -32600, message: 'message too large' } });
      expect(answers.find((a) => a.id === 3)?.result.structuredContent).toMatchObject({ success: true, data: { stdout: 'hi\n' } });
      expect(p.exitCode).toBe(null);
    } finally {
      p.kill();
    }
  }, 30_000);
});
