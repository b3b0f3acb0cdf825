/**
 * Child process for the memory scenario: `node --expose-gc dist/bench/memprobe.js SYSTEM ROOT`.
 * Creates one system, answers one small call, reports resident memory idle, then runs the
 * big-file commands and reports it again (and the peak). One JSON line on stdout.
 */
import { P } from './data.js';
import { sleep } from './measure.js';
import { JustBashSystem, NoshLib, type Cmd, type System } from './systems.js';

export const BIG_COMMANDS: Cmd[] = [
  { argv: ['wc', '-l', P.big.slice(1)], cwd: '/' },
  { argv: ['grep', '-c', 'needle', P.big.slice(1)], cwd: '/' },
  { argv: ['sed', 's/a/b/g', P.big.slice(1)], cwd: '/', outFile: `${P.out}/mem-sed.txt` },
  { argv: ['sort', P.big.slice(1)], cwd: '/', outFile: `${P.out}/mem-sort.txt` },
];

async function settle(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    (globalThis as { gc?: () => void }).gc?.();
    await sleep(200);
  }
  return process.memoryUsage().rss;
}

async function main(): Promise<void> {
  const [id, root, mode] = process.argv.slice(2);
  // --quick leaves sed out: just-bash's sed takes seconds per MB.
  const commands = mode === 'quick' ? BIG_COMMANDS.filter((c) => c.argv[0] !== 'sed') : BIG_COMMANDS;
  let sys: System;
  if (id === 'nosh') sys = await NoshLib.create(root!);
  else if (id === 'jb-mem') sys = JustBashSystem.memory(root!, ['/lat', '/big']);
  else if (id === 'jb-disk') sys = JustBashSystem.disk(root!);
  else throw new Error(`unknown system ${id}`);
  if (sys.unavailable) {
    process.stdout.write(JSON.stringify({ unavailable: sys.unavailable }) + '\n');
    return;
  }
  await sys.run({ argv: ['cat', P.small], cwd: P.lat });
  const idle = await settle();
  const missing: string[] = [];
  for (const c of commands) {
    const r = await sys.run(c).catch(() => ({ missing: false, exitCode: -1, stdout: '' }));
    if (r.missing) missing.push(c.argv[0]!);
  }
  const after = await settle();
  const peak = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(JSON.stringify({ idle, after, peak, missing }) + '\n');
  await sys.close();
}

main().catch((e) => {
  process.stdout.write(JSON.stringify({ error: String(e instanceof Error ? e.message : e) }) + '\n');
  process.exitCode = 1;
});
