/** The vitest side of the PostgreSQL harness: one server per test file; a test that needs it fails (never skips) when it cannot start. */
import { afterAll, beforeAll } from 'vitest';
import { startPostgres, type PgServer } from './pg-server.js';

export function usePostgres(): () => PgServer {
  let server: PgServer | undefined;
  let failure: unknown;
  beforeAll(async () => {
    try {
      server = await startPostgres();
    } catch (e) {
      failure = e;
    }
  }, 120_000);
  afterAll(async () => {
    await server?.destroy();
  }, 60_000);
  return () => {
    if (!server) throw new Error(`PostgreSQL could not start for this test: ${(failure as Error)?.message ?? 'not started'}`);
    return server;
  };
}
