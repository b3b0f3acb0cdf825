import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn, execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';

const bin = path.resolve('dist/src/cli/main.js');

function headFile(gitdir: string, file: string): string {
  try {
    return execFileSync('git', ['--git-dir', gitdir, 'show', `HEAD:${file}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 26 });
  } catch {
    return '';
  }
}

/** Serve one base; `send` writes a JSON-RPC request; `exit` resolves when the process is gone. */
function serve(base: string) {
  const proc = spawn(process.execPath, [bin, 'serve', '--base', base, '--user', 'kim'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout.on('data', (d) => { out += d; });
  const exit = new Promise<void>((r) => proc.on('exit', () => r()));
  let id = 0;
  return {
    proc, exit,
    send(method: string, params: object) { proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) + '\n'); },
    answers: () => out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l)),
  };
}

describe('a kill -9 of nosh serve between a write and its commit', () => {
  it('loses no change: the next start commits it', async () => {
    let caughtBetween = 0;
    for (let attempt = 0; attempt < 3 && caughtBetween === 0; attempt++) {
      const base = tempDir('nosh-ver-kill-');
      const docs = path.join(base, 'users', 'kim', 'Documents');
      fs.mkdirSync(docs, { recursive: true });
      // a big file: its commit (hashing, deflating) takes long enough to be killed in
      const lines: string[] = [];
      for (let i = 0; i < 150_000; i++) lines.push(`${i} ${(i * 2654435761 % 4294967296).toString(36)} ${Math.sin(i).toFixed(12)}`);
      fs.writeFileSync(path.join(docs, 'big.txt'), lines.join('\n') + '\n');
      const gitdir = path.join(base, 'versions', 'users', 'kim', 'Documents.git');

      const s1 = serve(base);
      s1.send('write', { zone: 'documents', path: 'small.txt', content: 'first\n' });
      while (headFile(gitdir, 'small.txt') !== 'first\n') await new Promise((r) => setTimeout(r, 20));
      s1.send('exec', { zone: 'documents', command: 'sed -i s/^/X/ big.txt' });
      // the worker has renamed the new big.txt into place: kill before the main thread commits it
      for (;;) {
        const fd = fs.openSync(path.join(docs, 'big.txt'), 'r');
        const b = Buffer.alloc(1);
        fs.readSync(fd, b, 0, 1, 0);
        fs.closeSync(fd);
        if (b.toString() === 'X') break;
        await new Promise((r) => setImmediate(r));
      }
      s1.proc.kill('SIGKILL');
      await s1.exit;
      if (!headFile(gitdir, 'big.txt').startsWith('X')) caughtBetween++;
      expect(fs.readFileSync(path.join(docs, 'big.txt'), 'utf8').startsWith('X0 ')).toBe(true);

      const s2 = serve(base);
      s2.send('write', { zone: 'documents', path: 'after.txt', content: 'after\n' });
      while (s2.answers().length < 1) await new Promise((r) => setTimeout(r, 20));
      s2.proc.stdin.end();
      await s2.exit;
      expect(s2.answers()[0].result.success).toBe(true);
      expect(headFile(gitdir, 'big.txt')).toBe(fs.readFileSync(path.join(docs, 'big.txt'), 'utf8'));
      expect(headFile(gitdir, 'after.txt')).toBe('after\n');
      expect(execFileSync('git', ['--git-dir', gitdir, 'fsck', '--strict'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })).toBe('');
      fs.rmSync(base, { recursive: true, force: true });
    }
    expect(caughtBetween).toBeGreaterThan(0);
  }, 120_000);
});
