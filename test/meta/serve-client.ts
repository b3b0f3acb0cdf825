import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

/** A `nosh serve` process spoken to over its pipes; answers matched to requests by id (they may come out of order). */
export class Serve {
  readonly proc: ChildProcessWithoutNullStreams;
  private buf = '';
  private next = 1;
  private readonly waiting = new Map<number, (msg: any) => void>();
  stderr = '';

  constructor(args: string[]) {
    this.proc = spawn(process.execPath, [bin, 'serve', ...args], { stdio: 'pipe' });
    this.proc.stdout.setEncoding('utf8');
    this.proc.stderr.on('data', (d) => (this.stderr += d));
    this.proc.stdout.on('data', (d: string) => {
      this.buf += d;
      for (let i = this.buf.indexOf('\n'); i >= 0; i = this.buf.indexOf('\n')) {
        const msg = JSON.parse(this.buf.slice(0, i));
        this.buf = this.buf.slice(i + 1);
        this.waiting.get(msg.id)?.(msg);
        this.waiting.delete(msg.id);
      }
    });
  }

  request(method: string, params: unknown): Promise<any> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }

  /** A tool's envelope (the JSON-RPC result); a busy server (its queue full) is asked again. */
  async call(method: string, params: unknown): Promise<any> {
    let msg = await this.request(method, params);
    for (let i = 0; msg.error?.data?.code === 'BUSY' && i < 200; i++) {
      await new Promise((r) => setTimeout(r, 20));
      msg = await this.request(method, params);
    }
    if (msg.error) throw new Error(`${method}: ${JSON.stringify(msg.error)} ${this.stderr}`);
    return msg.result;
  }

  async close(): Promise<void> {
    const exited = new Promise((r) => this.proc.once('exit', r));
    this.proc.stdin.end();
    const t = setTimeout(() => this.proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(t);
  }
}
