import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { TaskRequest, TaskResponse } from '../exec/task.js';
import type { ZonePolicy } from '../vfs/index.js';
import type { QuotaHandle } from '../zones/quota.js';

/**
 * A lane's mailbox: the request or the reply of the lane's one job, in shared memory.
 *
 * A MessagePort costs 7-11 µs of CPU per message on a small VM (V8's serializer, the port's
 * queue and lock, a wake-up of the receiver's event loop): more than a small command takes.
 * A mailbox message is up to three parts, each text or bytes, written into a
 * SharedArrayBuffer that both sides hold; the lane's counters say when it is there (an
 * Atomics store after the plain writes, an Atomics load before the plain reads). What does
 * not fit, or what JSON cannot carry, still goes on the port, and the header says which way
 * it went.
 */
export const MAILBOX_BYTES = 256 * 1024;

const PARTS = 3;
/** Int32 header: where the message is, then per part its byte length (-1: absent) and whether it is text. */
const WHERE = 0;
const HEAD = 4 * (1 + 2 * PARTS);
const ON_PORT = 0;
const IN_BOX = 1;

export function newMailbox(): SharedArrayBuffer {
  return new SharedArrayBuffer(MAILBOX_BYTES);
}

type Part = string | Uint8Array | undefined;

export class Mailbox {
  private readonly head: Int32Array;
  private readonly bytes: Buffer;

  constructor(sab: SharedArrayBuffer, private readonly port: MessagePort) {
    this.head = new Int32Array(sab, 0, HEAD / 4);
    this.bytes = Buffer.from(sab);
  }

  /**
   * Send a message: the parts `boxed` makes, in the box when they fit; else, or when `boxed`
   * gives null or throws (JSON refuses a BigInt or a cycle), what `whole` gives, on the port.
   */
  send(boxed: () => Part[] | null, whole: () => unknown): void {
    let parts;
    try {
      parts = boxed();
    } catch {
      parts = null;
    }
    if (parts && this.put(parts)) return;
    this.head[WHERE] = ON_PORT;
    this.port.postMessage(whole());
  }

  /** The message sent: `unbox` rebuilds a boxed one from its parts (bytes are copies). */
  receive<T>(unbox: (parts: Part[]) => T): T | undefined {
    if (this.head[WHERE] === IN_BOX) return unbox(this.take());
    return receiveMessageOnPort(this.port)?.message as T | undefined;
  }

  private put(parts: Part[]): boolean {
    let room = this.bytes.length - HEAD;
    for (const p of parts) {
      if (p === undefined) continue;
      // UTF-8 takes at most 3 bytes per UTF-16 unit: text is measured only when that could overflow.
      room -= typeof p !== 'string' ? p.length : p.length * 3 <= room ? p.length * 3 : Buffer.byteLength(p);
      if (room < 0) return false;
    }
    let at = HEAD;
    for (let i = 0; i < PARTS; i++) {
      const p = parts[i];
      let n = -1;
      if (typeof p === 'string') n = this.bytes.write(p, at);
      else if (p !== undefined) (this.bytes.set(p, at), n = p.length);
      this.head[1 + 2 * i] = n;
      this.head[2 + 2 * i] = typeof p === 'string' ? 1 : 0;
      if (n > 0) at += n;
    }
    this.head[WHERE] = IN_BOX;
    return true;
  }

  /** The boxed parts; bytes are copied out, since the box is written again. */
  private take(): Part[] {
    const parts: Part[] = [];
    let at = HEAD;
    for (let i = 0; i < PARTS; i++) {
      const n = this.head[1 + 2 * i]!;
      if (n < 0) parts.push(undefined);
      else parts.push(this.head[2 + 2 * i] ? this.bytes.toString('utf8', at, at + n) : Buffer.from(this.bytes.subarray(at, at + n)));
      if (n > 0) at += n;
    }
    return parts;
  }
}

/*
 * What crosses a lane. A request is its JSON, the zone policy's JSON apart (the same few
 * policies come again and again: the main thread keeps the text of each frozen one, a worker
 * the parsed object for each text) and stdin's bytes. A reply is its JSON, stdout and stderr.
 *
 * A quota counter is a SharedArrayBuffer, which JSON cannot carry: each gets a number, a lane
 * learns it the first time a request using it goes by port, and boxed requests name it by
 * that number.
 */

const policyTexts = new WeakMap<ZonePolicy, string>();

function policyText(policy: ZonePolicy): string {
  let text = policyTexts.get(policy);
  if (text === undefined) {
    text = JSON.stringify(policy);
    // Only a frozen policy (its lists too) keeps the text it had; the workspace freezes the ones it shares.
    if (Object.isFrozen(policy) && Object.values(policy).every((v) => !Array.isArray(v) || Object.isFrozen(v))) policyTexts.set(policy, text);
  }
  return text;
}

