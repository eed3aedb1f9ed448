import { getTableColumns } from 'drizzle-orm';
import { stakingTypeOf } from '../upstream/auto-renew.js';
import { bareAddress, canonicalNetwork, type HistoricalReward } from '../upstream/index.js';
import { rewardAddresses, rewardPrices, rewards } from './schema.js';
import { planUpsert, type Sql } from './sql.js';

type Row = typeof rewards.$inferInsert;
type PriceRow = typeof rewardPrices.$inferInsert;

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
    stakingType: stakingTypeOf(reward),
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

const upsert = planUpsert(rewards, {
  key: ['network', 'utxoId'],
  update: updateColumns,
  touch: 'lastSeenAt',
});
const upsertPrices = planUpsert(rewardPrices, {
  key: ['network', 'utxoId', 'currency'],
  update: ['value', 'fetchedAt'],
  compare: ['value'],
});
const link = planUpsert(rewardAddresses, { key: ['network', 'utxoId', 'address'], update: [] });

/**
 * Upserts a page of rewards, their prices and their address links through `sql` (the page's
 * transaction); returns the rows of `rewards` and `reward_prices` that were new or changed. Prices
 * are kept per currency: a price, once known, is never erased (a later answer without one writes no
 * price row), and collecting in another currency adds that currency's prices beside the first's.
 */
export async function upsertRewards(
  sql: Sql,
  network: string,
  items: readonly HistoricalReward[],
  seenAt: string,
): Promise<number> {
  if (items.length === 0) return 0;
  const net = canonicalNetwork(network);
  const rows = items.map((r) => rewardRow(r, network, seenAt));
  const written = await sql.upsert(upsert, rows);
  const prices = items.flatMap((r) => rewardPriceRow(r, network, seenAt) ?? []);
  const pricesWritten = await sql.upsert(upsertPrices, prices);
  await sql.upsert(
    link,
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
  /** `fixed`, `autoRenewed`, or a value a later API sent. */
  stakingType: string;
  /** Unix seconds. */
  endTimestamp: number;
  /** Smallest units, decimal text. */
  amount: string;
  assetDenomination: number;
  price: string | null;
  /** The transaction that paid it (one pays several outputs: `outputIndex` tells them apart). */
  rewardTxHash: string;
  outputIndex: number;
  /** When the rewards job last read it (ISO 8601): a reward read before it was 24 h old had no price yet. */
  lastSeenAt: string;
  /** Bare addresses (reward_addresses). */
  addresses: string[];
}

/** Rewards of `network` that ended in [fromSec, untilSec), oldest first, priced in `currency`. */
export async function listPricedRewards(
  sql: Sql,
  network: string,
  currency: string,
  fromSec: number,
  untilSec: number,
): Promise<PricedReward[]> {
  const net = canonicalNetwork(network);
  const rows = await sql.all<Omit<PricedReward, 'addresses'>>(
    `SELECT r.utxo_id AS "utxoId", r.node_id AS "nodeId", r.reward_type AS "rewardType",
       r.staking_type AS "stakingType", r.end_timestamp AS "endTimestamp", CAST(r.amount AS TEXT) AS amount,
       r.asset_denomination AS "assetDenomination", CAST(p.value AS TEXT) AS price,
       r.reward_tx_hash AS "rewardTxHash", r.output_index AS "outputIndex", r.last_seen_at AS "lastSeenAt"
     FROM rewards r
     LEFT JOIN reward_prices p ON p.network = r.network AND p.utxo_id = r.utxo_id AND p.currency = ?
     WHERE r.network = ? AND r.end_timestamp >= ? AND r.end_timestamp < ?
     ORDER BY r.end_timestamp, r.utxo_id`,
    [currency, net, fromSec, untilSec],
  );
  const links = await sql.all<{ utxoId: string; address: string }>(
    `SELECT a.utxo_id AS "utxoId", a.address
     FROM reward_addresses a
     JOIN rewards r ON r.network = a.network AND r.utxo_id = a.utxo_id
     WHERE r.network = ? AND r.end_timestamp >= ? AND r.end_timestamp < ?
     ORDER BY a.address`,
    [net, fromSec, untilSec],
  );
  const addresses = new Map<string, string[]>();
  for (const l of links) {
    const list = addresses.get(l.utxoId) ?? [];
    list.push(l.address);
    addresses.set(l.utxoId, list);
  }
  return rows.map((r) => ({ ...r, addresses: addresses.get(r.utxoId) ?? [] }));
}

/** The currencies prices were collected in on `network`, sorted. */
export async function listPriceCurrencies(sql: Sql, network: string): Promise<string[]> {
  const rows = await sql.all<{ currency: string }>(
    'SELECT DISTINCT currency FROM reward_prices WHERE network = ? ORDER BY currency',
    [canonicalNetwork(network)],
  );
  return rows.map((r) => r.currency);
}

/** True when a stored reward of `network` belongs to the address or is paid for the node id. */
export async function hasRewardsFor(sql: Sql, network: string, addressOrNodeId: string): Promise<boolean> {
  const net = canonicalNetwork(network);
  const id = bareAddress(addressOrNodeId);
  const found = id.startsWith('NodeID-')
    ? await sql.get('SELECT 1 FROM rewards WHERE network = ? AND node_id = ? LIMIT 1', [net, id])
    : await sql.get('SELECT 1 FROM reward_addresses WHERE network = ? AND address = ? LIMIT 1', [net, id]);
  return found !== undefined;
}
