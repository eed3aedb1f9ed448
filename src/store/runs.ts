/**
 * What the store keeps of each job between runs: its runs (`job_runs`, a row from start to outcome) and
 * where each of its streams resumes (`sync_state`, a cursor written in the transaction of the page it
 * follows). The kernel writes both on every run.
 */
import { isDeepStrictEqual } from 'node:util';
import { jobRuns, syncState } from './schema.js';
import { planUpsert, type Sql } from './sql.js';
import { selectList } from './tables.js';

export interface JobRunResult {
  status: 'succeeded' | 'failed';
  finishedAt: string;
  rowsWritten: number;
  /** Rows deleted per table (the maintenance job); stored as JSON, NULL when empty. */
  rowsRemoved?: Readonly<Record<string, number>> | undefined;
  requests: number;
  computeUnits: number;
  error?: string | undefined;
}

/**
 * Records the start of a run (status `running`, which stays if the process dies, until
 * `failAbandonedRuns` finds it); returns its id.
 */
export async function startJobRun(sql: Sql, job: string, scope: string, startedAt: string): Promise<number> {
  const row = await sql.get<{ id: number }>(
    "INSERT INTO job_runs (job, scope, started_at, status) VALUES (?, ?, ?, 'running') RETURNING id",
    [job, scope, startedAt],
  );
  return row!.id;
}

export async function finishJobRun(sql: Sql, id: number, result: JobRunResult): Promise<void> {
  await sql.run(
    `UPDATE job_runs SET status = ?, finished_at = ?, rows_written = ?, rows_removed = ?, requests = ?,
       compute_units = ?, error = ?
     WHERE id = ?`,
    [
      result.status,
      result.finishedAt,
      result.rowsWritten,
      removedJson(result.rowsRemoved),
      result.requests,
      result.computeUnits,
      result.error ?? null,
      id,
    ],
  );
}

/** `rows_removed`: the tables a run deleted from, or NULL (SQL's "nothing") for a run that deleted nothing. */
function removedJson(removed: JobRunResult['rowsRemoved']): string | null {
  return removed && Object.keys(removed).length > 0 ? JSON.stringify(removed) : null;
}

/**
 * Marks `failed`, with `error`, the runs of `job` and `scope` still `running`: a queued job taken over
 * after its worker stopped (killed, its host gone) left its run so. Returns how many it marked. A run
 * whose worker was only slow, and finishes after all, records its own outcome over this one.
 */
export function failAbandonedRuns(
  sql: Sql,
  run: { job: string; scope: string; at: string; error: string },
): Promise<number> {
  return sql.run(
    `UPDATE job_runs SET status = 'failed', finished_at = ?, error = ?
     WHERE job = ? AND scope = ? AND status = 'running'`,
    [run.at, run.error, run.job, run.scope],
  );
}

export type JobRunRow = typeof jobRuns.$inferSelect;

const JOB_RUN_COLUMNS = selectList(jobRuns);

export function listJobRuns(sql: Sql, limit = 20): Promise<JobRunRow[]> {
  return sql.all<JobRunRow>(`SELECT ${JOB_RUN_COLUMNS} FROM job_runs ORDER BY id DESC LIMIT ?`, [limit]);
}

/** The latest run of each job that ever ran (its highest id), whatever its outcome. */
export function listLatestJobRuns(sql: Sql): Promise<JobRunRow[]> {
  return sql.all<JobRunRow>(
    `SELECT ${JOB_RUN_COLUMNS} FROM job_runs WHERE id IN (SELECT max(id) FROM job_runs GROUP BY job) ORDER BY id`,
  );
}

/** When each job last finished successfully (job_summaries, kept by the finish trigger of job_runs). */
export function listLastSuccesses(sql: Sql): Promise<{ job: string; finishedAt: string | null }[]> {
  return sql.all(
    'SELECT job, last_success_at AS "finishedAt" FROM job_summaries WHERE last_success_at IS NOT NULL',
  );
}

/** Compute units of the runs started at or after `since` (ISO-8601 UTC). */
export async function sumComputeUnitsSince(sql: Sql, since: string): Promise<number> {
  const row = await sql.get<{ total: number | string | null }>(
    'SELECT sum(compute_units) AS total FROM job_runs WHERE started_at >= ?',
    [since],
  );
  return Number(row?.total ?? 0);
}

/** A run left `running` by a process that died: failed, with why (nothing when it finished since). */
export function failRunIfRunning(sql: Sql, id: number, at: string, error: string): Promise<number> {
  return sql.run(
    "UPDATE job_runs SET status = 'failed', finished_at = ?, error = ? WHERE id = ? AND status = 'running'",
    [at, error, id],
  );
}

/* The cursors: where each stream of a job resumes (sync_state). */

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
