import { desc, eq, gte, inArray, max, sql, sum } from 'drizzle-orm';
import { memo } from './memo.js';
import type { Store } from './open.js';
import { jobRuns } from './schema.js';

export interface JobRunResult {
  status: 'succeeded' | 'failed';
  finishedAt: string;
  rowsWritten: number;
  requests: number;
  computeUnits: number;
  error?: string | undefined;
}

/** Records the start of a run (status `running`, which stays if the process dies); returns its id. */
// Drizzle types placeholders in insert values but not in update sets, hence sql`…` there.
// Both run on every job run (10,000 no-op jobs are a benchmark figure): prepared once per store.
export function startJobRun(store: Store, job: string, scope: string, startedAt: string): number {
  const insert = memo(store, 'jobRuns.start', () =>
    store.db
      .insert(jobRuns)
      .values({
        job: sql.placeholder('job'),
        scope: sql.placeholder('scope'),
        startedAt: sql.placeholder('startedAt'),
        status: 'running',
      })
      .returning({ id: jobRuns.id })
      .prepare(),
  );
  return insert.get({ job, scope, startedAt })!.id;
}

export function finishJobRun(store: Store, id: number, result: JobRunResult): void {
  const update = memo(store, 'jobRuns.finish', () =>
    store.db
      .update(jobRuns)
      .set({
        status: sql`${sql.placeholder('status')}`,
        finishedAt: sql`${sql.placeholder('finishedAt')}`,
        rowsWritten: sql`${sql.placeholder('rowsWritten')}`,
        requests: sql`${sql.placeholder('requests')}`,
        computeUnits: sql`${sql.placeholder('computeUnits')}`,
        error: sql`${sql.placeholder('error')}`,
      })
      .where(eq(jobRuns.id, sql.placeholder('id')))
      .prepare(),
  );
  update.run({ ...result, error: result.error ?? null, id });
}

export function listJobRuns(store: Store, limit = 20) {
  return store.db.select().from(jobRuns).orderBy(desc(jobRuns.id)).limit(limit).all();
}

export type JobRunRow = typeof jobRuns.$inferSelect;

/** The latest run of each job that ever ran (its highest id), whatever its outcome. */
export function listLatestJobRuns(store: Store): JobRunRow[] {
  const latest = store.db
    .select({ id: max(jobRuns.id) })
    .from(jobRuns)
    .groupBy(jobRuns.job);
  return store.db
    .select()
    .from(jobRuns)
    .where(inArray(jobRuns.id, sql`${latest}`))
    .all();
}

/** When each job last finished successfully. */
export function listLastSuccesses(store: Store): { job: string; finishedAt: string | null }[] {
  return store.db
    .select({ job: jobRuns.job, finishedAt: max(jobRuns.finishedAt) })
    .from(jobRuns)
    .where(eq(jobRuns.status, 'succeeded'))
    .groupBy(jobRuns.job)
    .all();
}

/** Compute units of the runs started at or after `since` (ISO-8601 UTC, compared as text). */
export function sumComputeUnitsSince(store: Store, since: string): number {
  const row = store.db
    .select({ total: sum(jobRuns.computeUnits) })
    .from(jobRuns)
    .where(gte(jobRuns.startedAt, since))
    .get();
  return Number(row?.total ?? 0);
}
