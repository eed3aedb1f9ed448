/** The supply job's definition; its handler is jobs/supply.ts, imported when a run starts. */
import { defineJob } from '../src/kernel/job.js';
import { JOB_NAMES } from '../src/kernel/job-names.js';

export const supplyJob = defineJob({
  name: JOB_NAMES.supply,
  configKey: 'supply',
  table: 'supply_snapshots',
  handler: async () => (await import('./supply.js')).supply,
  payload: () => ({}),
  cost: () => ({ steady: { supply: 1 }, worst: { supply: 1 }, rows: { steady: 1, worst: 1 } }),
});
