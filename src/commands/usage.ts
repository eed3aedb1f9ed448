import { existsSync } from 'node:fs';
import type { Config } from '../config/index.js';
import type { Store } from '../store/index.js';

/** Bad arguments exit 2, as invalid configuration and commander's usage errors do (see src/cli.ts). */
export const EXIT_USAGE = 2;

/** A bad command line found by a command itself: the CLI prints its message alone and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Prints an argument error and sets exit code 2 (the action then returns normally). */
export function failUsage(message: string): void {
  console.error(message);
  process.exitCode = EXIT_USAGE;
}

/**
 * The configured database when the collector has written to it, else undefined: read-only commands
 * report on an existing database rather than create an empty one (no SQLite file, no tables in
 * PostgreSQL). An unreachable database is an error naming its setting.
 */
export async function openExistingStore(config: Pick<Config, 'database'>): Promise<Store | undefined> {
  const db = config.database;
  // Imported here: this module is loaded by every command line, the store's drivers are not.
  const [{ openConfiguredStore }, { appliedMigrations }] = await Promise.all([
    import('../service/configured-store.js'),
    import('../store/index.js'),
  ]);
  if (db.kind === 'sqlite') {
    return db.path === ':memory:' || existsSync(db.path) ? openConfiguredStore(config) : undefined;
  }
  const store = await openConfiguredStore(config, { migrate: false });
  try {
    if ((await appliedMigrations(store)) > 0) return store;
  } catch (err) {
    await store.close();
    throw err;
  }
  await store.close();
  return undefined;
}
