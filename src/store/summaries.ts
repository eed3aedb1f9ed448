/**
 * The metrics summaries (description.ts, drizzle/<dialect>/*_metrics_summaries.sql). Reads: every one costs a few
 * index lookups, whatever the size of the big tables, because a scrape calls them. Writers: the
 * transactions page summary (`upsertTransactions`, transactions.ts), the export summaries (after an
 * exports run) and the rebuilds here; never during a scrape.
 */
import type { supplySnapshots } from './schema.js';
import type { Sql } from './sql.js';

/** The newest snapshot's values (the row without its fetch time). */
export type LatestSupply = Omit<typeof supplySnapshots.$inferSelect, 'fetchedAt'>;

/** The newest supply snapshot (by `last_updated`, the primary key: one index step). */
export function readLatestSupply(sql: Sql): Promise<LatestSupply | undefined> {
  return sql.get<LatestSupply>(
    `SELECT last_updated AS "lastUpdated", circulating_supply AS "circulatingSupply", total_supply AS "totalSupply",
        total_p_burned AS "totalPBurned", total_c_burned AS "totalCBurned", total_x_burned AS "totalXBurned",
        total_staked AS "totalStaked", total_locked AS "totalLocked", total_rewards AS "totalRewards",
        genesis_unlock AS "genesisUnlock", l1_validator_fees AS "l1ValidatorFees"
       FROM supply_snapshots ORDER BY last_updated DESC LIMIT 1`,
  );
}

export interface TransactionSummary {
  network: string;
  chainId: string;
  transactions: number;
  newestBlockTimestamp: number;
}

/**
 * Recounts transaction_summaries from the transactions table: a full scan, for rows written by
 * other means than `upsertTransactions` (a restore, a bulk load), never on a scrape.
 */
export async function rebuildTransactionSummaries(sql: Sql): Promise<void> {
  await sql.transaction(async (tx) => {
    await tx.exec(`
      DELETE FROM transaction_summaries;
      INSERT INTO transaction_summaries (network, chain_id, transactions, newest_block_timestamp)
      SELECT network, chain_id, count(*), max(block_timestamp) FROM transactions GROUP BY network, chain_id;
    `);
  });
}

/** One row per (network, chain) ever stored. */
export function readTransactionSummaries(sql: Sql): Promise<TransactionSummary[]> {
  return sql.all<TransactionSummary>(
    `SELECT network, chain_id AS "chainId", transactions, newest_block_timestamp AS "newestBlockTimestamp"
     FROM transaction_summaries WHERE transactions > 0 ORDER BY network, chain_id`,
  );
}

export type RewardSubjectKind = 'address' | 'node_id';

/** The rewards of one subject and reward type, over every price currency. */
export interface RewardTotals {
  subjectKind: RewardSubjectKind;
  subject: string;
  rewardType: string;
  rewards: number;
  /** Sum of the amounts in smallest units (nAVAX), exact decimal text. */
  amount: string;
  /** Sum of amount × price over the rewards priced in the currency asked for (0 when none is). */
  value: number;
  newestEndTimestamp: number;
}

/**
 * Reward totals of the given subjects (addresses without a chain prefix, node ids) on a network,
 * valued in `currency`: one primary-key range per subject, one statement per kind.
 */
export async function readRewardTotals(
  sql: Sql,
  network: string,
  currency: string,
  subjects: readonly { kind: RewardSubjectKind; subject: string }[],
): Promise<RewardTotals[]> {
  const out: RewardTotals[] = [];
  for (const kind of ['address', 'node_id'] as const) {
    const ofKind = subjects.filter((s) => s.kind === kind).map((s) => s.subject);
    if (ofKind.length === 0) continue;
    const inList = sql.inList('s.subject', ofKind);
    const rows = await sql.all<Omit<RewardTotals, 'subjectKind'>>(
      `SELECT s.subject, s.reward_type AS "rewardType", s.rewards, CAST(s.amount AS TEXT) AS amount,
         coalesce(v.value, 0.0) AS value, s.newest_end_timestamp AS "newestEndTimestamp"
       FROM reward_summaries s
       LEFT JOIN reward_value_summaries v ON v.network = s.network AND v.subject_kind = s.subject_kind
         AND v.subject = s.subject AND v.reward_type = s.reward_type AND v.currency = ?
       WHERE s.network = ? AND s.subject_kind = ? AND ${inList.clause} AND s.rewards > 0`,
      [currency, network, kind, inList.param],
    );
    for (const row of rows) out.push({ ...row, subjectKind: kind });
  }
  return out;
}

export interface UsageBucketRow {
  source: string;
  scope: string;
  timeInterval: string;
  groupBy: string;
  bucketTimestamp: number;
  groupValue: string;
  totalRequests: number;
  apiCreditsUsed: number;
  apiCreditsWasted: number;
  successRatePercent: number;
  medianResponseTimeMsecs: number;
  invalidRequests: number;
}

/** Every row of the newest bucket of every usage-metrics series (a primary-key range per series). */
export function readLatestUsageBuckets(sql: Sql): Promise<UsageBucketRow[]> {
  return sql.all<UsageBucketRow>(
    `SELECT u.source, u.scope, u.time_interval AS "timeInterval", u.group_by AS "groupBy",
       u.bucket_timestamp AS "bucketTimestamp", u.group_value AS "groupValue",
       u.total_requests AS "totalRequests", u.api_credits_used AS "apiCreditsUsed",
       u.api_credits_wasted AS "apiCreditsWasted", u.success_rate_percent AS "successRatePercent",
       u.median_response_time_msecs AS "medianResponseTimeMsecs", u.invalid_requests AS "invalidRequests"
     FROM usage_summaries s
     JOIN usage_metrics u ON u.source = s.source AND u.scope = s.scope AND u.time_interval = s.time_interval
       AND u.group_by = s.group_by AND u.bucket_timestamp = s.latest_bucket_timestamp
     ORDER BY u.source, u.scope, u.time_interval, u.group_by, u.total_requests DESC, u.group_value`,
  );
}

