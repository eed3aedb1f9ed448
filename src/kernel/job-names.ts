/**
 * The collector's job names, in one place: as the CLI, the queue, `job_runs`, the cursors in
 * `sync_state` and the records set aside know each job. Its definition (jobs/<job>.definition.ts)
 * names itself from here, a handler reads its own as `ctx.job`, and the code of src/ that reads
 * another job's data (the rewards cursors for `status` and /metrics, an export's follow-up)
 * imports it from here: src/ never imports jobs/. `test/unit/layout.test.ts` refuses a job's name
 * written as a literal anywhere else.
 */
export const JOB_NAMES = {
  supply: 'supply',
  transactions: 'transactions',
  rewards: 'rewards',
  usageMetrics: 'usage-metrics',
  signatures: 'signatures',
  exports: 'exports',
  exportPoll: 'export-poll',
  maintenance: 'maintenance',
} as const;

export type JobName = (typeof JOB_NAMES)[keyof typeof JOB_NAMES];
