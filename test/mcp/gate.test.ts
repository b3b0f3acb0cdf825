// `nosh mcp` stops reading its client while MAX_CALLS tool calls are being answered (the SDK
// starts every request as soon as it reads it; each may carry 16 MB).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Nosh } from '../../src/index.js';
import { CallGate, createMcpServer } from '../../src/mcp/server.js';

describe('CallGate', () => {
  it('says full at the limit of running tool calls and not full once one ends', async () => {
    const answers: (() => void)[] = [];
    const nosh = {
      methods: () => [{ name: 'read', description: 'r', input: z.object({}).passthrough(), annotations: {} }],
      call: () => new Promise((resolve) => answers.push(() => resolve({ success: true, data: {}, message: 'ok' }))),
    } as unknown as Nosh;
    const states: boolean[] = [];
    const server = createMcpServer(nosh, '0', new CallGate(3, (full) => states.push(full)));
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const client = new Client({ name: 't', version: '0' });
    await client.connect(b);
    const calls = Array.from({ length: 5 }, () => client.callTool({ name: 'read', arguments: {} }));
    await expect.poll(() => answers.length).toBe(5);
    expect(states).toEqual([true]); // the SDK had read all five: two more started past the limit
    answers[0]!();
    answers[1]!();
    await new Promise((r) => setTimeout(r, 10));
    expect(states).toEqual([true]); // three still running
    answers[2]!();
    await expect.poll(() => [...states]).toEqual([true, false]);
    for (const f of answers.slice(3)) f();
    expect((await Promise.all(calls)).every((r) => r.isError === false)).toBe(true);
    await client.close();
  });
});
