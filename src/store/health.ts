import { accessSync, constants, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Store } from './sql.js';
import { migrationsFolder } from './sqlite.js';

/**
 * Throws when this process cannot write the store: SQLite, the file and its folder (for the WAL
 * and journal files); PostgreSQL, a read-only server (a standby) or a user without INSERT rights.
 */
export async function checkWritable(store: Store): Promise<void> {
  if (store.dialect === 'sqlite') {
    if (store.location === ':memory:') return;
    accessSync(store.location, constants.R_OK | constants.W_OK);
    accessSync(dirname(store.location), constants.W_OK);
    return;
  }
  const row = await store.get<{ standby: boolean; insert: boolean }>(
    "SELECT pg_is_in_recovery() AS standby, has_table_privilege('job_runs', 'INSERT') AS insert",
  );
  if (row?.standby) throw new Error('the PostgreSQL server is a read-only standby');
  if (!row?.insert) throw new Error('the database user may not insert into job_runs');
}

/** How many migrations this version ships for `dialect` (its drizzle journal): read it once. */
export function shippedMigrations(dialect: Store['dialect']): number {
  const journal = JSON.parse(
    readFileSync(join(migrationsFolder(dialect), 'meta', '_journal.json'), 'utf8'),
  ) as {
    entries: unknown[];
  };
  return journal.entries.length;
}

/** Migrations applied to the store (0 before its first migration). */
export async function appliedMigrations(store: Store): Promise<number> {
  const exists =
    store.dialect === 'sqlite'
      ? await store.get("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'")
      : await store
          .get("SELECT to_regclass('__drizzle_migrations') IS NOT NULL AS found")
          .then((r) => ((r as { found: boolean } | undefined)?.found ? r : undefined));
  if (!exists) return 0;
  return Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM __drizzle_migrations'))?.n ?? 0);
}
