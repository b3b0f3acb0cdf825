import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The layer check (`npm run deps`, run by `npm test`) must fail on the imports it exists to
 * stop. Each case builds a small tree shaped like nosh's in a temporary folder and runs
 * dependency-cruiser on it with the repository's own rules.
 */
const repo = path.resolve(import.meta.dirname, '../..');
const depcruise = path.join(repo, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function cruise(files: Record<string, string>): { status: number; out: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nosh-layers-'));
  dirs.push(dir);
  fs.copyFileSync(path.join(repo, '.dependency-cruiser.cjs'), path.join(dir, '.dependency-cruiser.cjs'));
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  try {
    const roots = ['src', 'commands'].filter((d) => fs.existsSync(path.join(dir, d)));
    const out = execFileSync(process.execPath, [depcruise, ...roots, '--config', '.dependency-cruiser.cjs'], { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
    return { status: 0, out };
  } catch (e) {
    const err = e as { status: number; stdout: string; stderr: string };
    return { status: err.status, out: err.stdout + err.stderr };
  }
}

describe('the layer rules', () => {
  it('pass imports that run downward', () => {
    const r = cruise({
      'src/api/engine.ts': "import { f } from '../vfs/vfs.js';\nexport const g = f;\n",
      'src/vfs/vfs.ts': "import { e } from '../errors.js';\nexport const f = e;\n",
      'src/errors.ts': 'export const e = 1;\n',
      'commands/cat/index.ts': "import { f } from '../../src/vfs/vfs.js';\nexport default f;\n",
    });
    expect(r.out).not.toMatch(/error/);
    expect(r.status).toBe(0);
  });

  // One tree holding one violation of each kind, each named in the report.
  const bad = () => cruise({
    'src/api/engine.ts': 'export const g = 1;\n',
    'src/vfs/vfs.ts': "import { g } from '../api/engine.js';\nexport const f = g;\nexport interface V { a: number }\n",
    'src/runtime/memory.ts': "import type { V } from '../vfs/vfs.js';\nexport const m = (v: V) => v.a;\n",
    'src/parse/a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
    'src/parse/b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
    'commands/grep/scan.ts': 'export const scan = 1;\n',
    'commands/sed/index.ts': "import { scan } from '../grep/scan.js';\nexport default scan;\n",
  });

  it('fail each kind of bad import, and name it', () => {
    const r = bad();
    expect(r.status).not.toBe(0);
    // An import that runs back up (vfs importing the api).
    expect(r.out).toMatch(/layer-vfs: src\/vfs\/vfs\.ts → src\/api\/engine\.ts/);
    // A type-only import that runs back up (the runtime importing vfs).
    expect(r.out).toMatch(/layer-base: src\/runtime\/memory\.ts → src\/vfs\/vfs\.ts/);
    // A cycle inside one layer, of type-only imports.
    expect(r.out).toMatch(/no-circular: src\/parse\/(a|b)\.ts/);
    // A command importing another command's code.
    expect(r.out).toMatch(/command-to-command: commands\/sed\/index\.ts → commands\/grep\/scan\.ts/);
  });
});
