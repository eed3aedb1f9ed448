/**
 * The `cycles` table: settled cycles of ACP-236 auto-renewed validations (the rewards job's cycles
 * read), the node ids worth reading them for, and what the reports and the reconciliation read back.
 */
import { getTableColumns } from 'drizzle-orm';
import type { AutoRenewedCycle } from '../upstream/auto-renew.js';
import { bareAddress, canonicalNetwork } from '../upstream/endpoints.js';
import { cycles } from './schema.js';
import { planUpsert, type Sql } from './sql.js';

type Row = typeof cycles.$inferInsert;

export function cycleRow(c: AutoRenewedCycle, network: string, nodeId: string, seenAt: string): Row {
  return {
    network: canonicalNetwork(network),
    stakingTxHash: c.stakingTxHash,
    cycleIndex: c.cycleIndex,
    nodeId,
    rewardTxHash: c.rewardTxHash,
    startTimestamp: c.startTimestamp,
    endTimestamp: c.endTimestamp,
    weightAtCycleStart: c.weightAtCycleStart,
    grossValidationReward: c.grossValidationReward,
    withdrawnValidationReward: c.withdrawnValidationReward,
    compoundedValidationReward: c.compoundedValidationReward,
    grossDelegateeReward: c.grossDelegateeReward,
    withdrawnDelegateeReward: c.withdrawnDelegateeReward,
    compoundedDelegateeReward: c.compoundedDelegateeReward,
    autoCompoundSharePercent: c.autoCompoundSharePercent,
    outcome: c.outcome,
    delegatorCount: c.delegatorCount,
    amountDelegated: c.amountDelegated,
    firstSeenAt: seenAt,
    lastSeenAt: seenAt,
  };
}

const upsert = planUpsert(cycles, {
  key: ['network', 'stakingTxHash', 'cycleIndex'],
  update: (Object.keys(getTableColumns(cycles)) as (keyof Row)[]).filter(
    (c) => !['network', 'stakingTxHash', 'cycleIndex', 'firstSeenAt', 'lastSeenAt'].includes(c),
  ),
  touch: 'lastSeenAt',
});

/** Upserts a page of a node's settled cycles through `sql` (the page's transaction): rows new or changed. */
export async function upsertCycles(
  sql: Sql,
  network: string,
  nodeId: string,
  items: readonly AutoRenewedCycle[],
  seenAt: string,
): Promise<number> {
  if (items.length === 0) return 0;
  return sql.upsert(
    upsert,
    items.map((c) => cycleRow(c, network, nodeId, seenAt)),
  );
}

/** The keys (`stakingTxHash:cycleIndex`) of the node's stored cycles: settled, so never read again. */
export async function storedCycleKeys(sql: Sql, network: string, nodeId: string): Promise<Set<string>> {
  const rows = await sql.all<{ stakingTxHash: string; cycleIndex: number }>(
    `SELECT staking_tx_hash AS "stakingTxHash", cycle_index AS "cycleIndex" FROM cycles
     WHERE network = ? AND node_id = ?`,
    [canonicalNetwork(network), nodeId],
  );
  return new Set(rows.map((r) => cycleKey(r)));
}

export const cycleKey = (c: { stakingTxHash: string; cycleIndex: number }): string =>
  `${c.stakingTxHash}:${Number(c.cycleIndex)}`;

/**
 * The node ids whose cycles the rewards job reads: every configured node id with an auto-renewed
 * validation (a stored validation or reward of the node with `staking_type = 'autoRenewed'`), and the
 * node of a configured address's auto-renewed validator reward (`VALIDATOR`, `VALIDATOR_FEE`), sorted.
 */
export async function nodeIdsWithAutoRenewedStaking(
  sql: Sql,
  network: string,
  subjects: { nodeIds: readonly string[]; addresses: readonly string[] },
): Promise<string[]> {
  const net = canonicalNetwork(network);
  const found = new Set<string>();
  const configured = new Set(subjects.nodeIds);
  if (configured.size > 0) {
    const rows = await sql.all<{ nodeId: string }>(
      `SELECT DISTINCT node_id AS "nodeId" FROM validations WHERE network = ? AND staking_type = 'autoRenewed'
       UNION SELECT DISTINCT node_id AS "nodeId" FROM rewards WHERE network = ? AND staking_type = 'autoRenewed'`,
      [net, net],
    );
    for (const r of rows) if (configured.has(r.nodeId)) found.add(r.nodeId);
  }
  const addresses = [...new Set(subjects.addresses.map(bareAddress))];
  for (let i = 0; i < addresses.length; i += 500) {
    const batch = addresses.slice(i, i + 500);
    const rows = await sql.all<{ nodeId: string }>(
      `SELECT DISTINCT r.node_id AS "nodeId" FROM reward_addresses a
       JOIN rewards r ON r.network = a.network AND r.utxo_id = a.utxo_id
       WHERE a.network = ? AND a.address IN (${batch.map(() => '?').join(',')})
         AND r.staking_type = 'autoRenewed' AND r.reward_type IN ('VALIDATOR', 'VALIDATOR_FEE')`,
      [net, ...batch],
    );
    for (const r of rows) found.add(r.nodeId);
  }
  return [...found].sort();
}

/** A stored cycle as the reports read it. */
export interface StoredCycle {
  nodeId: string;
  stakingTxHash: string;
  cycleIndex: number;
  rewardTxHash: string;
  endTimestamp: number;
  /** nAVAX, decimal text. */
  withdrawnValidationReward: string;
  compoundedValidationReward: string;
  withdrawnDelegateeReward: string;
  compoundedDelegateeReward: string;
  outcome: string;
}

