import type { Job } from '../src/kernel/index.js';
import { exportPollDefinition, exportsDefinition } from './exports.js';
import { maintenanceJob } from './maintenance.js';
import { rewardsJob } from './rewards.js';
import { signaturesJob } from './signatures.js';
import { supplyJob } from './supply.js';
import { transactionsJob } from './transactions.js';
import { usageMetricsJob } from './usage-metrics.js';

/** Every job the collector knows: adding one is a file in jobs/ and a line here. */
export const jobs: readonly Job[] = [
  supplyJob,
  transactionsJob,
  rewardsJob,
  usageMetricsJob,
  signaturesJob,
  exportsDefinition,
  exportPollDefinition,
  maintenanceJob,
];

/** The jobs the scheduler fires (the others are follow-ups only the queue starts). */
export const scheduledJobNames = jobs.filter((j) => j.scheduled).map((j) => j.name);
