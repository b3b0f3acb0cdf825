// `nosh mcp` driven by the MCP Inspector's CLI (@modelcontextprotocol/inspector-cli, its
// `--cli` mode, as `npx @modelcontextprotocol/inspector --cli` runs it), a client nosh did not write.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const inspector = path.join(repo, 'node_modules/@modelcontextprotocol/inspector-cli/build/cli.js');
const nosh = path.join(repo, 'dist/src/cli/main.js');

let root: string;
beforeAll(() => {
  root = tempDir();
  fs.writeFileSync(path.join(root, 'a.txt'), 'hello\nworld\n');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** One Inspector CLI run against a fresh `nosh mcp`; its JSON answer. */
function inspect(...args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    // The Inspector finds its own package.json through `../package.json` of the working
    // folder when that exists: test/ has one above it.
    execFile(process.execPath, [inspector, '--cli', process.execPath, nosh, 'mcp', '--root', root, ...args],
      { cwd: path.join(repo, 'test'), timeout: 60_000 }, (err, stdout, stderr) => {
        if (err) return reject(new Error(`${err.message}\n${stderr}`));
        resolve(JSON.parse(stdout));
      });
  });
}

describe('nosh mcp with the MCP Inspector CLI', () => {
  it('lists every tool with its JSON Schema and annotations', async () => {
    const { tools } = await inspect('--method', 'tools/list');
    const byName = new Map(tools.map((t: any) => [t.name, t]));
    for (const name of ['exec', 'read', 'write', 'edit', 'list', 'search']) expect(byName.has(name), name).toBe(true);
    const read = byName.get('read') as any;
    expect(read.inputSchema.properties.path.type).toBe('string');
    expect(read.annotations).toMatchObject({ readOnlyHint: true });
    expect((byName.get('write') as any).annotations).toMatchObject({ readOnlyHint: false });
  }, 60_000);

  it('calls read, write and exec, with structured content', async () => {
    const read = await inspect('--method', 'tools/call', '--tool-name', 'read', '--tool-arg', 'path=a.txt', 'offset=2');
    expect(read.isError).toBe(false);
    expect(read.structuredContent.data).toMatchObject({ content: 'world\n', start_line: 2 });
    const write = await inspect('--method', 'tools/call', '--tool-name', 'write', '--tool-arg', 'path=b.txt', 'content=made by the inspector');
    expect(write.isError).toBe(false);
    expect(fs.readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('made by the inspector');
    const exec = await inspect('--method', 'tools/call', '--tool-name', 'exec', '--tool-arg', 'command=wc -l a.txt');
    expect(exec.structuredContent.data).toMatchObject({ exit_code: 0, stdout: '2 a.txt\n' });
  }, 60_000);

  it('a failure is an error result with the envelope, not a protocol error', async () => {
    const res = await inspect('--method', 'tools/call', '--tool-name', 'read', '--tool-arg', 'path=nope.txt');
    expect(res.isError).toBe(true);
    expect(res.structuredContent.error).toMatchObject({ code: 'FILE_NOT_FOUND' });
    expect(res.structuredContent.error.hint).toMatch(/a\.txt/);
  }, 60_000);
});
