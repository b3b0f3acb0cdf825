/**
 * Issue 17 §4: temp files of writes killed mid-way (kill -9 runs no cleanup) are removed at
 * start and by maintenance as soon as their owning process is gone, and never count against
 * a quota; the temps of a live process stay.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { createNosh } from '../../src/index.js';
import { processStart } from '../../src/vfs/temp-name.js';
import { chargeOf } from '../../src/zones/quota.js';
import { tempDir } from '../helpers.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const temps = (dir: string) => fs.readdirSync(dir).filter((n) => n.startsWith('.nosh-tmp-')).sort();

function storageOf(base: string): string {
  const dir = path.join(base, 'users', 'default', 'Storage');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

async function quotaUsed(nosh: Awaited<ReturnType<typeof createNosh>>): Promise<number> {
  const s = await nosh.call('stats', {});
  expect(s.success).toBe(true);
  return (s as { data: { quotas: Record<string, { used: number }> } }).data.quotas['user:default']!.used;
}

describe('temp files of gone processes', () => {
  it('are removed at start; those of a live process and fresh old-style ones stay; the quota counts none', async () => {
    const base = tempDir('nosh-temps-');
    dirs.push(base);
    const dir = storageOf(base);
    fs.writeFileSync(path.join(dir, 'real.txt'), 'x'.repeat(1000));
    const charge = chargeOf(fs.statSync(path.join(dir, 'real.txt'))); // what the quota counts for it (allocated size)
    const dead = spawnSync('true').pid!; // exited: its pid names no process (or a later one, with another start time)
    const me = `${process.pid}-${processStart('self')}`;
    const big = Buffer.alloc(200_000, 1);
    fs.writeFileSync(path.join(dir, `.nosh-tmp-${dead}-12345-0123456789ab`), big);
    fs.mkdirSync(path.join(dir, 'sub'));
    fs.writeFileSync(path.join(dir, 'sub', `.nosh-tmp-${dead}-0-aaaaaaaaaaaa`), big);
    // This process's pid with another start time: a pid reused after the owner died.
    fs.writeFileSync(path.join(dir, `.nosh-tmp-${process.pid}-1-bbbbbbbbbbbb`), big);
    fs.writeFileSync(path.join(dir, `.nosh-tmp-${me}-cccccccccccc`), big); // a write under way here
    fs.writeFileSync(path.join(dir, '.nosh-tmp-dddddddddddd'), big); // older nosh, fresh: kept an hour
    const nosh = await createNosh({ base, threads: 1 });
    try {
      expect(temps(dir)).toEqual(['.nosh-tmp-dddddddddddd', `.nosh-tmp-${me}-cccccccccccc`].sort());
      expect(temps(path.join(dir, 'sub'))).toEqual([]);
      expect(await quotaUsed(nosh)).toBe(charge);
      const stats = await nosh.call('stats', {});
      expect((stats as { data: { zones: Record<string, { files: number; bytes: number }> } }).data.zones.storage).toEqual({ files: 1, bytes: charge });
      // maintenance: a temp planted later by a process now gone goes at once (not after an hour).
      fs.writeFileSync(path.join(dir, `.nosh-tmp-${dead}-777-eeeeeeeeeeee`), big);
      const m = await nosh.call('maintenance', { rescan: true });
      expect(m.success && (m.data as { stale_temp_files: number }).stale_temp_files).toBe(1);
      expect((m as { data: { rescan: Record<string, { disk: number }> } }).data.rescan['user:default']!.disk).toBe(charge);
      expect(temps(dir)).toEqual(['.nosh-tmp-dddddddddddd', `.nosh-tmp-${me}-cccccccccccc`].sort());
    } finally {
      await nosh.close();
    }
  });

  it('a nosh killed with -9 mid-write leaves a temp file; the next start removes it', async () => {
    const base = tempDir('nosh-temps-');
    dirs.push(base);
    const dir = storageOf(base);
    // 1 GB sparse: tee is still writing its temp file when the process is killed.
    const fd = fs.openSync(path.join(dir, 'sparse.bin'), 'w');
    fs.ftruncateSync(fd, 1024 ** 3);
    fs.closeSync(fd);
    const index = path.resolve('dist/src/index.js');
    const script = `
      const { createNosh } = await import(${JSON.stringify(index)});
      const nosh = await createNosh({ base: ${JSON.stringify(base)}, threads: 1, quotas: { userMb: 100000 }, limits: { maxFileSize: 4 * 1024 ** 3 } });
      await nosh.exec({ command: 'cat sparse.bin | tee out.bin' }, { timeoutMs: 300000 });
      process.stdout.write('finished');`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const exited = new Promise((r) => child.on('exit', r));
    // Wait until the write's temp file exists and has bytes, then kill -9.
    let left: string[] = [];
    for (let i = 0; i < 3000 && left.length === 0 && child.exitCode === null; i++) {
      await new Promise((r) => setTimeout(r, 20));
      left = temps(dir).filter((n) => fs.statSync(path.join(dir, n)).size > 0);
    }
    child.kill('SIGKILL');
    await exited;
    expect(out).toBe('');
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(new RegExp(`^\\.nosh-tmp-${child.pid}-\\d+-[0-9a-f]+$`));
    expect(temps(dir)).toEqual(left);
    expect(fs.existsSync(path.join(dir, 'out.bin'))).toBe(false);
    const nosh = await createNosh({ base, threads: 1 });
    try {
      expect(temps(dir)).toEqual([]);
      expect(await quotaUsed(nosh)).toBe(1024 ** 3);
    } finally {
      await nosh.close();
    }
  }, 120_000);
});