/** Every stored cycle of `network` that ended before `untilSec`, oldest first (per position, by index). */
export async function listCycles(sql: Sql, network: string, untilSec: number): Promise<StoredCycle[]> {
  const rows = await sql.all<StoredCycle>(
    `SELECT node_id AS "nodeId", staking_tx_hash AS "stakingTxHash", cycle_index AS "cycleIndex",
       reward_tx_hash AS "rewardTxHash", end_timestamp AS "endTimestamp",
       CAST(withdrawn_validation_reward AS TEXT) AS "withdrawnValidationReward",
       CAST(compounded_validation_reward AS TEXT) AS "compoundedValidationReward",
       CAST(withdrawn_delegatee_reward AS TEXT) AS "withdrawnDelegateeReward",
       CAST(compounded_delegatee_reward AS TEXT) AS "compoundedDelegateeReward", outcome
     FROM cycles WHERE network = ? AND end_timestamp < ?
     ORDER BY end_timestamp, staking_tx_hash, cycle_index`,
    [canonicalNetwork(network), untilSec],
  );
  return rows.map((r) => ({ ...r, cycleIndex: Number(r.cycleIndex), endTimestamp: Number(r.endTimestamp) }));
}

/** One position's reconciliation: compounded over its stored cycles vs the validator's `autoRenew`. */
export interface CycleReconciliation {
  network: string;
  nodeId: string;
  stakingTxHash: string;
  /** Σ compoundedValidationReward + compoundedDelegateeReward of the stored cycles, nAVAX. */
  compounded: bigint;
  /** `autoRenew.accruedValidationRewards + accruedDelegateeRewards` of the stored validation, nAVAX. */
  accrued: bigint;
  /** compounded − accrued. */
  difference: bigint;
}

/**
 * Per auto-renewed position whose validation carries an `autoRenew` with both accrued amounts: the
 * sum of its stored cycles' compounded parts against what the validator object says was restaked.
 */
export async function reconcileCycles(sql: Sql): Promise<CycleReconciliation[]> {
  const validations = await sql.all<{ network: string; nodeId: string; txHash: string; autoRenew: string }>(
    `SELECT network, node_id AS "nodeId", tx_hash AS "txHash", CAST(auto_renew AS TEXT) AS "autoRenew"
     FROM validations WHERE staking_type = 'autoRenewed' AND auto_renew IS NOT NULL
     ORDER BY network, node_id, tx_hash`,
  );
  if (validations.length === 0) return [];
  // Summed exactly here (an amount is decimal text; neither database's SUM is exact for both).
  const parts = await sql.all<{ network: string; stakingTxHash: string; v: string; d: string }>(
    `SELECT network, staking_tx_hash AS "stakingTxHash", CAST(compounded_validation_reward AS TEXT) AS v,
       CAST(compounded_delegatee_reward AS TEXT) AS d FROM cycles`,
  );
  // A position with a stored part that is no integer (a hostile or older store) has no sum to hold.
  const compounded = new Map<string, bigint | null>();
  for (const p of parts) {
    const key = `${p.network}:${p.stakingTxHash}`;
    const sum = compounded.get(key) ?? 0n;
    compounded.set(
      key,
      sum !== null && UNITS.test(p.v) && UNITS.test(p.d) ? sum + BigInt(p.v) + BigInt(p.d) : null,
    );
  }
  const out: CycleReconciliation[] = [];
  for (const v of validations) {
    const accrued = accruedOf(v.autoRenew);
    if (accrued === undefined) continue;
    const sum = compounded.get(`${v.network}:${v.txHash}`) ?? 0n;
    if (sum === null) continue;
    out.push({
      network: v.network,
      nodeId: v.nodeId,
      stakingTxHash: v.txHash,
      compounded: sum,
      accrued,
      difference: sum - accrued,
    });
  }
  return out;
}

/** Stored nAVAX: a non-negative integer, as text. */
const UNITS = /^\d+$/;

function accruedOf(json: string): bigint | undefined {
  try {
    const a = JSON.parse(json) as Record<string, unknown>;
    const v = a['accruedValidationRewards'];
    const d = a['accruedDelegateeRewards'];
    if (typeof v !== 'string' || typeof d !== 'string' || !UNITS.test(v) || !UNITS.test(d)) return undefined;
    return BigInt(v) + BigInt(d);
  } catch {
    return undefined;
  }
}

/**
 * The owner addresses of each auto-renewed position (by its staking tx), from its stored validator
 * rewards (`VALIDATOR`, `VALIDATOR_FEE`): whose compounded income a cycle is.
 */
export async function autoRenewedOwners(sql: Sql, network: string): Promise<Map<string, string[]>> {
  const rows = await sql.all<{ txHash: string; address: string }>(
    `SELECT DISTINCT r.tx_hash AS "txHash", a.address FROM rewards r
     JOIN reward_addresses a ON a.network = r.network AND a.utxo_id = r.utxo_id
     WHERE r.network = ? AND r.staking_type = 'autoRenewed' AND r.reward_type IN ('VALIDATOR', 'VALIDATOR_FEE')
     ORDER BY 1, 2`,
    [canonicalNetwork(network)],
  );
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const list = out.get(r.txHash) ?? [];
    list.push(r.address);
    out.set(r.txHash, list);
  }
  return out;
}
