/** What `report validations` reads: the stored validations of a range, and the reward rows they paid. */
import { canonicalNetwork } from '../upstream/endpoints.js';
import type { Sql } from './sql.js';

/** A stored validation as `report validations` reads it. */
export interface ReportedValidation {
  network: string;
  nodeId: string;
  txHash: string;
  status: string;
  stakingType: string;
  startTimestamp: number;
  endTimestamp: number;
  amountStaked: string;
  uptimePerformance: number | null;
  potentialValidationReward: string | null;
  potentialDelegationReward: string | null;
  validationReward: string | null;
  delegationReward: string | null;
  rewardTxHash: string | null;
}

/**
 * Primary Network validations whose period overlaps [fromSeconds, toSeconds) (either bound left out:
 * open), of `nodeIds` when some are given, on `network` when given; by node id, then start.
 */
export function listValidationsForReport(
  sql: Sql,
  o: { network?: string | undefined; nodeIds: readonly string[]; fromSeconds?: number; toSeconds?: number },
): Promise<ReportedValidation[]> {
  const where = ['primary_network = 1'];
  const params: (string | number)[] = [];
  if (o.network !== undefined) {
    where.push('network = ?');
    params.push(canonicalNetwork(o.network));
  }
  if (o.nodeIds.length > 0) {
    where.push(`node_id IN (${o.nodeIds.map(() => '?').join(', ')})`);
    params.push(...o.nodeIds);
  }
  if (o.fromSeconds !== undefined) {
    where.push('end_timestamp >= ?');
    params.push(o.fromSeconds);
  }
  if (o.toSeconds !== undefined) {
    where.push('start_timestamp < ?');
    params.push(o.toSeconds);
  }
  return sql.all<ReportedValidation>(
    `SELECT network, node_id AS "nodeId", tx_hash AS "txHash", status, staking_type AS "stakingType",
            start_timestamp AS "startTimestamp", end_timestamp AS "endTimestamp",
            amount_staked AS "amountStaked", uptime_performance AS "uptimePerformance",
            potential_validation_reward AS "potentialValidationReward",
            potential_delegation_reward AS "potentialDelegationReward",
            validation_reward AS "validationReward", delegation_reward AS "delegationReward",
            reward_tx_hash AS "rewardTxHash"
     FROM validations WHERE ${where.join(' AND ')} ORDER BY network, node_id, start_timestamp`,
    params,
  );
}

/** Whether any validation is stored at all (`report validations` on a database without: one line). */
export async function hasValidations(sql: Sql): Promise<boolean> {
  return (await sql.get<{ one: number }>('SELECT 1 AS one FROM validations LIMIT 1')) !== undefined;
}

/**
 * The stored reward rows (the rewards job's) of a node's stakes, per staking tx and reward type:
 * what `report validations` matches to each validation's own `rewards`.
 */
export function listNodeRewardAmounts(
  sql: Sql,
  network: string,
  nodeId: string,
): Promise<{ txHash: string; rewardType: string; amount: string }[]> {
  return sql.all(
    `SELECT tx_hash AS "txHash", reward_type AS "rewardType", amount FROM rewards
     WHERE network = ? AND node_id = ? AND reward_type IN ('VALIDATOR', 'VALIDATOR_FEE')`,
    [canonicalNetwork(network), nodeId],
  );
}
