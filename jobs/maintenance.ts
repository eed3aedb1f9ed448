/** The maintenance job's handler; its definition (name, config key, cost) is maintenance.definition.ts. */
import { FOREVER, RETAINED_TABLES, type Retention, type RetentionConfig } from '../src/config/index.js';
import type { JobHandler } from '../src/kernel/index.js';
import {
  type PruneOptions,
  pruneExportedTransactions,
  pruneExportFiles,
  pruneJobRuns,
  pruneRejectedRecords,
  pruneSupplySnapshots,
  pruneTransactions,
  pruneUsageMetrics,
  pruneValidationObservations,
  type Store,
} from '../src/store/index.js';

export interface MaintenancePayload {
  retention: RetentionConfig;
  batchSize: number;
}

type Pruner = (store: Store, cutoffMs: number, o: PruneOptions) => Promise<number>;

const seconds = (ms: number) => Math.floor(ms / 1000);
const iso = (ms: number) => new Date(ms).toISOString();

/** Each retained table's pruning, by its own time. */
const pruners: Record<keyof RetentionConfig, Pruner> = {
  transactions: (store, cutoff, o) => pruneTransactions(store, seconds(cutoff), o),
  exportedTransactions: (store, cutoff, o) => pruneExportedTransactions(store, seconds(cutoff), o),
  jobRuns: (store, cutoff, o) => pruneJobRuns(store, iso(cutoff), o),
  supplySnapshots: (store, cutoff, o) => pruneSupplySnapshots(store, iso(cutoff), o),
  usageMetrics: (store, cutoff, o) => pruneUsageMetrics(store, seconds(cutoff), o),
  rejectedRecords: (store, cutoff, o) => pruneRejectedRecords(store, iso(cutoff), o),
  validationObservations: (store, cutoff, o) => pruneValidationObservations(store, iso(cutoff), o),
};

/**
 * Prunes every table whose retention is not `forever`, in batches, then lets the database reuse the
 * space. Each batch is counted as it commits (a run cut short still says what it removed: a shutdown
 * stops it between two batches, and its failed `job_runs` row records the batches that committed):
 * the run's `rows_removed` gives them per table, as do the log line and `glacier_rows_pruned_total`;
 * its `rows_written` is their total (what it meant before `rows_removed` existed, kept so).
 */
export const maintenance: JobHandler<MaintenancePayload> = async (payload, ctx) => {
  const now = ctx.clock.now();
  const pruned: string[] = [];
  for (const key of Object.keys(pruners) as (keyof RetentionConfig)[]) {
    const kept: Retention = payload.retention[key];
    if (kept === FOREVER) continue;
    const table = RETAINED_TABLES[key];
    const removed = await pruners[key](ctx.store, now - kept, {
      batchSize: payload.batchSize,
      signal: ctx.signal,
      onBatch: (n) => ctx.countRemoved(table, n),
    });
    if (key === 'exportedTransactions') {
      const files = await pruneExportFiles(ctx.store, seconds(now - kept));
      if (files > 0) ctx.log.info({ files }, 'export files removed: every row they brought was pruned');
    }
    ctx.log.debug({ table, removed }, 'table pruned');
    pruned.push(table);
  }
  await ctx.store.reclaimSpace(pruned);
};
