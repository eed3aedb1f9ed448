import { createHash } from 'node:crypto';
import type { RewardsJobConfig } from '../src/config/index.js';
import type { JobHandler } from '../src/kernel/index.js';
import { defineJob, withoutSchedule } from '../src/kernel/index.js';
import { bareAddress, upsertRewards } from '../src/store/index.js';
import { syncNewestFirst } from '../src/sync/newest-first.js';
import { canonicalNetwork, type HistoricalReward } from '../src/upstream/index.js';

export type RewardsPayload = Pick<
  RewardsJobConfig,
  'network' | 'addresses' | 'nodeIds' | 'currency' | 'pageSize' | 'maxPages'
>;

/**
 * Longest request URL a batch may produce. A request costs 100 compute units whatever the length of
 * its `addresses`/`nodeIds` list, so lists are batched; 4,000 characters stays well under the 8 KiB
 * request-line limits of common proxies and CDNs (nginx's default buffers, CloudFront's 8,192 bytes),
 * and fits about 85 addresses or 90 node ids per request.
 */
export const MAX_REWARDS_URL_LENGTH = 4_000;

/** Room for the origin, the path and the other query parameters. */
const URL_OVERHEAD = 300;

/**
 * Rewards are priced only once they are older than 24 h, so each run re-reads the last 25 h below
 * the mark: a reward first stored without its price gets it on a later run.
 */
const PRICE_SETTLE_SECONDS = 25 * 3600;

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

/** GET /v1/networks/{network}/rewards, batched, newest first; the first run backfills the history. */
export const rewards: JobHandler<RewardsPayload> = async (payload, ctx) => {
  const queries = rewardQueries(payload);
  for (const [i, { kind, ids }] of queries.entries()) {
    const now = () => new Date(ctx.clock.now()).toISOString();
    // A first backfill reads up to maxPages pages per batch: the terminal shows how far it got.
    const task = `rewards batch ${i + 1}/${queries.length} (${ids.length} ${kind === 'addresses' ? 'addresses' : 'node ids'})`;
    let pages = 0;
    const result = await syncNewestFirst<HistoricalReward>({
      store: ctx.store,
      job: 'rewards',
      scope: batchScope(payload.network, payload.currency, kind, ids),
      fetchPage: async (pageToken) => {
        const page = await ctx.client.listHistoricalRewards(
          {
            network: payload.network,
            [kind]: ids,
            currency: payload.currency,
            sortOrder: 'desc',
            pageSize: payload.pageSize,
            pageToken,
          },
          { signal: ctx.signal },
        );
        ctx.progress.update(task, ++pages, payload.maxPages, 'pages');
        return page;
      },
      mark: (r) => ({ ts: r.endTimestamp, id: r.utxoId }),
      reached: (r, mark) => r.endTimestamp < mark.ts - PRICE_SETTLE_SECONDS,
      write: (tx, items) => upsertRewards(tx, payload.network, items, now()),
      countRows: ctx.countRows,
      maxPages: payload.maxPages,
      backfill: true,
      now,
    }).finally(() => ctx.progress.end(task));
    ctx.log.debug({ kind, ids: ids.length, ...result }, 'rewards batch synced');
  }
};

export const rewardsJob = defineJob({
  name: 'rewards',
  configKey: 'rewards',
  table: 'rewards',
  handler: rewards,
  payload: (section) => withoutSchedule(section),
  cost: (section) => {
    const batches = rewardQueries(section).length;
    return {
      steady: { rewards: batches },
      worst: { rewards: batches * section.maxPages },
      note: `${batches} batch(es) for ${section.addresses.length} address(es) and ${section.nodeIds.length} node id(s)`,
    };
  },
});
