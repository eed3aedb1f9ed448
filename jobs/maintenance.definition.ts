/** The maintenance job's definition; its handler is jobs/maintenance.ts, imported when a run starts. */
import { defineJob } from '../src/kernel/job.js';
import { JOB_NAMES } from '../src/kernel/job-names.js';

export const maintenanceJob = defineJob({
  name: JOB_NAMES.maintenance,
  configKey: 'maintenance',
  prunes: true,
  handler: async () => (await import('./maintenance.js')).maintenance,
  payload: (section, _args, config) => ({ retention: config.retention, batchSize: section.batchSize }),
  cost: () => ({ steady: {}, worst: {}, note: 'no requests: prunes by `retention`' }),
});
