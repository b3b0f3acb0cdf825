import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, test } from 'vitest';
import { executeTask } from '../../src/exec/index.js';
import { newTempRegistry, removeTemps } from '../../src/runtime/temps.js';
import { defaultPolicy } from '../../src/vfs/index.js';
import { guardLeaks, makeZone } from '../vfs/fixture.js';

guardLeaks();

describe('Vfs.setTempHook: the temp registry is told of every write temp file', () => {
  test('the hook sees each temp host path (inside the file folder, .nosh-tmp-*), and nothing once removed', () => {
    const z = makeZone();
    fs.mkdirSync(z.at('d'));
    const vfs = z.vfs();
    const seen: string[] = [];
    vfs.setTempHook((host) => seen.push(host));
    vfs.writeFile('d/a.txt', 'a\n');
    expect(seen).toHaveLength(1);
    expect(path.dirname(seen[0]!)).toBe(z.at('d'));
    expect(path.basename(seen[0]!)).toMatch(/^\.nosh-tmp-/);
    vfs.setTempHook(undefined);
    vfs.writeFile('d/b.txt', 'b\n');
    expect(seen).toHaveLength(1);
    expect(fs.readFileSync(z.at('d/b.txt'), 'utf8')).toBe('b\n');
  });

  test('executeTask records the temp files of a task in its registry, so removeTemps can clear what a stopped task left', async () => {
    const z = makeZone();
    const temps = newTempRegistry();
    const res = await executeTask({
      root: z.root, policy: defaultPolicy(), cwd: '/', stdoutFile: '/out.txt', temps,
      stages: [{ argv: ['echo', 'hi'] }],
      limits: { maxOutputBytes: 1_000_000, maxResults: 1000, maxBufferBytes: 1 << 20 },
    });
    expect(res.ok).toBe(true);
    expect(fs.readFileSync(z.at('out.txt'), 'utf8')).toBe('hi\n');
    // The task ended normally: its temp was renamed. Put a file where the recorded temp was,
    // as a worker stopped mid-write would have left it; removeTemps finds it by the record alone.
    const count = new Int32Array(temps, 0, 1)[0];
    expect(count).toBe(1);
    const slot = new Uint8Array(temps, 4, 1024); // the first slot: 2 bytes of length, then the path
    const host = Buffer.from(slot.subarray(2, 2 + (slot[0]! | (slot[1]! << 8)))).toString('utf8');
    expect(path.dirname(host)).toBe(z.root);
    fs.writeFileSync(host, 'left behind');
    removeTemps(temps, [z.root]);
    expect(fs.existsSync(host)).toBe(false);
  });
});
