import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { TaskRequest, TaskResponse, TaskResult, ToolTaskResult } from '../exec/task.js';
import type { ZonePolicy } from '../vfs/index.js';
import type { QuotaHandle } from '../vfs/charge.js';

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
 * What crosses a lane. A request is its JSON, the zone policy's JSON when the lane needs it,
 * and stdin's bytes. A reply is its JSON, stdout and stderr.
 *
 * What comes again and again is sent to a lane once and then named by a number: a shared
 * policy (frozen with its lists, as the workspace makes them; its text is kept too) and a
 * quota counter (a SharedArrayBuffer, which JSON cannot carry: it goes by port the first
 * time). A policy that is not frozen may change between calls: its text goes every time.
 */

const numbers = new WeakMap<object, number>();
let lastNumber = 0;

function numberOf(o: object): number {
  let n = numbers.get(o);
  if (n === undefined) numbers.set(o, n = ++lastNumber);
  return n;
}

const policyTexts = new WeakMap<ZonePolicy, string>();

/** Policies found shared: a frozen object with frozen lists cannot change, so the answer is kept. */
const sharedPolicies = new WeakSet<ZonePolicy>();

function isShared(policy: ZonePolicy): boolean {
  if (sharedPolicies.has(policy)) return true;
  const shared = Object.isFrozen(policy) && Object.values(policy).every((v) => !Array.isArray(v) || Object.isFrozen(v));
  if (shared) sharedPolicies.add(policy);
  return shared;
}

function policyText(policy: ZonePolicy, shared: boolean): string {
  let text = policyTexts.get(policy);
  if (text === undefined) {
    text = JSON.stringify(policy);
    if (shared) policyTexts.set(policy, text);
  }
  return text;
}

type WireQuota = Omit<QuotaHandle, 'sab'> & { sab?: SharedArrayBuffer; sabNumber: number };

function wireQuota(q: QuotaHandle | undefined, withSab: boolean): (WireQuota & Record<keyof QuotaHandle, unknown>) | undefined {
  if (!q) return undefined;
  return { sab: withSab ? q.sab : undefined, index: q.index, limit: q.limit, maxFiles: q.maxFiles, name: q.name, sabNumber: numberOf(q.sab) };
}

/**
 * A task as sent, every field named (the mapped type makes a new TaskRequest field a compile
 * error here until it is sent too). stdin, temps and memoryMb travel apart or with the lane.
 */
function wireTask(t: TaskRequest, withSabs: boolean, policy: ZonePolicy | undefined, policyNumber: number) {
  const wire: { [K in keyof Omit<Required<TaskRequest>, 'stdin' | 'temps' | 'memoryMb'>]: unknown } & { policyNumber: number } = {
    root: t.root, policy, policyNumber, quota: wireQuota(t.quota, withSabs), cwd: t.cwd, stages: t.stages,
    peer: t.peer && { root: t.peer.root, policy: t.peer.policy, quota: wireQuota(t.peer.quota, withSabs), guard: t.peer.guard },
    guard: t.guard, tool: t.tool, limits: t.limits, stdoutFile: t.stdoutFile, user: t.user, git: t.git,
  };
  return wire;
}

/** Main thread: post a task on a lane. `known`: the numbers of what this lane has been sent (see above). */
export function sendTask(box: Mailbox, task: TaskRequest, known: Set<number>): void {
  const quota = task.quota?.sab;
  const peerQuota = task.peer?.quota?.sab;
  const shared = isShared(task.policy);
  const policyNumber = shared ? numberOf(task.policy) : 0;
  box.send(
    () => {
      if ((quota && !known.has(numberOf(quota))) || (peerQuota && !known.has(numberOf(peerQuota)))) return null;
      const text = policyNumber && known.has(policyNumber) ? undefined : policyText(task.policy, shared);
      if (policyNumber) known.add(policyNumber);
      return [JSON.stringify(wireTask(task, false, undefined, policyNumber)), text, task.stdin];
    },
    () => {
      if (quota) known.add(numberOf(quota));
      if (peerQuota) known.add(numberOf(peerQuota));
      if (policyNumber) known.add(policyNumber);
      return { ...wireTask(task, true, task.policy, policyNumber), stdin: task.stdin };
    },
  );
}

/** Parsed policies by their text, frozen since tasks share them; bounded. */
const policies = new Map<string, ZonePolicy>();

function policyOf(text: string): ZonePolicy {
  let p = policies.get(text);
  if (!p) {
    p = frozen(JSON.parse(text) as ZonePolicy);
    if (policies.size >= 64) policies.clear();
    policies.set(text, p);
  }
  return p;
}

/** Tasks share it from now on: frozen, lists too, so that none can change it for the others. */
function frozen(p: ZonePolicy): ZonePolicy {
  for (const v of Object.values(p)) if (Array.isArray(v)) Object.freeze(v);
  return Object.freeze(p);
}

