/**
 * The validators job's tables: `validations` (one row per validation), `validation_observations`
 * (each run's sight of an active one), `pending_rewards` and `validator_summaries` (what /metrics and
 * `status` read, recomputed from the others in the transaction that wrote them).
 */
import { canonicalNetwork } from '../upstream/endpoints.js';
import type { PendingReward, Validator } from '../upstream/staking-schemas.js';
import { pendingRewards, validationObservations, validations, validatorSummaries } from './schema.js';
import { planUpsert, type Sql, type Store } from './sql.js';

export const PRIMARY_NETWORK_SUBNET_ID = '11111111111111111111111111111111LpoYY';
/** The statuses after which a validation never changes: the job does not ask for it again. */
export const FINAL_VALIDATION_STATUSES: readonly string[] = ['completed', 'removed'];

type Row = typeof validations.$inferInsert;

export function validationRow(v: Validator, network: string, seenAt: string): Row {
  const autoRenew = v.autoRenew;
  return {
    network: canonicalNetwork(network),
    nodeId: v.nodeId,
    txHash: v.txHash,
    subnetId: v.subnetId,
    primaryNetwork: v.subnetId === PRIMARY_NETWORK_SUBNET_ID ? 1 : 0,
    status: v.validationStatus,
    stakingType: v.stakingType ?? 'fixed',
    autoRenew: autoRenew ? JSON.stringify(autoRenew) : null,
    autoRenewState: typeof autoRenew?.state === 'string' ? autoRenew.state : null,
    startTimestamp: v.startTimestamp,
    endTimestamp: v.endTimestamp,
    amountStaked: v.amountStaked,
    delegationFee: v.delegationFee ?? null,
    delegatorCount: v.delegatorCount ?? null,
    amountDelegated: v.amountDelegated ?? null,
    delegationCapacity: v.delegationCapacity ?? null,
    uptimePerformance: v.uptimePerformance ?? null,
    reachabilityPercent: v.validatorHealth?.reachabilityPercent ?? null,
    potentialValidationReward: v.potentialRewards?.validationRewardAmount ?? null,
    potentialDelegationReward: v.potentialRewards?.delegationRewardAmount ?? null,
    validationReward: v.rewards?.validationRewardAmount ?? null,
    delegationReward: v.rewards?.delegationRewardAmount ?? null,
    rewardTxHash: v.rewards?.rewardTxHash ?? null,
    removeTxHash: v.removeTxHash ?? null,
    removeTimestamp: v.removeTimestamp ?? null,
    firstSeenAt: seenAt,
    lastSeenAt: seenAt,
  };
}

const upsertValidationPlan = planUpsert(validations, {
  key: ['network', 'nodeId', 'txHash'],
  update: [
    'subnetId',
    'primaryNetwork',
    'status',
    'stakingType',
    'autoRenew',
    'autoRenewState',
    'startTimestamp',
    'endTimestamp',
    'amountStaked',
    'delegationFee',
    'delegatorCount',
    'amountDelegated',
    'delegationCapacity',
    'uptimePerformance',
    'reachabilityPercent',
    'potentialValidationReward',
    'potentialDelegationReward',
    'validationReward',
    'delegationReward',
    'rewardTxHash',
    'removeTxHash',
    'removeTimestamp',
  ],
  // A completed answer has no uptime or potential reward: the last ones seen while active stay
  // (what the API promised, for the report).
  keepWhenNull: [
    'uptimePerformance',
    'reachabilityPercent',
    'potentialValidationReward',
    'potentialDelegationReward',
    'delegationCapacity',
  ],
  touch: 'lastSeenAt',
});

const insertObservation = planUpsert(validationObservations, {
  key: ['network', 'nodeId', 'txHash', 'observedAt'],
  update: [],
});

/**
 * Upserts a page of validations through `sql` (the page's transaction) and records an observation of
 * each active one at `seenAt`; returns the rows new or changed (observations included).
 */
export async function upsertValidations(
  sql: Sql,
  network: string,
  items: readonly Validator[],
  seenAt: string,
): Promise<number> {
  if (items.length === 0) return 0;
  const written = await sql.upsert(
    upsertValidationPlan,
    items.map((v) => validationRow(v, network, seenAt)),
  );
  const observed = items
    .filter((v) => v.validationStatus === 'active' && v.uptimePerformance !== undefined)
    .map((v) => ({
      network: canonicalNetwork(network),
      nodeId: v.nodeId,
      txHash: v.txHash,
      observedAt: seenAt,
      uptimePerformance: v.uptimePerformance as number,
      reachabilityPercent: v.validatorHealth?.reachabilityPercent ?? null,
      delegatorCount: v.delegatorCount ?? null,
      amountDelegated: v.amountDelegated ?? null,
      delegationCapacity: v.delegationCapacity ?? null,
      potentialValidationReward: v.potentialRewards?.validationRewardAmount ?? null,
      potentialDelegationReward: v.potentialRewards?.delegationRewardAmount ?? null,
    }));
  return written + (await sql.upsert(insertObservation, observed));
}

