import type { Config } from '../src/config/index.js';
import type { JobHandler } from '../src/runner.js';
import { type ExportsPayload, exportsJob } from './exports.js';
import { type RewardsPayload, rewards } from './rewards.js';
import { type SignaturesPayload, signatures } from './signatures.js';
import { type SupplyPayload, supply } from './supply.js';
import { type TransactionsPayload, transactions } from './transactions.js';
import { type UsageMetricsPayload, usageMetrics } from './usage-metrics.js';

export interface JobPayloads {
  supply: SupplyPayload;
  transactions: TransactionsPayload;
  rewards: RewardsPayload;
  'usage-metrics': UsageMetricsPayload;
  signatures: SignaturesPayload;
  exports: ExportsPayload;
}

export type JobName = keyof JobPayloads;

/** Job names (as the CLI and the queue know them) to handlers. */
export const jobs: { [K in JobName]: JobHandler<JobPayloads[K]> } = {
  supply,
  transactions,
  rewards,
  'usage-metrics': usageMetrics,
  signatures,
  exports: exportsJob,
};

export const jobNames = Object.keys(jobs) as JobName[];

/** The config section of each job. */
export const configKeys = {
  supply: 'supply',
  transactions: 'transactions',
  rewards: 'rewards',
  'usage-metrics': 'usageMetrics',
  signatures: 'signatures',
  exports: 'exports',
} as const satisfies Record<JobName, keyof Config['jobs']>;

/** A job's handler for callers that hold the name as data (CLI, worker); payloads come from `payloadFor`. */
export function handlerFor(name: JobName): JobHandler<unknown> {
  return jobs[name] as unknown as JobHandler<unknown>;
}

export function isJobName(name: string): name is JobName {
  return name in jobs;
}

/**
 * The payload of a configured job: its config section without `schedule`/`enabled`. Payloads carry
 * no secret, so they can sit in Redis as job data. Undefined when the job is not configured.
 */
export function payloadFor<K extends JobName>(name: K, config: Config): JobPayloads[K] | undefined {
  const section = config.jobs[configKeys[name]];
  if (!section) return undefined;
  const { schedule: _schedule, enabled: _enabled, runOnStart: _runOnStart, ...payload } = section;
  return payload as unknown as JobPayloads[K];
}
