/**
 * The definitions of the two export jobs, `exports` (scheduled) and `export-poll` (its
 * continuations); their handlers are jobs/exports.ts, imported when a run starts.
 */
import type { ExportsSettings } from '../src/exports/operation.js';
import { pollDelayMs } from '../src/exports/policy.js';
import { defineJob, type InProcessFollowUps, withoutSchedule } from '../src/kernel/job.js';
import { JOB_NAMES } from '../src/kernel/job-names.js';

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

/** How `run exports` runs the polls in-process: up to `maxWait`, one progress unit per export window. */
export function exportsInProcess(s: Pick<ExportsSettings, 'maxWait'>): InProcessFollowUps {
  return {
    waitLimitMs: s.maxWait,
    unit: 'operations',
    keyOf: async (c, ctx) => (await import('../src/exports/lifecycle.js')).windowOf(c, ctx),
  };
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

export const exportsDefinition = defineJob({
  name: JOB_NAMES.exports,
  configKey: 'exports',
  handler: async () => (await import('./exports.js')).exportsJob,
  restore: async () => (await import('./exports.js')).restore,
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
  name: JOB_NAMES.exportPoll,
  configKey: 'exports',
  // Its loads write the exported rows (its rows_written also counts status reads and downloads).
  table: 'exported_transactions',
  handler: async () => (await import('./exports.js')).exportPollJob,
  scheduled: false,
  payload: (section, args) => ({
    ...withoutSchedule(section),
    operationId: String(args.operationId ?? ''),
    ...(typeof args.poll === 'number' && { poll: args.poll }),
  }),
});
