// .import's unquoted fields are cut in one piece (not byte by byte): the rows it makes agree with
// the real sqlite3 shell's on the edge cases of that path (BOM, CRLF, empty fields, a last line
// without newline, UTF-8, short and long rows, quoted fields mixed in).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

let root: string;
let nosh: Nosh;

const FILES: Record<string, string> = {
  'bom.csv': '\xef\xbb\xbfa,b\n1,2\n',
  'crlf.csv': 'a,b,c\r\n1,,3\r\n,\r\nx,"q,\r\n",z\r\n',
  'nonl.csv': 'a,b\n1,2\n3,4',
  'utf8.csv': 'naïve,日本\nçà,é\n,\n',
  'ragged.csv': 'a,b,c\n1\n1,2,3,4,5\n1,2\n"x""y",,\n',
  'only-bom.csv': '\xef\xbb\xbf',
};

beforeAll(async () => {
  root = tempDir('nosh-sqlite-import-');
  for (const [name, text] of Object.entries(FILES)) {
    // the BOM files are bytes (latin1 spells them); the others are UTF-8 text
    fs.writeFileSync(path.join(root, name), Buffer.from(text, /[\u0100-\uffff]/.test(text) ? 'utf8' : 'latin1'));
  }
  nosh = await createNosh({ root, threads: 1 });
});
afterAll(async () => {
  await nosh?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

// the real sqlite3 shell gives the expected bytes (.ci/run installs it when missing): no skip
describe('.import against the sqlite3 shell', () => {
  for (const name of Object.keys(FILES)) {
    it(name, async () => {
      const args = [':memory:', `.import --csv ${name} t`, '.mode quote', 'select * from t'];
      let want: string;
      try {
        want = execFileSync('sqlite3', args, { cwd: root, env: { PATH: process.env.PATH, LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
      } catch (e) {
        want = String((e as { stdout?: Buffer }).stdout ?? '');
      }
      const r = await nosh.exec({ cmd: 'sqlite3', args });
      expect(r.success ? r.data.stdout : r.error.code).toBe(want);
    });
  }
});
