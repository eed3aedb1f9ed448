/** The signatures job's definition; its handler is jobs/signatures.ts, imported when a run starts. */
import { defineJob, withoutSchedule } from '../src/kernel/job.js';
import { JOB_NAMES } from '../src/kernel/job-names.js';

export const signaturesJob = defineJob({
  name: JOB_NAMES.signatures,
  configKey: 'signatures',
  table: 'signatures',
  handler: async () => (await import('./signatures.js')).signatures,
  restore: async () => (await import('./signatures.js')).restore,
  payload: (section) => withoutSchedule(section),
  cost: (section) => ({
    steady: {},
    worst: { signatures: new Set(section.txHashes).size },
    note: 'each hash is fetched once; the worst case is the first run',
  }),
});
