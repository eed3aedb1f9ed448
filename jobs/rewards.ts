/** The rewards job's handler; its definition (name, config key, cost, streams) is rewards.definition.ts. */
import type { RewardsJobConfig } from '../src/config/index.js';
import type { JobHandler } from '../src/kernel/index.js';
import { contextOf, type RestoreRecord } from '../src/kernel/index.js';
import { upsertCycles, upsertRewards } from '../src/store/index.js';
import { syncNewestFirst } from '../src/sync/newest-first.js';
import { syncAutoRenewedCycles } from '../src/sync/reward-cycles.js';
import { rewardStreams } from '../src/sync/reward-streams.js';
import { canonicalNetwork, type HistoricalReward, recheckRecord } from '../src/upstream/index.js';

export {
  batchIds,
  MAX_REWARDS_URL_LENGTH,
  rewardQueries,
  rewardStreams,
} from '../src/sync/reward-streams.js';

export type RewardsPayload = Pick<
  RewardsJobConfig,
  'network' | 'addresses' | 'nodeIds' | 'currency' | 'pageSize' | 'maxPages'
>;

/**
 * Rewards are priced only once they are older than 24 h, so each run re-reads the last 25 h below
 * the mark: a reward first stored without its price gets it on a later run.
 */
const PRICE_SETTLE_SECONDS = 25 * 3600;

/** GET /v1/networks/{network}/rewards, batched, newest first; the first run backfills the history. */
export const rewards: JobHandler<RewardsPayload> = async (payload, ctx) => {
  const queries = rewardStreams(payload);
  for (const [i, { kind, ids, scope }] of queries.entries()) {
    const now = () => new Date(ctx.clock.now()).toISOString();
    // A first backfill reads up to maxPages pages per batch: the terminal shows how far it got.
    const task = `rewards batch ${i + 1}/${queries.length} (${ids.length} ${kind === 'addresses' ? 'addresses' : 'node ids'})`;
    let pages = 0;
    const result = await syncNewestFirst<HistoricalReward>(ctx, {
      scope,
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
      // A reward is keyed by its UTXO on its network: the same one from two batches is one record.
      where: {
        keyPrefix: `${canonicalNetwork(payload.network)}:`,
        context: { network: canonicalNetwork(payload.network) },
      },
      maxPages: payload.maxPages,
      backfill: true,
    }).finally(() => ctx.progress.end(task));
    ctx.log.debug({ kind, ids: ids.length, ...result }, 'rewards batch synced');
  }
  // After the rewards: a node's first auto-renewed reward, just stored, makes its cycles read now.
  const nodes = await syncAutoRenewedCycles(payload, ctx);
  if (nodes.length > 0) ctx.log.debug({ nodes: nodes.length }, 'auto-renewed cycles synced');
};

/** A reward (or a cycle) set aside, checked again: stored (a reward with its price and addresses) when it passes. */
export const restore: RestoreRecord = async (tx, record, at) => {
  if (record.endpoint === 'validatorCycles') {
    const cycle = recheckRecord('validatorCycles', record.raw);
    if (!cycle.ok) return { rejected: cycle.rejected };
    const context = contextOf(record);
    const nodeId = String(context['nodeId'] ?? '');
    return {
      stored: await upsertCycles(tx, String(context['network'] ?? 'fuji'), nodeId, [cycle.value], at),
    };
  }
  const checked = recheckRecord('rewards', record.raw);
  if (!checked.ok) return { rejected: checked.rejected };
  const network = String(contextOf(record)['network'] ?? 'mainnet');
  return { stored: await upsertRewards(tx, network, [checked.value], at) };
};
