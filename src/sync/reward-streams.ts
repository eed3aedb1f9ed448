/**
 * The streams of the rewards job: configured addresses and node ids batched into requests, one
 * cursor each. The job walks them; `plan` and `status` count them (so they live here, in src/,
 * where both can read them).
 */
import { createHash } from 'node:crypto';
import type { RewardsJobConfig } from '../config/index.js';
import { bareAddress, canonicalNetwork } from '../upstream/endpoints.js';

type RewardsPayload = Pick<RewardsJobConfig, 'network' | 'addresses' | 'nodeIds' | 'currency'>;

/**
 * Longest request URL a batch may produce. A request costs 100 compute units whatever the length of
 * its `addresses`/`nodeIds` list, so lists are batched; 4,000 characters stays well under the 8 KiB
 * request-line limits of common proxies and CDNs (nginx's default buffers, CloudFront's 8,192 bytes),
 * and fits about 85 addresses or 90 node ids per request.
 */
export const MAX_REWARDS_URL_LENGTH = 4_000;

/** Room for the origin, the path and the other query parameters. */
const URL_OVERHEAD = 300;

/** Splits ids into comma-separated lists whose encoded length fits the URL budget (order kept, so
 * appending ids to the config only changes the last batch and its cursor). */
export function batchIds(ids: readonly string[], budget = MAX_REWARDS_URL_LENGTH - URL_OVERHEAD): string[][] {
  const batches: string[][] = [];
  let current: string[] = [];
  let length = 0;
  for (const id of [...new Set(ids)]) {
    const size = encodeURIComponent(id).length;
    if (current.length && length + 3 + size > budget) {
      batches.push(current);
      current = [];
      length = 0;
    }
    length += current.length ? 3 + size : size; // "%2C" between ids
    current.push(id);
  }
  if (current.length) batches.push(current);
  return batches;
}

/**
 * One cursor per batch and price currency: prices come in the currency asked for, so a new
 * currency reads the batch's history again (once) to price every reward in it too.
 */
function batchScope(
  network: string,
  currency: string,
  kind: 'addresses' | 'nodeIds',
  ids: readonly string[],
): string {
  const digest = createHash('sha256').update(ids.join(',')).digest('hex').slice(0, 16);
  return `${canonicalNetwork(network)}/${kind}/${currency}/${digest}`;
}

/** The batched queries of a run: one stream each (the planner counts them too). */
export function rewardQueries(
  payload: Pick<RewardsPayload, 'addresses' | 'nodeIds'>,
): { kind: 'addresses' | 'nodeIds'; ids: string[] }[] {
  return [
    ...batchIds(payload.addresses.map(bareAddress)).map((ids) => ({ kind: 'addresses' as const, ids })),
    ...batchIds(payload.nodeIds).map((ids) => ({ kind: 'nodeIds' as const, ids })),
  ];
}

/** The streams of a run, each with its cursor's scope: what `status` reads a backfill's progress from. */
export function rewardStreams(
  payload: Pick<RewardsPayload, 'network' | 'currency' | 'addresses' | 'nodeIds'>,
): { kind: 'addresses' | 'nodeIds'; ids: string[]; scope: string }[] {
  return rewardQueries(payload).map((q) => ({
    ...q,
    scope: batchScope(payload.network, payload.currency, q.kind, q.ids),
  }));
}

/**
 * Pages of one node a run at most: 300 cycles (years of them), a longer first read going on from its
 * cursor on the next run; what the job's declared worst case counts.
 */
export const CYCLES_MAX_PAGES = 3;
