/**
 * The TTL cleanup on a timer: the long-running servers (`nosh serve`, `nosh mcp`, `nosh http`)
 * run what the maintenance method does (remove expired session zones and stale temp files)
 * every `sessionSweepSeconds` of the config, instead of only when an operator calls it.
 */
import type { Envelope } from '../errors.js';
import type { ResolvedConfig } from '../config.js';

export interface Sweeper {
  /** Stop the timer; resolves when a sweep under way has ended. */
  stop(): Promise<void>;
  /** Run one sweep now (the timer's own work); resolves with what maintenance answered. */
  sweepNow(): Promise<Envelope<unknown>>;
}

/**
 * Start the timer on an instance that serves the runtime's methods (not one bound to the
 * model's surface: maintenance is a runtime method). `intervalSeconds` overrides the config; 0
 * starts nothing. The timer does not keep the process alive, and a sweep never overlaps the
 * previous one. Its failures are swallowed (the maintenance call is audited like any other).
 */
export function startSessionSweep(nosh: { config: ResolvedConfig; call(method: string, params: unknown): Promise<Envelope<unknown>> },
  intervalSeconds: number = nosh.config.sessionSweepSeconds): Sweeper {
  let running: Promise<Envelope<unknown>> | undefined;
  const sweepNow = (): Promise<Envelope<unknown>> => {
    running ??= nosh.call('maintenance', {}).catch((e: unknown) => ({ success: false, error: { code: 'INTERNAL_ERROR', message: String(e), details: {}, hint: '' } }) as Envelope<unknown>)
      .finally(() => { running = undefined; });
    return running;
  };
  const timer = intervalSeconds > 0 ? setInterval(() => { void sweepNow(); }, intervalSeconds * 1000) : undefined;
  timer?.unref();
  return {
    sweepNow,
    async stop() {
      if (timer) clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