/**
 * Worker side: the task in the box or on the port. `sent`: what this lane has been sent by
 * number (policies and quota counters).
 */
export function receiveTask(box: Mailbox, sent: Map<number, unknown>): TaskRequest {
  const task = box.receive(([json, policy, stdin]) => {
    const t = JSON.parse(json as string) as TaskRequest & { policyNumber: number };
    if (typeof policy === 'string') t.policy = policyOf(policy);
    if (stdin) t.stdin = stdin as Uint8Array;
    return t;
  }) as (TaskRequest & { policyNumber: number }) | undefined;
  if (!task) throw new Error('lane: a request was counted but not sent');
  if (task.policyNumber) {
    if (task.policy) sent.set(task.policyNumber, frozen(task.policy));
    else task.policy = sent.get(task.policyNumber) as ZonePolicy;
  }
  if (!task.policy) throw new Error('lane: a policy this lane was never sent');
  for (const q of [task.quota, task.peer?.quota] as (WireQuota | undefined)[]) {
    if (!q) continue;
    if (q.sab) sent.set(q.sabNumber, q.sab);
    else q.sab = sent.get(q.sabNumber) as SharedArrayBuffer | undefined;
    if (!q.sab) throw new Error('lane: a quota counter this lane was never sent');
  }
  return task;
}

/**
 * A command's reply without changes or refusals, the common one, goes as the text
 * "exitCode truncated stdoutBytes": JSON would cost more than the rest of the hand-off.
 * The mapped type makes a new TaskResult field a compile error here until it is sent too.
 */
type Compact = Omit<TaskResult, 'stdout' | 'stderr' | 'changes' | 'refusals' | 'commitMessage'>;
const COMPACT_FIELDS: { [K in keyof Compact]-?: true } = { exitCode: true, truncated: true, stdoutBytes: true };
void COMPACT_FIELDS;

/**
 * A tool's text `content` (the file text of read: the bulk of its reply) goes as its own part,
 * its place in the JSON kept by a null: JSON would escape it on one side and unescape it on
 * the other (half the hand-off of a small read). Only well-formed text: a lone surrogate
 * would become U+FFFD in UTF-8 where JSON keeps it.
 */
function contentOf(tool: ToolTaskResult): string | undefined {
  const data = tool.data as { content?: unknown } | null;
  const content = data !== null && typeof data === 'object' ? data.content : undefined;
  return typeof content === 'string' && (content as WellFormed).isWellFormed() ? content : undefined;
}

/** String.prototype.isWellFormed: in Node 20, in TypeScript's lib only from es2024. */
type WellFormed = string & { isWellFormed(): boolean };

/** Worker side: post the reply. */
export function sendReply(box: Mailbox, reply: TaskResponse): void {
  box.send(() => {
    if (reply.ok && reply.tool) {
      const content = contentOf(reply.tool);
      if (content === undefined) return [JSON.stringify(reply)];
      return [JSON.stringify({ ...reply, tool: { ...reply.tool, data: { ...(reply.tool.data as object), content: null } } }), content];
    }
    if (!reply.ok || !reply.result) return [JSON.stringify(reply)];
    const r = reply.result;
    if (r.changes.length === 0 && !r.refusals && r.commitMessage === undefined) return [`${r.exitCode} ${r.truncated ? 1 : 0} ${r.stdoutBytes}`, r.stdout, r.stderr];
    const rest: { [K in keyof Omit<typeof r, 'stdout' | 'stderr'>]-?: unknown } = {
      exitCode: r.exitCode, truncated: r.truncated, stdoutBytes: r.stdoutBytes, changes: r.changes, refusals: r.refusals,
      commitMessage: r.commitMessage,
    };
    return [JSON.stringify({ ok: true, result: rest }), r.stdout, r.stderr];
  }, () => reply);
}

/** Main thread: the reply to the lane's job. */
export function receiveReply(box: Mailbox): TaskResponse | undefined {
  return box.receive(([head, stdout, stderr]) => {
    const text = head as string;
    if (typeof stdout === 'string') {
      const r = JSON.parse(text) as { ok: true; tool: ToolTaskResult };
      (r.tool.data as { content: string }).content = stdout;
      return r;
    }
    const out = (stdout as Uint8Array | undefined) ?? new Uint8Array(0);
    const err = (stderr as Uint8Array | undefined) ?? new Uint8Array(0);
    if (text.charCodeAt(0) !== 0x7b /* { */) {
      const [exitCode, truncated, stdoutBytes] = text.split(' ');
      return { ok: true, result: { exitCode: Number(exitCode), truncated: truncated === '1', stdoutBytes: Number(stdoutBytes), changes: [], stdout: out, stderr: err } };
    }
    const r = JSON.parse(text) as TaskResponse;
    if (r.ok && r.result) {
      r.result.stdout = out;
      r.result.stderr = err;
    }
    return r;
  });
}
