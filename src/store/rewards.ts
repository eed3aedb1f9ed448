import { getTableColumns } from 'drizzle-orm';
import { canonicalNetwork, type HistoricalReward } from '../upstream/index.js';
import { memo } from './memo.js';
import type { Store } from './open.js';
import { rewardAddresses, rewards } from './schema.js';
import { createUpsert } from './upsert.js';

type Row = typeof rewards.$inferInsert;

/** Addresses as the API returns them, without a `P-`/`X-` chain prefix. */
export function bareAddress(address: string): string {
  return address.replace(/^[PX]-/, '');
}

export function rewardRow(reward: HistoricalReward, network: string, seenAt: string): Row {
  const price = reward.reward.historicalPrice;
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
    priceCurrency: price?.currencyCode ?? null,
    priceValue: price?.value ?? null,
    addresses: JSON.stringify(reward.addresses),
    firstSeenAt: seenAt,
    lastSeenAt: seenAt,
  };
}

const updateColumns = (Object.keys(getTableColumns(rewards)) as (keyof Row)[]).filter(
  (c) => !['network', 'utxoId', 'firstSeenAt', 'lastSeenAt'].includes(c),
);

/**
 * Upserts a page of rewards and their address links; returns how many rewards were new or changed.
 * A price, once known, is kept when a later answer has none (the API prices only rewards older than
 * 24 h, and a re-read must never erase one); a new price (another currency) replaces it.
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
      keepWhenNull: ['priceCurrency', 'priceValue'],
      touch: 'lastSeenAt',
    }),
  );
  const link = memo(store, 'rewards.addresses', () =>
    createUpsert(store.sqlite, rewardAddresses, { key: ['network', 'utxoId', 'address'], update: [] }),
  );
  const net = canonicalNetwork(network);
  const rows = items.map((r) => rewardRow(r, network, seenAt));
  const written = upsert(rows);
  link(
    items.flatMap((r) =>
      r.addresses.map((address) => ({ network: net, utxoId: r.utxoId, address: bareAddress(address) })),
    ),
  );
  return written;
}
