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
  cost: (section) => {
    const attempts = section.belowQuorumPauses.length + 1;
    return {
      // Once stored, a hash is never asked again; one not signed yet is asked on later runs (after a
      // 404 each run; below quorum or refused, after its backoff).
      steady: {},
      worst: { signatures: new Set(section.txHashes).size * attempts },
      note: `a stored hash is never fetched again; the worst case is a run in which every hash is below quorum (${attempts} attempts each)`,
    };
  },
});