/** The node's stored validations by staking tx, with their status (what the job need not read again). */
export async function storedValidationStatuses(
  sql: Sql,
  network: string,
  nodeId: string,
): Promise<Map<string, string>> {
  const rows = await sql.all<{ txHash: string; status: string }>(
    'SELECT tx_hash AS "txHash", status FROM validations WHERE network = ? AND node_id = ?',
    [canonicalNetwork(network), nodeId],
  );
  return new Map(rows.map((r) => [r.txHash, r.status]));
}

/**
 * Node ids with an auto-renewed validation stored (`staking_type = 'autoRenewed'`) on `network`,
 * sorted: the nodes whose cycles are worth reading (the rewards job's cycles read asks this).
 */
export async function nodeIdsWithAutoRenewedValidation(sql: Sql, network: string): Promise<string[]> {
  const rows = await sql.all<{ nodeId: string }>(
    `SELECT DISTINCT node_id AS "nodeId" FROM validations
     WHERE network = ? AND staking_type = 'autoRenewed' ORDER BY 1`,
    [canonicalNetwork(network)],
  );
  return rows.map((r) => r.nodeId);
}

const upsertPending = planUpsert(pendingRewards, {
  key: ['network', 'txHash', 'rewardType'],
  update: [
    'nodeId',
    'addresses',
    'amountStaked',
    'startTimestamp',
    'endTimestamp',
    'progress',
    'estimatedAmount',
    'assetId',
    'stakingType',
  ],
  touch: 'lastSeenAt',
});

/** Upserts a page of pending rewards; returns the rows new or changed. */
export function upsertPendingRewards(
  sql: Sql,
  network: string,
  items: readonly PendingReward[],
  seenAt: string,
): Promise<number> {
  return sql.upsert(
    upsertPending,
    items.map((r) => ({
      network: canonicalNetwork(network),
      txHash: r.txHash,
      rewardType: r.rewardType,
      nodeId: r.nodeId,
      addresses: JSON.stringify(r.addresses),
      amountStaked: r.amountStaked,
      startTimestamp: r.startTimestamp,
      endTimestamp: r.endTimestamp,
      progress: r.progress,
      estimatedAmount: r.estimatedReward.amount,
      assetId: r.estimatedReward.assetId,
      stakingType: r.stakingType ?? 'fixed',
      firstSeenAt: seenAt,
      lastSeenAt: seenAt,
    })),
  );
}

/** Pending rewards whose period is over (paid now, or lost): no longer pending. */
export function deleteEndedPendingRewards(sql: Sql, network: string, nowSeconds: number): Promise<number> {
  return sql.run('DELETE FROM pending_rewards WHERE network = ? AND end_timestamp <= ?', [
    canonicalNetwork(network),
    nowSeconds,
  ]);
}

const upsertSummary = planUpsert(validatorSummaries, { key: ['network', 'nodeId'] });

type ValidationFacts = Pick<
  typeof validations.$inferSelect,
  | 'status'
  | 'primaryNetwork'
  | 'stakingType'
  | 'autoRenewState'
  | 'startTimestamp'
  | 'endTimestamp'
  | 'uptimePerformance'
  | 'reachabilityPercent'
  | 'potentialValidationReward'
  | 'potentialDelegationReward'
  | 'delegatorCount'
  | 'amountDelegated'
  | 'delegationCapacity'
  | 'validationReward'
>;

/** An auto-renewing validation (auto-renewed staking, not exiting): it is not "ending". */
export function isAutoRenewing(v: Pick<ValidationFacts, 'stakingType' | 'autoRenewState'>): boolean {
  return (
    v.stakingType === 'autoRenewed' &&
    v.autoRenewState !== 'exiting' &&
    v.autoRenewState !== 'exited' &&
    v.autoRenewState !== 'aborted'
  );
}

/**
 * Recomputes the node's `validator_summaries` row from its validations and pending rewards (a few
 * rows), through `sql`: call it in the transaction that wrote them. `known` 0 names a node id the API
 * does not know (404, or no validation at all); `pendingRewards` false (not read): no pending reward.
 */
