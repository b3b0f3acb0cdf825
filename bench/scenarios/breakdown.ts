/**
 * Where the time of one `nosh.exec({command: 'cat small.txt'})` goes: the piscina round trip
 * alone (a worker that does nothing), the main-thread work before it (parse, validate, build
 * the task), the command itself run in the main thread (executeTask, no pool), the lane's
 * hand-off without its thread (the mailbox), and the whole call. Engine internals are loaded dynamically so this file keeps compiling when they move.
 */
import { Piscina } from 'piscina';
import { P } from '../data.js';
import { measure, type MeasureOptions } from '../measure.js';
import { NoshLib } from '../systems.js';
import type { Cell, Ctx, Scenario } from './common.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const src = (p: string) => new URL(`../../src/${p}`, import.meta.url).href;

async function phase(label: string, fn: () => Promise<unknown>, o: MeasureOptions, ctx: Ctx): Promise<Cell> {
  ctx.progress(`breakdown: ${label}`);
  try {
    await fn();
    return { system: label, label, status: 'ok', stats: await measure(fn, o) };
  } catch (e) {
    return { system: label, label, status: 'error', note: `error: ${(e as Error).message}` };
  }
}

/** The CPU of a lane's hand-off (src/pool/mailbox.ts) without the thread: both ends in this thread. */
async function mailboxTrip(task: any): Promise<() => Promise<void>> {
  const { MessageChannel } = await import('node:worker_threads');
  const mb = await import(src('pool/mailbox.js')) as any;
  const { port1, port2 } = new MessageChannel();
  port1.unref();
  port2.unref();
  const memory = mb.newMailbox();
  const main = new mb.Mailbox(memory, port1);
  const worker = new mb.Mailbox(memory, port2);
  const known = new Set<number>();
  const counters = new Map<number, SharedArrayBuffer>();
  const reply = { ok: true, result: { exitCode: 0, stdout: new Uint8Array(1024), stderr: new Uint8Array(0), truncated: false, stdoutBytes: 1024, changes: [] } };
  return async () => {
    mb.sendTask(main, task, known);
    mb.receiveTask(worker, counters);
    mb.sendReply(worker, reply);
    mb.receiveReply(main);
  };
}

export const breakdownScenarios: Scenario[] = [{
  id: 'breakdown/cat',
  group: 'breakdown',
  title: "where one nosh.exec('cat small.txt') spends its time",
  async run(ctx) {
    const o = ctx.profile.lib;
    const cells: Cell[] = [];
    const root = ctx.data.root;
    const nosh = (await ctx.system('nosh')) as NoshLib;
    const small = `${P.lat}/${P.small}`;

    const pool = new Piscina({
      filename: new URL('../echo-worker.js', import.meta.url).href, minThreads: nosh.nosh.config.threads ?? 2, maxThreads: nosh.nosh.config.threads ?? 2,
      idleTimeout: 60_000, resourceLimits: { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 64 },
    });
    try {
      cells.push(await phase('piscina round trip, empty task (no nosh code)', () => pool.run({}), o, ctx));
      const reply = new Uint8Array(1024);
      cells.push(await phase('piscina round trip, 1 KiB reply', () => pool.run({ reply }), o, ctx));
    } finally {
      await pool.destroy();
    }

    try {
      const api = await import(src('api/exec.js')) as any;
      const vfs = await import(src('vfs/index.js')) as any;
      const exec = await import(src('exec/index.js')) as any;
      const cfg = nosh.nosh.config as any;
      const policy = vfs.defaultPolicy({ maxFileSize: cfg.limits.maxFileSize });
      const build = () => {
        const req = api.ExecRequestSchema.parse({ command: `cat ${small}` });
        const opts = api.ExecOptionsSchema.parse({});
        return api.buildTask(req, opts, root, policy, cfg.limits);
      };
      cells.push(await phase('main thread: parse + validate + build task', async () => build(), o, ctx));
      const task = build();
      cells.push(await phase('command alone: executeTask in main thread (no pool)', () => exec.executeTask(task), o, ctx));
      cells.push(await phase('structuredClone of the task (what a port message serialises)', async () => structuredClone(task), o, ctx));
      cells.push(await phase('lane mailbox: the task and a 1 KiB reply in and out, one thread', await mailboxTrip(task), o, ctx));
    } catch (e) {
      cells.push({ system: 'internals', label: 'engine internals', status: 'error', note: `error: ${(e as Error).message}` });
    }
    cells.push(await phase("nosh.exec({command: 'true'})", () => nosh.nosh.exec({ command: 'true' }), o, ctx));
    cells.push(await phase(`nosh.exec({command: 'cat ${small}'})`, () => nosh.nosh.exec({ command: `cat ${small}` }), o, ctx));
    cells.push(await phase(`nosh.exec({cmd: 'cat', args: ['${small}']}) (argv form)`, () => nosh.nosh.exec({ cmd: 'cat', args: [small] }), o, ctx));
    return { id: 'breakdown/cat', group: 'breakdown', title: this.title, better: 'lower', cells };
  },
}];
