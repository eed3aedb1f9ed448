import { isDeepStrictEqual } from 'node:util';
import { syncState } from './schema.js';
import { planUpsert, type Sql } from './sql.js';

/** The cursor of a job's stream, or undefined before its first run. */
export async function readCursor<T>(sql: Sql, job: string, scope: string): Promise<T | undefined> {
  const row = await sql.get<{ cursor: string }>('SELECT cursor FROM sync_state WHERE job = ? AND scope = ?', [
    job,
    scope,
  ]);
  return row ? (JSON.parse(row.cursor) as T) : undefined;
}

const upsertCursor = planUpsert(syncState, { key: ['job', 'scope'], update: ['cursor', 'updatedAt'] });

/** Writes a stream's cursor; call inside the page's transaction. */
export async function writeCursor(
  sql: Sql,
  job: string,
  scope: string,
  cursor: unknown,
  at: string,
): Promise<void> {
  await sql.upsert(upsertCursor, [{ job, scope, cursor: JSON.stringify(cursor), updatedAt: at }]);
}

export interface StoredCursor {
  scope: string;
  /** The cursor as stored (JSON text), for a reader that knows its shape. */
  cursor: string;
  updatedAt: string;
}

/** Every cursor a job keeps, by scope. */
export async function listCursors(sql: Sql, job: string): Promise<StoredCursor[]> {
  return sql.all<StoredCursor>(
    'SELECT scope, cursor, updated_at AS "updatedAt" FROM sync_state WHERE job = ? ORDER BY scope',
    [job],
  );
}

export async function deleteCursor(sql: Sql, job: string, scope: string): Promise<void> {
  await sql.run('DELETE FROM sync_state WHERE job = ? AND scope = ?', [job, scope]);
}

/** The lock that serializes the page transactions of one stream (see `advanceCursor`). */
export function cursorLock(job: string, scope: string): string {
  return `cursor:${job}/${scope}`;
}

/**
 * Moves a stream from `expected` (the cursor this walk last read or wrote; undefined before the
 * first run) to `next`, inside the page's transaction, which must hold `cursorLock(job, scope)`.
 * Returns false, writing nothing, when the stored cursor is no longer `expected`: another worker
 * (another host, a stalled job taken over while the first still ran) moved the stream meanwhile,
 * and the caller must stop and roll the page back: its rows would be a second walk of the stream.
 */
export async function advanceCursor(
  sql: Sql,
  job: string,
  scope: string,
  expected: unknown,
  next: unknown,
  at: string,
): Promise<boolean> {
  if (sql.compareAndSwapCursor) return sql.compareAndSwapCursor({ job, scope, expected, next, at });
  const stored = await readCursor(sql, job, scope);
  // As stored: JSON drops undefined members.
  const want: unknown = expected === undefined ? undefined : JSON.parse(JSON.stringify(expected));
  if (!isDeepStrictEqual(stored, want)) return false;
  await writeCursor(sql, job, scope, next, at);
  return true;
}
