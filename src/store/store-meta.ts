/**
 * The store's own facts (`store_meta`): its id, the store it was copied from, and a copy into it
 * that has not ended. `migrate-store` (copy.ts) writes them; `start`, `run` and `status` read the
 * unfinished copy so that a half-copied store is never collected into as if it were whole.
 */
import { randomUUID } from 'node:crypto';
import type { Sql } from './sql.js';

/** A copy into this store that began and has not ended (a killed `migrate-store`). */
export interface UnfinishedCopy {
  /** The source as `migrate-store` printed it (a SQLite path, a URL with its password masked). */
  source: string;
  /** When the copy began, ISO-8601 UTC. */
  startedAt: string;
}

const STORE_ID = 'store_id';
const COPIED_FROM = 'copied_from';
const COPY_UNFINISHED = 'copy_unfinished';

async function readMeta(sql: Sql, key: string): Promise<string | undefined> {
  const row = await sql.get<{ value: string }>('SELECT value FROM store_meta WHERE key = ?', [key]);
  return row?.value;
}

async function writeMeta(sql: Sql, key: string, value: string): Promise<void> {
  await sql.run(
    'INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    [key, value],
  );
}

/** The store's id, made (a random UUID) and kept the first time it is asked for. */
export async function ensureStoreId(sql: Sql): Promise<string> {
  return sql.transaction(async (tx) => {
    const id = await readMeta(tx, STORE_ID);
    if (id) return id;
    const made = randomUUID();
    await writeMeta(tx, STORE_ID, made);
    return made;
  });
}

/** The id of the store this one was copied from, if it ever was. */
export function readCopiedFrom(sql: Sql): Promise<string | undefined> {
  return readMeta(sql, COPIED_FROM);
}

/** Marks the store a copy of `sourceId`, unfinished until `finishCopy`: before any row is copied. */
export async function beginCopy(sql: Sql, sourceId: string, copy: UnfinishedCopy): Promise<void> {
  await sql.transaction(async (tx) => {
    await writeMeta(tx, COPIED_FROM, sourceId);
    await writeMeta(tx, COPY_UNFINISHED, JSON.stringify(copy));
  });
}

/** The copy ended: every table and summary is in. */
export async function finishCopy(sql: Sql): Promise<void> {
  await sql.run('DELETE FROM store_meta WHERE key = ?', [COPY_UNFINISHED]);
}

/**
 * The copy into this store that has not ended, if any. A store whose migrations predate the table
 * (read without migrating) has none.
 */
export async function readUnfinishedCopy(sql: Sql): Promise<UnfinishedCopy | undefined> {
  if (!(await sql.hasTable('store_meta'))) return undefined;
  const text = await readMeta(sql, COPY_UNFINISHED);
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as Partial<UnfinishedCopy>;
    return { source: String(parsed.source ?? '(unknown)'), startedAt: String(parsed.startedAt ?? '') };
  } catch {
    return { source: '(unknown)', startedAt: '' };
  }
}

/** What `start`, `run` and `status` say of an unfinished copy. */
export function unfinishedCopyProblem(location: string, copy: UnfinishedCopy): string {
  return `the database ${location} is an unfinished copy of ${copy.source} (migrate-store began at ${copy.startedAt || 'an unknown time'} and has not ended): run the same migrate-store again to finish it; start and run refuse this database until then`;
}
