/**
 * What several figure modules share: a fresh database file, the collector's real parts wired to a
 * simulator URL (as `run <job>` builds them), and the raw baseline writer.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { getTableColumns } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { Agent } from 'undici';
import { systemClock } from '../src/clock.js';
import { createLogger } from '../src/logger.js';
import type { RunJobDeps } from '../src/runner.js';
import { openStore, type Store } from '../src/store/index.js';
import { createDataApiClient } from '../src/upstream/index.js';
import { tempDir } from '../test/support/tmp.js';

/**
 * The simulator's clock is frozen in the benchmarks (the data does not grow under a measurement), so
 * its per-minute window never resets: the bench's key has an unlimited minute budget.
 */
export const BENCH_API_KEY = 'glacier-bench-key';
export const benchApiKeys = { [BENCH_API_KEY]: { tier: 'Pro' as const, computeUnitsPerMinute: 1e12 } };
export const benchFetchInit: RequestInit = { headers: { 'x-glacier-api-key': BENCH_API_KEY } };

/** A scratch directory for the databases of one module, removed by `cleanup`. */
export function scratch(prefix: string): { path: (name: string) => string; cleanup: () => void } {
  const { dir, cleanup } = tempDir(`glacier-bench-${prefix}-`);
  return { path: (name) => join(dir, name), cleanup };
}

/** The collector's parts against `baseUrl`, writing to a fresh migrated database at `dbPath`. */
export function collectorDeps(
  baseUrl: string,
  dbPath: string,
): RunJobDeps & { store: Store; close(): Promise<void> } {
  const store = openStore(dbPath);
  const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
  const client = createDataApiClient({ baseUrl, apiKey: BENCH_API_KEY, dispatcher, clock: systemClock });
  const log = createLogger({ level: 'silent', pretty: false });
  return {
    client,
    store,
    log,
    clock: systemClock,
    close: async () => {
      store.close();
      await dispatcher.destroy();
    },
  };
}

/**
 * The baseline writer: one raw better-sqlite3 prepared INSERT, run once per row inside one
 * transaction per page, into the same schema (no cursor, no change detection).
 */
export function rawPageWriter(store: Store, table: string, columns: readonly string[]) {
  const insert = store.sqlite.prepare(
    `INSERT INTO ${table} (${columns.join(',')}) VALUES (${columns.map(() => '?').join(',')})`,
  );
  return store.sqlite.transaction((rows: readonly unknown[][]) => {
    for (const row of rows) insert.run(row);
  });
}

/** Removes a database file with its WAL and shared-memory files (the runs are large). */
export function removeDatabase(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}

/** A table's column names in its schema order (the order raw rows follow). */
export function columnNames(table: SQLiteTable): string[] {
  return Object.values(getTableColumns(table)).map((c) => c.name);
}
