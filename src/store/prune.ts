/**
 * Pruning by retention (the maintenance job, jobs/maintenance.ts): each table is deleted from in
 * batches of at most `batchSize` rows, one short transaction per batch, through an existing index
 * (no table scan, no schema change):
 * - SQLite: each batch holds the write lock for one statement; between two batches the event loop
 *   turns, so the process's other jobs (and other processes, through the busy timeout) commit.
 * - PostgreSQL: a batch locks only the rows it deletes, and skips rows another transaction holds
 *   (`FOR UPDATE SKIP LOCKED`): a page being upserted is not waited for; the next run takes it.
 *
 * The summaries stay exact (docs/metrics.md): transaction_summaries is lowered by the delete triggers
 * of both stores; usage_summaries and job_summaries name a row this module never deletes (each
 * series' newest bucket; each job's latest success and latest failure), and supply's gauge reads the
 * newest snapshot, never deleted either. The export summaries count operations and files, which stay.
 */

import { unlink } from 'node:fs/promises';
import type { Sql, Store } from './sql.js';

export interface PruneOptions {
  batchSize: number;
  /** Checked between batches: a shutdown stops the pruning after the batch in flight. */
  signal?: AbortSignal | undefined;
  /** Told each committed batch's deleted rows. */
  onBatch?: (n: number) => void;
}

/**
 * Deletes the rows of `table` matching `where` (with `params`), `batchSize` at a time, until a batch
 * deletes fewer; returns how many. `where` must be served by an index of the table.
 */
