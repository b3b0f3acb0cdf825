/**
 * sql.js (SQLite compiled to WebAssembly), loaded once per worker from the package's own
 * .wasm file: no network, no child process. Its file system is Emscripten's in-memory one,
 * so SQLite itself can never reach a host file; every database byte comes from and goes back
 * through the Vfs (database.ts).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import initSqlJs from 'sql.js';
import type { Database, SqlJsStatic } from 'sql.js';

export type { Database, Statement, SqlValue } from 'sql.js';

let loading: Promise<SqlJsStatic> | undefined;
let loaded: SqlJsStatic | undefined;

/** The module once sqlJs() has resolved (synchronous use after an await of it). */
export function sqlJsLoaded(): SqlJsStatic | undefined {
  return loaded;
}

/** The sql.js module of this worker (instantiated on first use). */
export function sqlJs(): Promise<SqlJsStatic> {
  if (!loading) {
    const require = createRequire(import.meta.url);
    const wasmBinary = readFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'));
    // useOldExtensionFunctions: false: SQLite's own math functions, not sql.js's legacy JS ones.
    const config = { useOldExtensionFunctions: false, wasmBinary: wasmBinary.buffer.slice(wasmBinary.byteOffset, wasmBinary.byteOffset + wasmBinary.byteLength) as ArrayBuffer };
    loading = initSqlJs(config as Parameters<typeof initSqlJs>[0]);
    loading.then((m) => { loaded = m; }, () => undefined);
    loading.catch(() => { loading = undefined; });
  }
  return loading;
}

/** The in-memory file name sql.js gave a database (what ATTACH can name inside its file system). */
export function memFileName(db: Database): string {
  return (db as unknown as { filename: string }).filename;
}
