import { and, desc, eq, gte, inArray, max, sql, sum } from 'drizzle-orm';
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
export function startJobRun(store: Store, job: string, scope: string, startedAt: string): number {
  const row = store.db
    .insert(jobRuns)
    .values({ job, scope, startedAt, status: 'running' })
    .returning({ id: jobRuns.id })
    .get();
  return row.id;
}

export function finishJobRun(store: Store, id: number, result: JobRunResult): void {
  store.db
    .update(jobRuns)
    .set({ ...result, error: result.error ?? null })
    .where(eq(jobRuns.id, id))
    .run();
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
    .where(and(gte(jobRuns.startedAt, since)))
    .get();
  return Number(row?.total ?? 0);
}
