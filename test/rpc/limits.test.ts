// Requests and batches whose answer the main thread could not build in one piece: they must be
// answered (with errors where needed), and the server must keep answering.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { serveRpc } from '../../src/rpc/server.js';
import { tempDir } from '../helpers.js';

let root: string;
let nosh: Nosh;

beforeAll(async () => {
  root = tempDir();
  // 5 MB of \x01: each byte is 6 characters of JSON (\u0001), so one read's answer is 30 MB.
  fs.writeFileSync(path.join(root, 'ctl.txt'), Buffer.alloc(5_000_000, 1));
  fs.writeFileSync(path.join(root, 'a.txt'), 'alpha\n');
  nosh = await createNosh({ root, threads: 1 });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** Serve the lines, end the input, and return the answer lines once every call answered. */
async function serve(lines: string[], maxBatchChars?: number): Promise<string[]> {
  const input = new PassThrough();
  const output = new PassThrough();
  const chunks: Buffer[] = [];
  output.on('data', (c: Buffer) => chunks.push(c));
  const done = serveRpc(nosh, input, output, { maxBatchChars });
  for (const l of lines) input.write(l + '\n');
  input.end();
  await done;
  return Buffer.concat(chunks).toString('utf8').split('\n').filter((l) => l !== '');
}

const read = (id: number, p: string) => ({ jsonrpc: '2.0', id, method: 'read', params: { path: p, max_bytes: 5_000_000 } });

describe('batch answers', () => {
  // The envelopes were all held, then serialized as one string: past V8's longest string
  // (18 answers of 30 MB) JSON.stringify threw and the batch was never answered.
  it('a batch whose answers pass the cap is answered: the first ones whole, the rest as errors with their ids', async () => {
    const batch = Array.from({ length: 18 }, (_, i) => read(i, 'ctl.txt'));
    const [line, ...rest] = await serve([JSON.stringify(batch)]);
    expect(rest).toEqual([]);
    expect(line!.length).toBeLessThan(70 * 1024 * 1024);
    const answers = JSON.parse(line!) as any[];
    expect(answers.map((a) => a.id).sort((a, b) => a - b)).toEqual(batch.map((b) => b.id));
    const whole = answers.filter((a) => a.result?.success);
    expect(whole.length).toBeGreaterThanOrEqual(1);
    expect(whole[0].result.data.content.length).toBe(5_000_000);
    const dropped = answers.filter((a) => a.error);
    expect(dropped.length).toBe(18 - whole.length);
    expect(dropped[0].error).toMatchObject({ code: -32603, message: expect.stringMatching(/batch answer too large/) });
  }, 60_000);

  it('the cap is an option; answers in request order, under it untouched', async () => {
    const batch = [read(1, 'a.txt'), read(2, 'ctl.txt'), read(3, 'a.txt')];
    const [line] = await serve([JSON.stringify(batch)], 1000);
    const answers = JSON.parse(line!) as any[];
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3]);
    expect(answers[0].result.data.content).toBe('alpha\n');
    expect(answers[1].error.data.max_chars).toBe(1000);
    expect(answers[2].result.data.content).toBe('alpha\n');
  }, 60_000);
});