/** How many of `txHashes` have a stored signature on `network` (one primary-key lookup each). */
export async function countStoredSignatures(
  sql: Sql,
  network: string,
  txHashes: readonly string[],
): Promise<number> {
  let found = 0;
  for (const hash of new Set(txHashes)) {
    if (await sql.get('SELECT 1 FROM signatures WHERE network = ? AND tx_hash = ?', [network, hash])) found++;
  }
  return found;
}

export interface JobSummary {
  job: string;
  lastStatus: string;
  lastStartedAt: string;
  lastFinishedAt: string;
  lastSuccessAt: string | null;
}

export function readJobSummaries(sql: Sql): Promise<JobSummary[]> {
  return sql.all<JobSummary>(
    `SELECT job, last_status AS "lastStatus", last_started_at AS "lastStartedAt",
       last_finished_at AS "lastFinishedAt", last_success_at AS "lastSuccessAt"
     FROM job_summaries ORDER BY job`,
  );
}

export interface ExportSummary {
  exportName: string;
  latestStatus: string;
  bytesDownloaded: number;
  filesDownloaded: number;
  rowsLoaded: number;
  lastCompletedAtMs: number | null;
  /** Operations per status. */
  statuses: Record<string, number>;
  /** Downloaded files per load status (`pending`, `loaded`, `unsupported`, `broken`, `failed`). */
  files: Record<string, number>;
}

export async function readExportSummaries(sql: Sql): Promise<ExportSummary[]> {
  const byName = new Map<string, ExportSummary>();
  const summaries = await sql.all<Omit<ExportSummary, 'statuses'>>(
    `SELECT export_name AS "exportName", latest_status AS "latestStatus", bytes_downloaded AS "bytesDownloaded",
       files_downloaded AS "filesDownloaded", rows_loaded AS "rowsLoaded", last_completed_at_ms AS "lastCompletedAtMs"
     FROM export_summaries ORDER BY export_name`,
  );
  for (const row of summaries) byName.set(row.exportName, { ...row, statuses: {}, files: {} });
  const counts = await sql.all<{ exportName: string; status: string; operations: number }>(
    'SELECT export_name AS "exportName", status, operations FROM export_status_counts ORDER BY export_name, status',
  );
  for (const row of counts) {
    const summary = byName.get(row.exportName);
    if (summary) summary.statuses[row.status] = row.operations;
  }
  const files = await sql.all<{ exportName: string; loadStatus: string; files: number }>(
    'SELECT export_name AS "exportName", load_status AS "loadStatus", files FROM export_file_counts ORDER BY export_name, load_status',
  );
  for (const row of files) {
    const summary = byName.get(row.exportName);
    if (summary) summary.files[row.loadStatus] = row.files;
  }
  return [...byName.values()];
}

/**
 * Recomputes the export summaries from export_operations and export_files, in one transaction:
 * operations per status, files per load status, the newest one's status, bytes downloaded, rows
 * loaded (files whose load finished), the newest completion. Their size is one row per operation (a few per definition and
 * day), and this runs after an exports run (and at start-up), not on a scrape. Two at once (two
 * hosts) take turns.
 */
export async function refreshExportSummaries(sql: Sql): Promise<void> {
  await sql.transaction(
    async (tx) => {
      await tx.exec(`
      DELETE FROM export_status_counts;
      INSERT INTO export_status_counts (export_name, status, operations)
      SELECT export_name, ${EFFECTIVE_STATUS}, count(*) FROM export_operations GROUP BY 1, 2;
      DELETE FROM export_file_counts;
      INSERT INTO export_file_counts (export_name, load_status, files)
      SELECT o.export_name, f.load_status, count(*)
      FROM export_files f JOIN export_operations o ON o.operation_id = f.operation_id GROUP BY 1, 2;
      DELETE FROM export_summaries;
      INSERT INTO export_summaries
        (export_name, latest_status, bytes_downloaded, files_downloaded, rows_loaded, last_completed_at_ms)
      SELECT o.export_name,
        (SELECT ${EFFECTIVE_STATUS} FROM export_operations l WHERE l.export_name = o.export_name
          ORDER BY l.created_at_ms DESC, l.recorded_at DESC LIMIT 1),
        coalesce(sum(f.size_bytes), 0), count(f.operation_id),
        coalesce(sum(CASE WHEN f.loaded_at IS NOT NULL THEN f.rows_loaded END), 0),
        max(CASE WHEN o.status IN ('COMPLETED', 'COMPLETED_WITH_WARNING') THEN o.updated_at_ms END)
      FROM export_operations o LEFT JOIN export_files f ON f.operation_id = o.operation_id
      GROUP BY o.export_name;
    `);
    },
    { lock: 'export-summaries' },
  );
}

/** The API's status, or GAVE_UP for a RUNNING operation the collector stopped polling (its `timeout`). */
const EFFECTIVE_STATUS =
  "CASE WHEN status = 'RUNNING' AND gave_up_at IS NOT NULL THEN 'GAVE_UP' ELSE status END";
