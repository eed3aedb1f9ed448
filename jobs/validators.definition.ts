/** The validators job's definition; its handler is jobs/validators.ts, imported when a run starts. */
import type { ValidatorsJobConfig } from '../src/config/index.js';
import { defineJob, withoutSchedule } from '../src/kernel/job.js';
import { JOB_NAMES } from '../src/kernel/job-names.js';
import { batchIds } from '../src/sync/reward-streams.js';
import { bareAddress, canonicalNetwork } from '../src/upstream/endpoints.js';

/** The section as the config resolved it: network, node ids and addresses filled from the rewards job. */
export interface ValidatorsPayload {
  network: NonNullable<ValidatorsJobConfig['network']>;
  nodeIds: string[];
  addresses: string[];
  pageSize: number;
  maxPages: number;
  pendingRewards: boolean;
  pendingRewardsEvery: number;
  observationRetention: number;
}

export function validatorsPayload(section: ValidatorsJobConfig): ValidatorsPayload {
  const rest = withoutSchedule(section);
  return {
    ...rest,
    network: section.network ?? 'mainnet',
    nodeIds: section.nodeIds ?? [],
    addresses: section.addresses ?? [],
  };
}

/** One cursor per node id: the node's history read to its end (its first run, or after `reset`). */
export function nodeScope(network: string, nodeId: string): string {
  return `${canonicalNetwork(network)}/${nodeId}`;
}

/** The pending rewards' cursor: when they were last read. */
export function pendingScope(network: string): string {
  return `${canonicalNetwork(network)}/pendingRewards`;
}

/** A pending-rewards page: the most the API answers (its `pageSize` maximum). */
export const PENDING_PAGE_SIZE = 100;

/**
 * Pages one pending-rewards batch takes for `count` pending rewards: one even when there are none,
 * one more per further 100 (each node's validation and each of its delegations is one), at most
 * `maxPages`. A run's pending rewards are only known once read, so `cost` declares the fewest (one
 * page per batch) as steady and this at `maxPages` as worst; `npm run bench -- validators` holds a
 * run against this for the counts it read.
 */
export function pendingPages(count: number, maxPages: number): number {
  return Math.min(maxPages, Math.max(1, Math.ceil(count / PENDING_PAGE_SIZE)));
}

/** The pending-rewards requests of a run: node ids and addresses batched as the rewards job batches them. */
export function pendingBatches(p: Pick<ValidatorsPayload, 'nodeIds' | 'addresses' | 'pendingRewards'>) {
  if (!p.pendingRewards) return [];
  return [
    ...batchIds(p.nodeIds).map((ids) => ({ kind: 'nodeIds' as const, ids })),
    ...batchIds(p.addresses.map(bareAddress)).map((ids) => ({ kind: 'addresses' as const, ids })),
  ];
}

export const validatorsJob = defineJob({
  name: JOB_NAMES.validators,
  configKey: 'validators',
  table: 'validations',
  handler: async () => (await import('./validators.js')).validators,
  restore: async () => (await import('./validators.js')).restore,
  payload: (section) => validatorsPayload(section),
  streams: (section) => {
    const p = validatorsPayload(section);
    return [
      ...p.nodeIds.map((nodeId) => ({
        scope: nodeScope(p.network, nodeId),
        label: `${nodeId} on ${canonicalNetwork(p.network)}`,
        firstRun: { validatorDetails: p.maxPages },
        reads: `the node's validations again, newest first, up to ${p.maxPages} page(s) (maxPages) a run until the oldest; then one page a run`,
      })),
      ...(p.pendingRewards
        ? [
            {
              scope: pendingScope(p.network),
              label: `pending rewards of ${p.nodeIds.length} node id(s) and ${p.addresses.length} address(es)`,
              firstRun: { pendingRewards: pendingBatches(p).length },
              reads: 'the pending rewards on the next run, whatever pendingRewardsEvery says',
            },
          ]
        : []),
    ];
  },
  cost: (section) => {
    const p = validatorsPayload(section);
    const nodes = p.nodeIds.length;
    const batches = pendingBatches(p).length;
    const every =
      p.pendingRewardsEvery > 0
        ? `, at most every ${Math.round(p.pendingRewardsEvery / 60_000)} min (counted on every run here: an upper bound)`
        : '';
    return {
      steady: { validatorDetails: nodes, ...(batches > 0 && { pendingRewards: batches }) },
      // Over 100 pending rewards in a batch (its node ids' delegations count) take more pages.
      worst: {
        validatorDetails: nodes * p.maxPages,
        ...(batches > 0 && { pendingRewards: batches * pendingPages(Number.POSITIVE_INFINITY, p.maxPages) }),
      },
      // Nothing new and nothing due: one page per node id.
      idle: {
        validatorDetails: nodes,
        ...(batches > 0 && p.pendingRewardsEvery === 0 && { pendingRewards: batches }),
      },
      note:
        `${nodes} node id(s), one request each; pending rewards: ${batches} batch(es), one page each ` +
        `and one more per ${PENDING_PAGE_SIZE} further pending rewards (a node's delegations count; at most ${p.maxPages}, maxPages)${every}`,
      // No `rows`: its growth (validation_observations, one row per active validation a run) is
      // bounded by observationRetention, and no row size of it is measured yet (src/store/row-sizes.ts),
      // so `plan`'s disk estimate leaves it out rather than guess.
    };
  },
});
