import { desc, eq } from 'drizzle-orm';
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
