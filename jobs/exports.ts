/**
 * Transaction exports: two queue-shaped handlers over the lifecycle in src/exports/.
 *
 * - `exports` (scheduled): creates the operations due now and returns an `export-poll`
 *   continuation for each operation it created and each one with work left in the database.
 *   With `wait` set (`run exports`), it runs those continuations in-process instead. With
 *   `reload` (`run exports --reload <name>`), it first reopens that definition's unreadable files.
 * - `export-poll` (a continuation): one step of one operation (a status read, the download and
 *   load of its file, its truncated remainder or its retry), returning the next continuation.
 */
import { advanceExport, EXPORT_POLL_JOB, type ExportsSettings } from '../src/exports/lifecycle.js';
import { runExportsPass } from '../src/exports/pass.js';
import { pollDelayMs } from '../src/exports/policy.js';
import { reloadExportFiles } from '../src/exports/reload.js';
import { runExportsInProcess } from '../src/exports/wait.js';
import { defineJob, withoutSchedule } from '../src/kernel/job.js';
import { JobFailedError, type JobHandler } from '../src/kernel/run.js';

export { exportRequest, requestHash, windowDates } from '../src/exports/requests.js';
export { EXPORT_POLL_JOB };
export const EXPORTS_JOB = 'exports';

export type ExportsPayload = ExportsSettings & {
  /**
   * `run exports` only. true: poll, download and load in this process until nothing runs (or
   * `maxWait` passes); false: poll each operation once. Absent (the queue): return continuations.
   */
  wait?: boolean;
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
  if (payload.reload !== undefined) await reloadExportFiles(ctx, payload, payload.reload);
  if (payload.wait === undefined) return { continuations: await runExportsPass(ctx, payload) };
  return runExportsInProcess(ctx, payload, payload.wait ? 'until-done' : 'once');
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
  return { continuations: await advanceExport(ctx, payload, operationId, poll) };
};

/** Status reads of one export that runs until `timeout`, at the growing poll intervals: the worst case for `plan`. */
function pollsUntilTimeout(s: ExportsSettings): number {
  let elapsed = 0;
  let n = 0;
  while (elapsed < s.timeout && n < 10_000) elapsed += pollDelayMs(n++, s);
  return n;
}

export const exportsDefinition = defineJob({
  name: EXPORTS_JOB,
  configKey: 'exports',
  handler: exportsJob,
  // `run exports` says wait (true, or false with --no-wait); the queue says nothing.
  payload: (section, args) => ({
    ...withoutSchedule(section),
    ...(typeof args.wait === 'boolean' && { wait: args.wait }),
    ...(typeof args.reload === 'string' && { reload: args.reload }),
  }),
  cost: (section) => {
    const n = section.definitions.length;
    const polls = pollsUntilTimeout(section);
    return {
      steady: { createExport: n, getOperation: n * 3 },
      worst: {
        createExport: n * (1 + section.maxRetries),
        getOperation: n * (1 + section.maxRetries) * polls,
      },
      note: `${n} definition(s); an export that runs until its timeout is read ${polls} times`,
    };
  },
});

/** One step of one export operation; only the queue starts it (as a continuation). */
export const exportPollDefinition = defineJob({
  name: EXPORT_POLL_JOB,
  configKey: 'exports',
  handler: exportPollJob,
  scheduled: false,
  payload: (section, args) => ({
    ...withoutSchedule(section),
    operationId: String(args.operationId ?? ''),
    ...(typeof args.poll === 'number' && { poll: args.poll }),
  }),
});
