// The zone the archive attack suites share: a zone folder and an `outside` folder beside it
// (what no entry may reach), one nosh on the zone, and a shell that fails on an error envelope.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

export function archiveZone(prefix: string) {
  const base = tempDir(prefix);
  const root = path.join(base, 'zone');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
  let nosh: Nosh;
  beforeAll(async () => {
    nosh = await createNosh({ root, threads: 1, limits: { maxFileSize: 1_000_000 } });
  });
  afterAll(async () => {
    await nosh.close();
    fs.rmSync(base, { recursive: true, force: true });
  });
  return {
    base, root, outside,
    nosh: () => nosh,
    async sh(command: string): Promise<{ exit: number; stdout: string; stderr: string }> {
      const r = await nosh.exec({ command }, { maxOutputBytes: 5_000_000 });
      if (!r.success) throw new Error(`${r.error.code}: ${r.error.message}`);
      return { exit: r.data.exit_code, stdout: r.data.stdout, stderr: r.data.stderr };
    },
    /** An empty folder of that name in the zone (emptied if it was there). */
    fresh(name: string): string {
      const d = path.join(root, name);
      fs.rmSync(d, { recursive: true, force: true });
      fs.mkdirSync(d);
      return d;
    },
  };
}
