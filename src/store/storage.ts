/**
 * Where the disk goes, for `status`: each table's size, the oldest row each retained table keeps,
 * and what the runs of the last days wrote and removed (from job_runs, not a scan of the big tables).
 */
import { isoOfSeconds } from '../runtime/clock.js';
import type { Sql } from './sql.js';

/**
 * The oldest row each retained table keeps, as ISO-8601 UTC (each table by the time it is pruned by;
 * undefined when empty), through the indexes the pruning uses.
 */
export async function readOldestKept(sql: Sql): Promise<Record<string, string | undefined>> {
  const seconds = (n: number | null | undefined) =>
    n === null || n === undefined ? undefined : isoOfSeconds(n);
  const min = async <T extends string | number>(text: string, params: unknown[] = []) =>
    (await sql.get<{ v: T | null }>(text, params))?.v ?? undefined;
  const least = <T>(values: (T | undefined)[]) =>
    values.filter((v): v is T => v !== undefined).sort()[0] as T | undefined;

  const exportNames = await sql.all<{ n: string }>('SELECT DISTINCT export_name AS n FROM export_operations');
  const exported: number[] = [];
  for (const { n } of exportNames) {
    const v = await min<number>(
      'SELECT min(block_timestamp) AS v FROM exported_transactions WHERE export_name = ?',
      [n],
    );
    if (v !== undefined) exported.push(Number(v));
  }
  const jobs = await sql.all<{ job: string }>('SELECT job FROM job_summaries');
  const runs: string[] = [];
  for (const { job } of jobs) {
    const v = await min<string>('SELECT min(started_at) AS v FROM job_runs WHERE job = ?', [job]);
    if (v !== undefined) runs.push(v);
  }
  const series = await sql.all<{ source: string; scope: string; i: string; g: string }>(
    'SELECT source, scope, time_interval AS i, group_by AS g FROM usage_summaries',
  );
  const buckets: number[] = [];
  for (const s of series) {
    const v = await min<number>(
      'SELECT min(bucket_timestamp) AS v FROM usage_metrics WHERE source = ? AND scope = ? AND time_interval = ? AND group_by = ?',
      [s.source, s.scope, s.i, s.g],
    );
    if (v !== undefined) buckets.push(Number(v));
  }
  const rejectedJobs = await sql.all<{ job: string }>('SELECT DISTINCT job FROM rejected_records');
  const rejected: string[] = [];
  for (const { job } of rejectedJobs) {
    const v = await min<string>('SELECT min(last_seen_at) AS v FROM rejected_records WHERE job = ?', [job]);
    if (v !== undefined) rejected.push(v);
  }
  return {
    transactions: seconds(await min<number>('SELECT min(block_timestamp) AS v FROM transactions')),
    exported_transactions: seconds(exported.length ? Math.min(...exported) : undefined),
    job_runs: least(runs),
    supply_snapshots: await min<string>('SELECT min(last_updated) AS v FROM supply_snapshots'),
    usage_metrics: seconds(buckets.length ? Math.min(...buckets) : undefined),
    rejected_records: least(rejected),
  };
}

export interface RunsWritten {
  job: string;
  runs: number;
  rowsWritten: number;
  /** Rows the runs deleted, per table (`rows_removed`; runs recorded before it existed add nothing). */
  rowsRemoved: Record<string, number>;
  /** The earliest run counted, ISO-8601 UTC. */
  since: string;
}

/**
 * Per job, the runs started since `sinceIso`, the rows they wrote and those they removed per table
 * (job_runs_job_started_idx, per job).
 */
export async function readRunsWrittenSince(sql: Sql, sinceIso: string): Promise<RunsWritten[]> {
  const jobs = await sql.all<{ job: string }>('SELECT job FROM job_summaries ORDER BY job');
  const removedText = sql.sumRowsRemoved('job_runs.job = ? AND job_runs.started_at >= ?');
  const out: RunsWritten[] = [];
  for (const { job } of jobs) {
    const row = await sql.get<{
      runs: number;
      rows: number | string | null;
      since: string | null;
      removing: number | string;
    }>(
      `SELECT count(*) AS runs, sum(rows_written) AS rows, min(started_at) AS since,
              count(rows_removed) AS removing
       FROM job_runs WHERE job = ? AND started_at >= ?`,
      [job, sinceIso],
    );
    if (row && Number(row.runs) > 0 && row.since) {
      // Only the runs that removed rows (the maintenance job's) have rows_removed: read it again for those.
      const removed =
        Number(row.removing) > 0
          ? await sql.all<{ table: string; rows: number | string }>(removedText, [job, sinceIso])
          : [];
      out.push({
        job,
        runs: Number(row.runs),
        rowsWritten: Number(row.rows ?? 0),
        rowsRemoved: Object.fromEntries(removed.map((r) => [r.table, Number(r.rows)])),
        since: row.since,
      });
    }
  }
  return out;
}
