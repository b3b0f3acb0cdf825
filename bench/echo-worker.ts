/** Piscina worker that does nothing: measures the pool's round trip alone. */
export default function echo(task: { reply?: Uint8Array }): { ok: true; reply?: Uint8Array } {
  return { ok: true, reply: task.reply };
}
