import * as fs from 'node:fs';
import * as path from 'node:path';
import { createNosh, type Nosh, type NoshConfig } from '../../src/index.js';
import { tempDir } from '../helpers.js';

export interface Ws {
  nosh: Nosh;
  root: string;
  call(method: string, params: Record<string, unknown>): Promise<any>;
  put(rel: string, content: string | Buffer): void;
  get(rel: string): string;
  close(): Promise<void>;
}

/** A fresh zone folder and a nosh on it (one worker). */
export async function workspace(config: NoshConfig = {}): Promise<Ws> {
  const root = tempDir('nosh-tools-');
  const nosh = await createNosh({ root, threads: 1, ...config });
  return {
    nosh, root,
    call: (method, params) => nosh.call(method, params) as Promise<any>,
    put(rel, content) {
      const p = path.join(root, rel);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, content);
    },
    get: (rel) => fs.readFileSync(path.join(root, rel), 'latin1'),
    async close() {
      await nosh.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
