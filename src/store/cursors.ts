import { and, eq } from 'drizzle-orm';
import type { Store } from './open.js';
import { syncState } from './schema.js';

/** The cursor of a job's stream, or undefined before its first run. Call inside the page's transaction. */
export function readCursor<T>(store: Store, job: string, scope: string): T | undefined {
  const row = store.db
    .select({ cursor: syncState.cursor })
    .from(syncState)
    .where(and(eq(syncState.job, job), eq(syncState.scope, scope)))
    .get();
  return row ? (JSON.parse(row.cursor) as T) : undefined;
}

export function writeCursor(store: Store, job: string, scope: string, cursor: unknown, at: string): void {
  const value = JSON.stringify(cursor);
  store.db
    .insert(syncState)
    .values({ job, scope, cursor: value, updatedAt: at })
    .onConflictDoUpdate({ target: [syncState.job, syncState.scope], set: { cursor: value, updatedAt: at } })
    .run();
}

export function deleteCursor(store: Store, job: string, scope: string): void {
  store.db
    .delete(syncState)
    .where(and(eq(syncState.job, job), eq(syncState.scope, scope)))
    .run();
}
