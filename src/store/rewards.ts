import { and, asc, eq, getTableColumns, gte, lt, sql } from 'drizzle-orm';
import { canonicalNetwork, type HistoricalReward } from '../upstream/index.js';
import { memo } from './memo.js';
import type { Store } from './open.js';
import { rewardAddresses, rewardPrices, rewards } from './schema.js';
import { createUpsert } from './upsert.js';

type Row = typeof rewards.$inferInsert;
type PriceRow = typeof rewardPrices.$inferInsert;

/** Addresses as the API returns them, without a `P-`/`X-` chain prefix. */
export function bareAddress(address: string): string {
  return address.replace(/^[PX]-/, '');
}

export function rewardRow(reward: HistoricalReward, network: string, seenAt: string): Row {
  return {
    network: canonicalNetwork(network),
    utxoId: reward.utxoId,
    txHash: reward.txHash,
    rewardTxHash: reward.rewardTxHash,
    outputIndex: reward.outputIndex,
    nodeId: reward.nodeId,
    rewardType: reward.rewardType,
    amountStaked: reward.amountStaked,
    startTimestamp: reward.startTimestamp,
    endTimestamp: reward.endTimestamp,
    assetId: reward.reward.assetId,
    assetName: reward.reward.name,
    assetSymbol: reward.reward.symbol,
    assetDenomination: reward.reward.denomination,
    assetType: reward.reward.type,
    amount: reward.reward.amount,
    addresses: JSON.stringify(reward.addresses),
    firstSeenAt: seenAt,
    lastSeenAt: seenAt,
  };
}

const updateColumns = (Object.keys(getTableColumns(rewards)) as (keyof Row)[]).filter(
  (c) => !['network', 'utxoId', 'firstSeenAt', 'lastSeenAt'].includes(c),
);

/** The reward's price row, when the API priced it (rewards older than 24 h). */
export function rewardPriceRow(
  reward: HistoricalReward,
  network: string,
  seenAt: string,
): PriceRow | undefined {
  const price = reward.reward.historicalPrice;
  if (!price) return undefined;
  return {
    network: canonicalNetwork(network),
    utxoId: reward.utxoId,
    currency: price.currencyCode,
    value: price.value,
    fetchedAt: seenAt,
  };
}

/**
 * Upserts a page of rewards, their prices and their address links; returns the rows of `rewards`
 * and `reward_prices` that were new or changed. Prices are kept per currency: a price, once known,
 * is never erased (a later answer without one writes no price row), and collecting in another
 * currency adds that currency's prices beside the first's.
 */
export function upsertRewards(
  store: Store,
  network: string,
  items: readonly HistoricalReward[],
  seenAt: string,
): number {
  if (items.length === 0) return 0;
  const upsert = memo(store, 'rewards.upsert', () =>
    createUpsert(store.sqlite, rewards, {
      key: ['network', 'utxoId'],
      update: updateColumns,
      touch: 'lastSeenAt',
    }),
  );
  const upsertPrices = memo(store, 'rewards.prices', () =>
    createUpsert(store.sqlite, rewardPrices, {
      key: ['network', 'utxoId', 'currency'],
      update: ['value', 'fetchedAt'],
      compare: ['value'],
    }),
  );
  const link = memo(store, 'rewards.addresses', () =>
    createUpsert(store.sqlite, rewardAddresses, { key: ['network', 'utxoId', 'address'], update: [] }),
  );
  const net = canonicalNetwork(network);
  const rows = items.map((r) => rewardRow(r, network, seenAt));
  const written = upsert(rows);
  const prices = items.flatMap((r) => rewardPriceRow(r, network, seenAt) ?? []);
  const pricesWritten = upsertPrices(prices);
  link(
    items.flatMap((r) =>
      r.addresses.map((address) => ({ network: net, utxoId: r.utxoId, address: bareAddress(address) })),
    ),
  );
  return written + pricesWritten;
}

/** A reward as reports read it: its price in one currency (null: none stored) and its addresses. */
export interface PricedReward {
  utxoId: string;
  nodeId: string;
  rewardType: string;
  /** Unix seconds. */
  endTimestamp: number;
  /** Smallest units, decimal text. */
  amount: string;
  assetDenomination: number;
  price: string | null;
  /** Bare addresses (reward_addresses). */
  addresses: string[];
}

/** Rewards of `network` that ended in [fromSec, untilSec), oldest first, priced in `currency`. */
export function listPricedRewards(
  store: Store,
  network: string,
  currency: string,
  fromSec: number,
  untilSec: number,
): PricedReward[] {
  const net = canonicalNetwork(network);
  const inRange = and(
    eq(rewards.network, net),
    gte(rewards.endTimestamp, fromSec),
    lt(rewards.endTimestamp, untilSec),
  );
  const rows = store.db
    .select({
      utxoId: rewards.utxoId,
      nodeId: rewards.nodeId,
      rewardType: rewards.rewardType,
      endTimestamp: rewards.endTimestamp,
      amount: rewards.amount,
      assetDenomination: rewards.assetDenomination,
      price: rewardPrices.value,
    })
    .from(rewards)
    .leftJoin(
      rewardPrices,
      and(
        eq(rewardPrices.network, rewards.network),
        eq(rewardPrices.utxoId, rewards.utxoId),
        eq(rewardPrices.currency, currency),
      ),
    )
    .where(inRange)
    .orderBy(asc(rewards.endTimestamp), asc(rewards.utxoId))
    .all();
  const links = store.db
    .select({ utxoId: rewardAddresses.utxoId, address: rewardAddresses.address })
    .from(rewardAddresses)
    .innerJoin(
      rewards,
      and(eq(rewards.network, rewardAddresses.network), eq(rewards.utxoId, rewardAddresses.utxoId)),
    )
    .where(inRange)
    .orderBy(asc(rewardAddresses.address))
    .all();
  const addresses = new Map<string, string[]>();
  for (const l of links) {
    const list = addresses.get(l.utxoId) ?? [];
    list.push(l.address);
    addresses.set(l.utxoId, list);
  }
  return rows.map((r) => ({ ...r, addresses: addresses.get(r.utxoId) ?? [] }));
}

/** The currencies prices were collected in on `network`, sorted. */
export function listPriceCurrencies(store: Store, network: string): string[] {
  return store.db
    .selectDistinct({ currency: rewardPrices.currency })
    .from(rewardPrices)
    .where(eq(rewardPrices.network, canonicalNetwork(network)))
    .orderBy(asc(rewardPrices.currency))
    .all()
    .map((r) => r.currency);
}

/** True when a stored reward of `network` belongs to the address or is paid for the node id. */
export function hasRewardsFor(store: Store, network: string, addressOrNodeId: string): boolean {
  const net = canonicalNetwork(network);
  const id = bareAddress(addressOrNodeId);
  const found = id.startsWith('NodeID-')
    ? store.db
        .select({ one: sql<number>`1` })
        .from(rewards)
        .where(and(eq(rewards.network, net), eq(rewards.nodeId, id)))
        .limit(1)
        .get()
    : store.db
        .select({ one: sql<number>`1` })
        .from(rewardAddresses)
        .where(and(eq(rewardAddresses.network, net), eq(rewardAddresses.address, id)))
        .limit(1)
        .get();
  return found !== undefined;
}
