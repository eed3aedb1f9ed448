import { and, eq } from 'drizzle-orm';
import { memo } from './memo.js';
import type { Store } from './open.js';
import { syncState } from './schema.js';
import { createUpsert } from './upsert.js';

/** The cursor of a job's stream, or undefined before its first run. Call inside the page's transaction. */
export function readCursor<T>(store: Store, job: string, scope: string): T | undefined {
  const row = store.db
    .select({ cursor: syncState.cursor })
    .from(syncState)
    .where(and(eq(syncState.job, job), eq(syncState.scope, scope)))
    .get();
  return row ? (JSON.parse(row.cursor) as T) : undefined;
}

/** Prepared once per store: it runs with every page. */
export function writeCursor(store: Store, job: string, scope: string, cursor: unknown, at: string): void {
  const write = memo(store, 'cursors.write', () =>
    createUpsert(store.sqlite, syncState, { key: ['job', 'scope'], update: ['cursor', 'updatedAt'] }),
  );
  write([{ job, scope, cursor: JSON.stringify(cursor), updatedAt: at }]);
}

export function deleteCursor(store: Store, job: string, scope: string): void {
  store.db
    .delete(syncState)
    .where(and(eq(syncState.job, job), eq(syncState.scope, scope)))
    .run();
}