async function deleteInBatches(
  store: Store,
  table: string,
  where: string,
  params: readonly unknown[],
  o: PruneOptions,
): Promise<number> {
  const text = store.deleteBatch(table, where);
  let total = 0;
  for (;;) {
    o.signal?.throwIfAborted();
    const n = await store.run(text, [...params, o.batchSize]);
    total += n;
    if (n > 0) o.onBatch?.(n);
    if (n < o.batchSize) return total;
    // Let the process's other work (another job's page) take the database between two batches.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Transactions whose block time is before `beforeSeconds` (transactions_block_timestamp_idx). */
export function pruneTransactions(store: Store, beforeSeconds: number, o: PruneOptions): Promise<number> {
  return deleteInBatches(store, 'transactions', 'block_timestamp < ?', [beforeSeconds], o);
}

/** Exported rows whose block time is before `beforeSeconds`, per export (exported_transactions_time_idx). */
export async function pruneExportedTransactions(
  store: Store,
  beforeSeconds: number,
  o: PruneOptions,
): Promise<number> {
  const names = await store.all<{ name: string }>(
    'SELECT DISTINCT export_name AS name FROM export_operations ORDER BY 1',
  );
  let total = 0;
  for (const { name } of names) {
    total += await deleteInBatches(
      store,
      'exported_transactions',
      'export_name = ? AND block_timestamp < ?',
      [name, beforeSeconds],
      o,
    );
  }
  return total;
}

/**
 * Removes from disk the loaded export files whose every row is older than `beforeSeconds`: their
 * window ended a day or more before it, so `pruneExportedTransactions` deleted all they brought.
 * Their `export_files` row stays (the record of the download; a loaded file is never fetched again).
 * Returns the files removed now (those already gone are not counted).
 */
export async function pruneExportFiles(sql: Sql, beforeSeconds: number): Promise<number> {
  // A window's rows are all before the day after its last date: last_date < (cutoff's day - 1).
  const lastDay = new Date((beforeSeconds - 86_400) * 1000).toISOString().slice(0, 10);
  const files = await sql.all<{ path: string }>(
    `SELECT f.path FROM export_files f JOIN export_operations o ON o.operation_id = f.operation_id
     WHERE f.loaded_at IS NOT NULL AND o.last_date < ? ORDER BY f.path`,
    [lastDay],
  );
  let removed = 0;
  for (const { path } of files) {
    try {
      await unlink(path);
      removed++;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return removed;
}

/**
 * Runs started before `beforeIso` (job_runs_job_started_idx, per job), but never a run still
 * `running` (a takeover marks it interrupted), nor a job's latest success or latest failure (what
 * job_summaries and `status` show).
 */
export async function pruneJobRuns(store: Store, beforeIso: string, o: PruneOptions): Promise<number> {
  const jobs = await store.all<{ job: string; lastSuccessAt: string | null }>(
    'SELECT job, last_success_at AS "lastSuccessAt" FROM job_summaries ORDER BY job',
  );
  let total = 0;
  for (const { job, lastSuccessAt } of jobs) {
    const keep = [await latestSuccess(store, job, lastSuccessAt), await latestFailure(store, job)];
    total += await deleteInBatches(
      store,
      'job_runs',
      "job = ? AND started_at < ? AND status <> 'running' AND id <> ? AND id <> ?",
      [job, beforeIso, ...keep],
      o,
    );
  }
  return total;
}

/**
 * The run that finished at `finishedAt`, job_summaries' latest success: walked back from that time
 * along job_runs_job_started_idx (it started before it finished), so the first success finished
 * then is the one (of runs finished at once, the one started last). -1: none.
 */
async function latestSuccess(store: Store, job: string, finishedAt: string | null): Promise<number> {
  if (finishedAt === null) return -1;
  const row = await store.get<{ id: number }>(
    `SELECT id FROM job_runs WHERE job = ? AND started_at <= ? AND status = 'succeeded' AND finished_at = ?
     ORDER BY started_at DESC, id DESC LIMIT 1`,
    [job, finishedAt, finishedAt],
  );
  return row?.id ?? -1;
}

/** A job's latest failure, -1: none (job_runs_unsucceeded_idx: the status is written out to match it). */
async function latestFailure(store: Store, job: string): Promise<number> {
  const row = await store.get<{ id: number }>(
    `SELECT id FROM job_runs WHERE status = 'failed' AND job = ? AND finished_at IS NOT NULL
     ORDER BY finished_at DESC, id DESC LIMIT 1`,
    [job],
  );
  return row?.id ?? -1;
}

/**
 * Snapshots whose `last_updated` (the API's ISO-8601 UTC text) is before `beforeIso`, but never the
 * newest (the supply gauge's). Compared as text: the API writes it in UTC.
 */
export function pruneSupplySnapshots(store: Store, beforeIso: string, o: PruneOptions): Promise<number> {
  return deleteInBatches(
    store,
    'supply_snapshots',
    'last_updated < ? AND last_updated < (SELECT max(last_updated) FROM supply_snapshots)',
    [beforeIso],
    o,
  );
}

/** Buckets that start before `beforeSeconds`, per series (its primary key), but never a series' newest. */
export async function pruneUsageMetrics(
  store: Store,
  beforeSeconds: number,
  o: PruneOptions,
): Promise<number> {
  const series = await store.all<{
    source: string;
    scope: string;
    timeInterval: string;
    groupBy: string;
    latest: number;
  }>(
    `SELECT source, scope, time_interval AS "timeInterval", group_by AS "groupBy", latest_bucket_timestamp AS latest
     FROM usage_summaries ORDER BY 1, 2, 3, 4`,
  );
  let total = 0;
  for (const s of series) {
    total += await deleteInBatches(
      store,
      'usage_metrics',
      'source = ? AND scope = ? AND time_interval = ? AND group_by = ? AND bucket_timestamp < ?',
      [s.source, s.scope, s.timeInterval, s.groupBy, Math.min(beforeSeconds, s.latest)],
      o,
    );
  }
  return total;
}

/** Records set aside last seen before `beforeIso`, per job (rejected_records_job_seen_idx). */
export async function pruneRejectedRecords(
  store: Store,
  beforeIso: string,
  o: PruneOptions,
): Promise<number> {
  const jobs = await store.all<{ job: string }>('SELECT DISTINCT job FROM rejected_records ORDER BY job');
  let total = 0;
  for (const { job } of jobs) {
    total += await deleteInBatches(
      store,
      'rejected_records',
      'job = ? AND last_seen_at < ?',
      [job, beforeIso],
      o,
    );
  }
  return total;
}
