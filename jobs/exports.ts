/**
 * Transaction exports: two handlers over the lifecycle in src/exports/.
 *
 * - `exports` (scheduled): creates the operations due now and returns an `export-poll`
 *   continuation for each operation it created and each one with work left in the database.
 *   `run exports --reload <name>` first reopens that definition's unreadable files.
 * - `export-poll` (a continuation): one step of one operation (a status read, the download and
 *   load of its file, its truncated remainder or its retry), returning the next continuation.
 *
 * In the service the continuations are delayed queue jobs; `run exports` runs them in-process
 * (the kernel's follow-ups), waiting up to `maxWait`. Both handlers refresh the export summaries
 * that /metrics reads, whatever happened. Their definitions (names, config key, cost) are
 * exports.definition.ts.
 */
import { restoreExportRow } from '../src/exports/csv-load.js';
import { advanceExport } from '../src/exports/lifecycle.js';
import { runExportsPass } from '../src/exports/pass.js';
import { reloadExportFiles } from '../src/exports/reload.js';
import { refreshSummaries } from '../src/exports/summaries.js';
import { contextOf, JobFailedError, type JobHandler, type RestoreRecord } from '../src/kernel/index.js';
import type { ExportPollPayload, ExportsPayload } from './exports.definition.js';

export { exportRequest, requestHash, windowDates } from '../src/exports/requests.js';
export type { ExportPollPayload, ExportsPayload } from './exports.definition.js';

export const exportsJob: JobHandler<ExportsPayload> = async (payload, ctx) => {
  try {
    if (payload.reload !== undefined) await reloadExportFiles(ctx, payload, payload.reload);
    return { continuations: await runExportsPass(ctx, payload) };
  } finally {
    await refreshSummaries(ctx);
  }
};

export const exportPollJob: JobHandler<ExportPollPayload> = async (payload, ctx) => {
  const { operationId, poll } = payload;
  if (typeof operationId !== 'string' || operationId === '') {
    throw new JobFailedError('export-poll: the job data has no operationId', { unrecoverable: true });
  }
  if (poll !== undefined && (!Number.isInteger(poll) || poll < 0)) {
    throw new JobFailedError(`export-poll: poll must be a whole number, got ${String(poll)}`, {
      unrecoverable: true,
    });
  }
  try {
    return { continuations: await advanceExport(ctx, payload, operationId, poll) };
  } finally {
    await refreshSummaries(ctx);
  }
};

/** A row set aside from an export file, checked again: inserted when it passes (`--retry-rejected`). */
export const restore: RestoreRecord = (tx, record) => {
  const c = contextOf(record);
  return restoreExportRow(tx, record.raw, {
    exportName: String(c['exportName'] ?? ''),
    operationId: String(c['operationId'] ?? ''),
    operationType: String(c['operationType'] ?? ''),
  });
};
