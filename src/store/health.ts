import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from './sql.js';
import { migrationsFolder } from './sqlite.js';

/**
 * Throws when this process cannot write the store: SQLite, the file and its folder (for the WAL
 * and journal files); PostgreSQL, a read-only server (a standby) or a user without INSERT rights.
 */
export async function checkWritable(store: Store): Promise<void> {
  await store.checkWritable();
}

/** How many migrations this version ships for the store's database (its drizzle journal): read it once. */
export function shippedMigrations(store: Pick<Store, 'dialect'>): number {
  const journal = JSON.parse(
    readFileSync(join(migrationsFolder(store.dialect), 'meta', '_journal.json'), 'utf8'),
  ) as {
    entries: unknown[];
  };
  return journal.entries.length;
}

/** Migrations applied to the store (0 before its first migration). */
export async function appliedMigrations(store: Store): Promise<number> {
  if (!(await store.hasTable('__drizzle_migrations'))) return 0;
  return Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM __drizzle_migrations'))?.n ?? 0);
}
