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
 * that /metrics reads, whatever happened.
 */
import { restoreExportRow } from '../src/exports/csv-load.js';
import { advanceExport, EXPORT_POLL_JOB, type ExportsSettings, windowOf } from '../src/exports/lifecycle.js';
import { runExportsPass } from '../src/exports/pass.js';
import { pollDelayMs } from '../src/exports/policy.js';
import { reloadExportFiles } from '../src/exports/reload.js';
import { refreshSummaries } from '../src/exports/summaries.js';
import {
  contextOf,
  defineJob,
  type InProcessFollowUps,
  JobFailedError,
  type JobHandler,
  type RestoreRecord,
  withoutSchedule,
} from '../src/kernel/index.js';

export { exportRequest, requestHash, windowDates } from '../src/exports/requests.js';
export { EXPORT_POLL_JOB };
export const EXPORTS_JOB = 'exports';

export type ExportsPayload = ExportsSettings & {
  /**
   * `run exports --reload <name>`: first read the definition's unsupported files again and
   * download its failed ones again (src/exports/reload.ts).
   */
  reload?: string;
};

export type ExportPollPayload = ExportsSettings & {
  operationId: string;
  /** Status reads recorded when this poll was asked for (its dedupe id's last part). */
  poll?: number;
};

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

/** How `run exports` runs the polls in-process: up to `maxWait`, one progress unit per export window. */
export function exportsInProcess(s: Pick<ExportsSettings, 'maxWait'>): InProcessFollowUps {
  return { waitLimitMs: s.maxWait, unit: 'operations', keyOf: windowOf };
}

/** Status reads of one export within `ms` of its POST, at the growing poll intervals. */
function pollsWithin(ms: number, s: ExportsSettings): number {
  let elapsed = 0;
  let n = 0;
  for (; n < 10_000; n++) {
    elapsed += pollDelayMs(n, s);
    if (elapsed > ms) break;
  }
  return n;
}

/** Status reads of one export that runs until `timeout`: the worst case for `plan`. */
function pollsUntilTimeout(s: ExportsSettings): number {
  let elapsed = 0;
  let n = 0;
  while (elapsed < s.timeout && n < 10_000) elapsed += pollDelayMs(n++, s);
  return n;
}

/** A row set aside from an export file, checked again: inserted when it passes (`--retry-rejected`). */
const restore: RestoreRecord = (tx, record) => {
  const c = contextOf(record);
  return restoreExportRow(tx, record.raw, {
    exportName: String(c['exportName'] ?? ''),
    operationId: String(c['operationId'] ?? ''),
    operationType: String(c['operationType'] ?? ''),
  });
};

export const exportsDefinition = defineJob({
  name: EXPORTS_JOB,
  configKey: 'exports',
  handler: exportsJob,
  restore,
  payload: (section, args) => ({
    ...withoutSchedule(section),
    ...(typeof args.reload === 'string' && { reload: args.reload }),
  }),
  // `run exports` waits for the files up to maxWait (or polls each once with --no-wait).
  inProcess: exportsInProcess,
  cost: (section) => {
    const n = section.definitions.length;
    const polls = pollsUntilTimeout(section);
    return {
      steady: { createExport: n, getOperation: n * 3 },
      // A run whose windows are all exported already asks for nothing.
      idle: {},
      worst: {
        createExport: n * (1 + section.maxRetries),
        getOperation: n * (1 + section.maxRetries) * polls,
      },
      note: `${n} definition(s); an export that runs until its timeout is read ${polls} times`,
      // A run POSTs each definition's window; the reads of the first minute follow it (the rest,
      // and the retries, are spread over hours).
      burst: { createExport: n, getOperation: n * pollsWithin(60_000, section) },
    };
  },
});

/** One step of one export operation; only the queue starts it (as a continuation). */
export const exportPollDefinition = defineJob({
  name: EXPORT_POLL_JOB,
  configKey: 'exports',
  // Its loads write the exported rows (its rows_written also counts status reads and downloads).
  table: 'exported_transactions',
  handler: exportPollJob,
  scheduled: false,
  payload: (section, args) => ({
    ...withoutSchedule(section),
    operationId: String(args.operationId ?? ''),
    ...(typeof args.poll === 'number' && { poll: args.poll }),
  }),
});
