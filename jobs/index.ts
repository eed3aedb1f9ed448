import type { Job } from '../src/kernel/index.js';
import { exportPollDefinition, exportsDefinition } from './exports.definition.js';
import { maintenanceJob } from './maintenance.definition.js';
import { rewardsJob } from './rewards.definition.js';
import { signaturesJob } from './signatures.definition.js';
import { supplyJob } from './supply.definition.js';
import { transactionsJob } from './transactions.definition.js';
import { usageMetricsJob } from './usage-metrics.definition.js';
import { validatorsJob } from './validators.definition.js';

/**
 * Every job the collector knows: adding one is its definition and its handler in jobs/ and a line
 * here. The definitions are light (no store, no HTTP client): a command that only reads them, as
 * `config check` and `plan` do, never loads what the handlers run on.
 */
export const jobs: readonly Job[] = [
  supplyJob,
  transactionsJob,
  rewardsJob,
  validatorsJob,
  usageMetricsJob,
  signaturesJob,
  exportsDefinition,
  exportPollDefinition,
  maintenanceJob,
];

/** The jobs the scheduler fires (the others are follow-ups only the queue starts). */
export const scheduledJobNames = jobs.filter((j) => j.scheduled).map((j) => j.name);