export async function refreshValidatorSummary(
  sql: Sql,
  network: string,
  nodeId: string,
  at: string,
  options: { known: boolean; pendingRewards: boolean },
): Promise<number> {
  const net = canonicalNetwork(network);
  const rows = await sql.all<ValidationFacts>(
    `SELECT status, primary_network AS "primaryNetwork", staking_type AS "stakingType",
            auto_renew_state AS "autoRenewState", start_timestamp AS "startTimestamp",
            end_timestamp AS "endTimestamp", uptime_performance AS "uptimePerformance",
            reachability_percent AS "reachabilityPercent",
            potential_validation_reward AS "potentialValidationReward",
            potential_delegation_reward AS "potentialDelegationReward",
            delegator_count AS "delegatorCount", amount_delegated AS "amountDelegated",
            delegation_capacity AS "delegationCapacity", validation_reward AS "validationReward"
     FROM validations WHERE network = ? AND node_id = ? AND primary_network = 1`,
    [net, nodeId],
  );
  const pending = await sql.all<{ amount: string }>(
    'SELECT estimated_amount AS amount FROM pending_rewards WHERE network = ? AND node_id = ?',
    [net, nodeId],
  );
  const active = rows.find((r) => r.status === 'active');
  const newest = [...rows].sort((a, b) => b.startTimestamp - a.startTimestamp)[0];
  const shown = active ?? newest;
  const unrewarded = rows.filter((r) => r.status === 'completed' && BigInt(r.validationReward ?? '0') === 0n);
  const pendingSum = pending.reduce((sum, r) => sum + BigInt(r.amount), 0n);
  return sql.upsert(upsertSummary, [
    {
      network: net,
      nodeId,
      known: options.known ? 1 : 0,
      active: active ? 1 : 0,
      autoRenewing: active && isAutoRenewing(active) ? 1 : 0,
      endTimestamp: shown?.endTimestamp ?? null,
      periodSeconds: shown ? shown.endTimestamp - shown.startTimestamp : null,
      uptimeRatio: active?.uptimePerformance == null ? null : active.uptimePerformance / 100,
      reachabilityRatio: active?.reachabilityPercent == null ? null : active.reachabilityPercent / 100,
      potentialValidationReward: active?.potentialValidationReward ?? null,
      potentialDelegationReward: active?.potentialDelegationReward ?? null,
      delegators: active?.delegatorCount ?? null,
      amountDelegated: active?.amountDelegated ?? null,
      delegationCapacity: active?.delegationCapacity ?? null,
      unrewarded: unrewarded.length,
      newestUnrewardedEnd:
        unrewarded.length === 0 ? null : Math.max(...unrewarded.map((r) => r.endTimestamp)),
      pendingReward: options.pendingRewards ? String(pendingSum) : null,
      updatedAt: at,
    },
  ]);
}

export type ValidatorSummaryRow = typeof validatorSummaries.$inferSelect;

/** Every node's summary, in (network, node id) order, at most `limit` (the metrics' cap). */
export function listValidatorSummaries(sql: Sql, limit = 100_000): Promise<ValidatorSummaryRow[]> {
  return sql.all<ValidatorSummaryRow>(
    `SELECT network, node_id AS "nodeId", known, active, auto_renewing AS "autoRenewing",
            end_timestamp AS "endTimestamp", period_seconds AS "periodSeconds",
            uptime_ratio AS "uptimeRatio", reachability_ratio AS "reachabilityRatio",
            potential_validation_reward AS "potentialValidationReward",
            potential_delegation_reward AS "potentialDelegationReward", delegators,
            amount_delegated AS "amountDelegated", delegation_capacity AS "delegationCapacity",
            unrewarded, newest_unrewarded_end AS "newestUnrewardedEnd",
            pending_reward AS "pendingReward", updated_at AS "updatedAt"
     FROM validator_summaries ORDER BY network, node_id LIMIT ?`,
    [limit],
  );
}

/**
 * What changes whenever a `validator_summaries` row does: their count and newest `updated_at` (each
 * write of a row sets it to its run's time). `/metrics` reads the summaries again only when it
 * changes; a row rewritten at a time before the newest (the clock stepped back) shows on the next
 * run's later write.
 */
export async function validatorSummariesFingerprint(sql: Sql): Promise<string> {
  const row = await sql.get<{ n: number; newest: string | null }>(
    'SELECT COUNT(*) AS n, MAX(updated_at) AS newest FROM validator_summaries',
  );
  return `${Number(row?.n ?? 0)} ${String(row?.newest ?? '')}`;
}

/** Observations taken before `beforeIso` (validation_observations_observed_idx), in batches. */
export async function pruneValidationObservations(
  store: Store,
  beforeIso: string,
  o: { batchSize: number; signal?: AbortSignal | undefined; onBatch?: (n: number) => void },
): Promise<number> {
  const text = store.deleteBatch('validation_observations', 'observed_at < ?');
  let total = 0;
  for (;;) {
    o.signal?.throwIfAborted();
    const n = await store.run(text, [beforeIso, o.batchSize]);
    total += n;
    if (n > 0) o.onBatch?.(n);
    if (n < o.batchSize) return total;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** `reset validators`: every row of the job's tables (its cursors are sync_state's, removed by reset). */
export async function deleteValidatorsData(sql: Sql): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of ['validation_observations', 'validations', 'pending_rewards', 'validator_summaries']) {
    out[table] = await sql.run(`DELETE FROM ${table}`);
  }
  return out;
}