const sabNumbers = new WeakMap<SharedArrayBuffer, number>();
let lastSabNumber = 0;

function sabNumber(sab: SharedArrayBuffer): number {
  let n = sabNumbers.get(sab);
  if (n === undefined) sabNumbers.set(sab, n = ++lastSabNumber);
  return n;
}

type WireQuota = Omit<QuotaHandle, 'sab'> & { sab?: SharedArrayBuffer; sabNumber: number };

function wireQuota(q: QuotaHandle | undefined, withSab: boolean): (WireQuota & Record<keyof QuotaHandle, unknown>) | undefined {
  if (!q) return undefined;
  return { sab: withSab ? q.sab : undefined, index: q.index, limit: q.limit, name: q.name, sabNumber: sabNumber(q.sab) };
}

/**
 * A task as sent, every field named (the mapped type makes a new TaskRequest field a compile
 * error here until it is sent too). stdin, temps and memoryMb travel apart or with the lane.
 */
function wireTask(t: TaskRequest, withSabs: boolean, policy: ZonePolicy | undefined): { [K in keyof Omit<Required<TaskRequest>, 'stdin' | 'temps' | 'memoryMb'>]: unknown } {
  return {
    root: t.root, policy, quota: wireQuota(t.quota, withSabs), cwd: t.cwd, stages: t.stages,
    peer: t.peer && { root: t.peer.root, policy: t.peer.policy, quota: wireQuota(t.peer.quota, withSabs) },
    tool: t.tool, limits: t.limits, stdoutFile: t.stdoutFile,
  };
}

/** Main thread: post a task on a lane. `known`: the quota counters this lane has been sent. */
export function sendTask(box: Mailbox, task: TaskRequest, known: Set<number>): void {
  const sabs = [task.quota?.sab, task.peer?.quota?.sab].filter((s): s is SharedArrayBuffer => s !== undefined).map(sabNumber);
  box.send(
    () => sabs.every((n) => known.has(n)) ? [JSON.stringify(wireTask(task, false, undefined)), policyText(task.policy), task.stdin] : null,
    () => {
      for (const n of sabs) known.add(n);
      return { ...wireTask(task, true, task.policy), stdin: task.stdin };
    },
  );
}

/** Parsed policies by their text, frozen since tasks share them; bounded. */
const policies = new Map<string, ZonePolicy>();

function policyOf(text: string): ZonePolicy {
  let p = policies.get(text);
  if (!p) {
    p = JSON.parse(text) as ZonePolicy;
    for (const v of Object.values(p)) if (Array.isArray(v)) Object.freeze(v);
    Object.freeze(p);
    if (policies.size >= 64) policies.clear();
    policies.set(text, p);
  }
  return p;
}

/** Worker side: the task in the box or on the port. `sabs`: the quota counters this lane has been sent. */
export function receiveTask(box: Mailbox, sabs: Map<number, SharedArrayBuffer>): TaskRequest {
  const task = box.receive(([json, policy, stdin]) => {
    const t = JSON.parse(json as string) as TaskRequest;
    t.policy = policyOf(policy as string);
    if (stdin) t.stdin = stdin as Uint8Array;
    return t;
  });
  if (!task) throw new Error('lane: a request was counted but not sent');
  for (const q of [task.quota, task.peer?.quota] as (WireQuota | undefined)[]) {
    if (!q) continue;
    if (q.sab) sabs.set(q.sabNumber, q.sab);
    else q.sab = sabs.get(q.sabNumber);
    if (!q.sab) throw new Error('lane: a quota counter this lane was never sent');
  }
  return task;
}

/** Worker side: post the reply. */
export function sendReply(box: Mailbox, reply: TaskResponse): void {
  box.send(() => {
    if (!reply.ok || !reply.result) return [JSON.stringify(reply)];
    const r = reply.result;
    const rest: { [K in keyof Omit<typeof r, 'stdout' | 'stderr'>]-?: unknown } = {
      exitCode: r.exitCode, truncated: r.truncated, stdoutBytes: r.stdoutBytes, changes: r.changes,
    };
    return [JSON.stringify({ ok: true, result: rest }), r.stdout, r.stderr];
  }, () => reply);
}

/** Main thread: the reply to the lane's job. */
export function receiveReply(box: Mailbox): TaskResponse | undefined {
  return box.receive(([json, stdout, stderr]) => {
    const r = JSON.parse(json as string) as TaskResponse;
    if (r.ok && r.result) {
      r.result.stdout = (stdout as Uint8Array | undefined) ?? new Uint8Array(0);
      r.result.stderr = (stderr as Uint8Array | undefined) ?? new Uint8Array(0);
    }
    return r;
  });
}
