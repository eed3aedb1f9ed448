import { desc, eq, sql } from 'drizzle-orm';
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
