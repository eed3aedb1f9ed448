import { sql } from 'drizzle-orm';
import {
  bigint,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';

/*
 * The PostgreSQL twin of schema.ts: the same tables, column names (and property names), keys,
 * indexes and defaults, in the same order (test/unit/store-schema-parity.test.ts keeps them in
 * step). Read schema.ts for what each table and column means; only the types differ:
 * - SQLite TEXT holding an exact decimal (amounts, gas, nonce, value, block numbers, prices) is
 *   `numeric`, never a float; reward_summaries.amount (an exact sum, INTEGER in SQLite) too.
 * - The collector's own ISO-8601 times (`*_at`) are `timestamptz`. Times from the API keep their
 *   unit as `bigint` (Unix seconds, ms); supply_snapshots.last_updated keeps the API's own text
 *   (it is the key, and its precision is the API's); dates (`first_date`, `next_date`:
 *   YYYY-MM-DD) stay text.
 * - Raw JSON kept as sent (rewards.addresses, export_operations.request and status_history,
 *   sync_state.cursor), and the collector's own (job_runs.rows_removed), is `jsonb`: it reads back
 *   as equivalent JSON, not the same text (keys reordered, whitespace normalized), so compare it
 *   parsed.
 * - INTEGER is `bigint` (counts, sizes, Unix times, ids), except small enumerations and
 *   denominations (`tx_type`, `*_decimals`, `asset_denomination`): `integer`. REAL is `double
 *   precision`.
 * - Composite primary keys are named `<table>_pkey`, as PostgreSQL names single-column ones
 *   (drizzle's default names pass the 63-character limit).
 * - job_runs.id is an identity column (BY DEFAULT, so a copy from SQLite can keep its ids; set
 *   the sequence past them after such a copy).
 * The store's pool parses bigint as a number, timestamptz as ISO text, jsonb as its text and
 * numeric as a string (postgres.ts), so rows come back as SQLite's do.
 */

/** Unix seconds or milliseconds, counts, sizes: all fit in 2^53, read back as numbers. */
const int8 = (name: string) => bigint(name, { mode: 'number' });
/** A time the collector wrote (ISO-8601 UTC in SQLite). */
const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'string' });

export const supplySnapshots = pgTable('supply_snapshots', {
  lastUpdated: text('last_updated').primaryKey(),
  circulatingSupply: numeric('circulating_supply').notNull(),
  totalSupply: numeric('total_supply').notNull(),
  totalPBurned: numeric('total_p_burned').notNull(),
  totalCBurned: numeric('total_c_burned').notNull(),
  totalXBurned: numeric('total_x_burned').notNull(),
  totalStaked: numeric('total_staked').notNull(),
  totalLocked: numeric('total_locked').notNull(),
  totalRewards: numeric('total_rewards').notNull(),
  genesisUnlock: numeric('genesis_unlock').notNull(),
  l1ValidatorFees: numeric('l1_validator_fees').notNull(),
  fetchedAt: timestamptz('fetched_at').notNull(),
});

export const transactions = pgTable(
  'transactions',
  {
    chainId: text('chain_id').notNull(),
    txHash: text('tx_hash').notNull(),
    network: text('network').notNull(),
    blockNumber: numeric('block_number').notNull(),
    blockTimestamp: int8('block_timestamp').notNull(),
    blockTimestampMs: int8('block_timestamp_ms'),
    blockMinDelayExcess: int8('block_min_delay_excess'),
    blockHash: text('block_hash').notNull(),
    blockIndex: int8('block_index').notNull(),
    txStatus: text('tx_status').notNull(),
    txType: integer('tx_type').notNull(),
    gasLimit: numeric('gas_limit').notNull(),
    gasUsed: numeric('gas_used').notNull(),
    gasPrice: numeric('gas_price').notNull(),
    nonce: numeric('nonce').notNull(),
    value: numeric('value').notNull(),
    fromAddress: text('from_address').notNull(),
    fromName: text('from_name'),
    fromSymbol: text('from_symbol'),
    fromDecimals: integer('from_decimals'),
    fromLogoUri: text('from_logo_uri'),
    toAddress: text('to_address'),
    toName: text('to_name'),
    toSymbol: text('to_symbol'),
    toDecimals: integer('to_decimals'),
    toLogoUri: text('to_logo_uri'),
    methodCallType: text('method_call_type'),
    methodHash: text('method_hash'),
    methodName: text('method_name'),
    firstSeenAt: timestamptz('first_seen_at').notNull(),
    lastSeenAt: timestamptz('last_seen_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'transactions_pkey', columns: [t.chainId, t.txHash] }),
    index('transactions_block_timestamp_idx').on(t.blockTimestamp),
    index('transactions_chain_time_idx').on(t.chainId, t.blockTimestamp),
    index('transactions_from_idx').on(t.fromAddress),
    index('transactions_to_idx').on(t.toAddress),
  ],
);

export const rewards = pgTable(
  'rewards',
  {
    network: text('network').notNull(),
    utxoId: text('utxo_id').notNull(),
    txHash: text('tx_hash').notNull(),
    rewardTxHash: text('reward_tx_hash').notNull(),
    outputIndex: int8('output_index').notNull(),
    nodeId: text('node_id').notNull(),
    rewardType: text('reward_type').notNull(),
    amountStaked: numeric('amount_staked').notNull(),
    startTimestamp: int8('start_timestamp').notNull(),
    endTimestamp: int8('end_timestamp').notNull(),
    assetId: text('asset_id').notNull(),
    assetName: text('asset_name').notNull(),
    assetSymbol: text('asset_symbol').notNull(),
    assetDenomination: integer('asset_denomination').notNull(),
    assetType: text('asset_type').notNull(),
    amount: numeric('amount').notNull(),
    addresses: jsonb('addresses').notNull(),
    firstSeenAt: timestamptz('first_seen_at').notNull(),
    lastSeenAt: timestamptz('last_seen_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'rewards_pkey', columns: [t.network, t.utxoId] }),
    index('rewards_node_id_idx').on(t.nodeId, t.endTimestamp),
    index('rewards_end_timestamp_idx').on(t.endTimestamp),
  ],
);

export const rewardPrices = pgTable(
  'reward_prices',
  {
    network: text('network').notNull(),
    utxoId: text('utxo_id').notNull(),
    currency: text('currency').notNull(),
    value: numeric('value').notNull(),
    fetchedAt: timestamptz('fetched_at').notNull(),
  },
  (t) => [primaryKey({ name: 'reward_prices_pkey', columns: [t.network, t.utxoId, t.currency] })],
);

export const rewardAddresses = pgTable(
  'reward_addresses',
  {
    network: text('network').notNull(),
    utxoId: text('utxo_id').notNull(),
    address: text('address').notNull(),
  },
  (t) => [
    primaryKey({ name: 'reward_addresses_pkey', columns: [t.network, t.utxoId, t.address] }),
    index('reward_addresses_address_idx').on(t.address, t.network, t.utxoId),
  ],
);

export const usageMetrics = pgTable(
  'usage_metrics',
  {
    source: text('source').notNull(),
    scope: text('scope').notNull(),
    timeInterval: text('time_interval').notNull(),
    groupBy: text('group_by').notNull(),
    bucketTimestamp: int8('bucket_timestamp').notNull(),
    groupValue: text('group_value').notNull(),
    aggregateDuration: text('aggregate_duration').notNull(),
    totalRequests: doublePrecision('total_requests').notNull(),
    apiCreditsUsed: doublePrecision('api_credits_used').notNull(),
    requestsPerSecond: doublePrecision('requests_per_second').notNull(),
    successRatePercent: doublePrecision('success_rate_percent').notNull(),
    medianResponseTimeMsecs: doublePrecision('median_response_time_msecs').notNull(),
    invalidRequests: doublePrecision('invalid_requests').notNull(),
    apiCreditsWasted: doublePrecision('api_credits_wasted').notNull(),
    fetchedAt: timestamptz('fetched_at').notNull(),
  },
  (t) => [
    primaryKey({
      name: 'usage_metrics_pkey',
      columns: [t.source, t.scope, t.timeInterval, t.groupBy, t.bucketTimestamp, t.groupValue],
    }),
  ],
);

export const signatures = pgTable(
  'signatures',
  {
    network: text('network').notNull(),
    txHash: text('tx_hash').notNull(),
    signedMessage: text('signed_message').notNull(),
    fetchedAt: timestamptz('fetched_at').notNull(),
  },
  (t) => [primaryKey({ name: 'signatures_pkey', columns: [t.network, t.txHash] })],
);

export const exportOperations = pgTable(
  'export_operations',
  {
    operationId: text('operation_id').primaryKey(),
    exportName: text('export_name').notNull(),
    firstDate: text('first_date').notNull(),
    lastDate: text('last_date').notNull(),
    operationType: text('operation_type').notNull(),
    request: jsonb('request').notNull(),
    requestHash: text('request_hash').notNull().default(''),
    attempt: int8('attempt').notNull().default(1),
    status: text('status').notNull(),
    code: text('code'),
    message: text('message'),
    downloadUrl: text('download_url'),
    nextDate: text('next_date'),
    createdAtMs: int8('created_at_ms').notNull(),
    updatedAtMs: int8('updated_at_ms').notNull(),
    statusHistory: jsonb('status_history').notNull(),
    statusReads: int8('status_reads').notNull().default(0),
    followUpOf: text('follow_up_of'),
    recordedAt: timestamptz('recorded_at').notNull(),
    polledAt: timestamptz('polled_at'),
    gaveUpAt: timestamptz('gave_up_at'),
  },
  (t) => [
    index('export_operations_window_idx').on(t.exportName, t.firstDate, t.lastDate),
    index('export_operations_status_idx').on(t.status),
    index('export_operations_gave_up_idx').on(t.gaveUpAt).where(sql`${t.gaveUpAt} IS NOT NULL`),
  ],
);

export const exportClaims = pgTable(
  'export_claims',
  {
    exportName: text('export_name').notNull(),
    firstDate: text('first_date').notNull(),
    lastDate: text('last_date').notNull(),
    requestHash: text('request_hash').notNull(),
    attempt: int8('attempt').notNull(),
    followUpOf: text('follow_up_of'),
    claimedAt: timestamptz('claimed_at').notNull(),
    operationId: text('operation_id').unique(),
    error: text('error'),
  },
  (t) => [
    primaryKey({
      name: 'export_claims_pkey',
      columns: [t.exportName, t.firstDate, t.lastDate, t.requestHash, t.attempt],
    }),
  ],
);

export const exportFiles = pgTable(
  'export_files',
  {
    operationId: text('operation_id').primaryKey(),
    path: text('path').notNull(),
    sizeBytes: int8('size_bytes').notNull(),
    sha256: text('sha256').notNull(),
    downloadedAt: timestamptz('downloaded_at').notNull(),
    rowsLoaded: int8('rows_loaded'),
    loadedAt: timestamptz('loaded_at'),
    loadStatus: text('load_status').notNull().default('pending'),
    loadError: text('load_error'),
    brokenCopies: int8('broken_copies').notNull().default(0),
    loadStarts: int8('load_starts').notNull().default(0),
    loadRunId: int8('load_run_id'),
  },
  (t) => [index('export_files_unloaded_idx').on(t.operationId).where(sql`${t.loadedAt} IS NULL`)],
);

export const exportedTransactions = pgTable(
  'exported_transactions',
  {
    exportName: text('export_name').notNull(),
    chainId: text('chain_id').notNull(),
    txHash: text('tx_hash').notNull(),
    operationId: text('operation_id').notNull(),
    blockTimestamp: int8('block_timestamp'),
    /** Text in both kinds of file: a number (EVM) or a type name (Primary Network). */
    txType: text('tx_type'),
    blockNumber: numeric('block_number'),
    blockHash: text('block_hash'),
    blockIndex: int8('block_index'),
    txStatus: text('tx_status'),
    fromAddress: text('from_address'),
    toAddress: text('to_address'),
    value: numeric('value'),
    gasLimit: numeric('gas_limit'),
    gasUsed: numeric('gas_used'),
    gasPrice: numeric('gas_price'),
    nonce: numeric('nonce'),
    methodCallType: text('method_call_type'),
    methodHash: text('method_hash'),
    methodName: text('method_name'),
    /** The file's text, not JSON. */
    addresses: text('addresses'),
    amount: numeric('amount'),
    assetId: text('asset_id'),
    extra: jsonb('extra'),
  },
  (t) => [
    primaryKey({ name: 'exported_transactions_pkey', columns: [t.exportName, t.chainId, t.txHash] }),
    index('exported_transactions_time_idx').on(t.exportName, t.blockTimestamp),
  ],
);

export const jobRuns = pgTable(
  'job_runs',
  {
    id: int8('id').primaryKey().generatedByDefaultAsIdentity(),
    job: text('job').notNull(),
    scope: text('scope').notNull(),
    startedAt: timestamptz('started_at').notNull(),
    finishedAt: timestamptz('finished_at'),
    status: text('status').notNull(),
    rowsWritten: int8('rows_written').notNull().default(0),
    requests: int8('requests').notNull().default(0),
    computeUnits: int8('compute_units').notNull().default(0),
    error: text('error'),
    rowsRemoved: jsonb('rows_removed'),
  },
  (t) => [
    index('job_runs_job_started_idx').on(t.job, t.startedAt),
    index('job_runs_status_idx').on(t.status, t.job, t.finishedAt),
  ],
);

export const rejectedRecords = pgTable(
  'rejected_records',
  {
    job: text('job').notNull(),
    recordId: text('record_id').notNull(),
    scope: text('scope').notNull(),
    endpoint: text('endpoint').notNull(),
    naturalKey: text('natural_key'),
    reason: text('reason').notNull(),
    fields: text('fields').notNull(),
    problems: text('problems').notNull(),
    context: jsonb('context').notNull(),
    /** The record's text as sent (cut at 16 KiB, so not always JSON): text, not jsonb. */
    raw: text('raw').notNull(),
    rawBytes: int8('raw_bytes').notNull(),
    rawCut: int8('raw_cut').notNull().default(0),
    firstSeenAt: timestamptz('first_seen_at').notNull(),
    lastSeenAt: timestamptz('last_seen_at').notNull(),
    timesSeen: int8('times_seen').notNull(),
  },
  (t) => [
    primaryKey({ name: 'rejected_records_pkey', columns: [t.job, t.recordId] }),
    index('rejected_records_job_seen_idx').on(t.job, t.lastSeenAt),
  ],
);

export const upstreamDrift = pgTable(
  'upstream_drift',
  {
    endpoint: text('endpoint').notNull(),
    kind: text('kind').notNull(),
    name: text('name').notNull(),
    firstSeenAt: timestamptz('first_seen_at').notNull(),
    lastSeenAt: timestamptz('last_seen_at').notNull(),
    timesSeen: int8('times_seen').notNull(),
  },
  (t) => [primaryKey({ name: 'upstream_drift_pkey', columns: [t.endpoint, t.kind, t.name] })],
);

export const syncState = pgTable(
  'sync_state',
  {
    job: text('job').notNull(),
    scope: text('scope').notNull(),
    cursor: jsonb('cursor').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (t) => [primaryKey({ name: 'sync_state_pkey', columns: [t.job, t.scope] })],
);

/* Summaries: kept by the triggers of drizzle/postgres/0001_metrics_summaries.sql (see schema.ts). */

export const transactionSummaries = pgTable(
  'transaction_summaries',
  {
    network: text('network').notNull(),
    chainId: text('chain_id').notNull(),
    transactions: int8('transactions').notNull(),
    newestBlockTimestamp: int8('newest_block_timestamp').notNull(),
  },
  (t) => [primaryKey({ name: 'transaction_summaries_pkey', columns: [t.network, t.chainId] })],
);

export const rewardSummaries = pgTable(
  'reward_summaries',
  {
    network: text('network').notNull(),
    subjectKind: text('subject_kind').notNull(),
    subject: text('subject').notNull(),
    rewardType: text('reward_type').notNull(),
    rewards: int8('rewards').notNull(),
    /** Exact sum of the amounts (no int64 bound here). */
    amount: numeric('amount').notNull(),
    newestEndTimestamp: int8('newest_end_timestamp').notNull(),
  },
  (t) => [
    primaryKey({
      name: 'reward_summaries_pkey',
      columns: [t.network, t.subjectKind, t.subject, t.rewardType],
    }),
  ],
);

export const rewardValueSummaries = pgTable(
  'reward_value_summaries',
  {
    network: text('network').notNull(),
    subjectKind: text('subject_kind').notNull(),
    subject: text('subject').notNull(),
    rewardType: text('reward_type').notNull(),
    currency: text('currency').notNull(),
    priced: int8('priced').notNull(),
    value: doublePrecision('value').notNull(),
  },
  (t) => [
    primaryKey({
      name: 'reward_value_summaries_pkey',
      columns: [t.network, t.subjectKind, t.subject, t.rewardType, t.currency],
    }),
  ],
);

export const usageSummaries = pgTable(
  'usage_summaries',
  {
    source: text('source').notNull(),
    scope: text('scope').notNull(),
    timeInterval: text('time_interval').notNull(),
    groupBy: text('group_by').notNull(),
    latestBucketTimestamp: int8('latest_bucket_timestamp').notNull(),
  },
  (t) => [
    primaryKey({ name: 'usage_summaries_pkey', columns: [t.source, t.scope, t.timeInterval, t.groupBy] }),
  ],
);

export const jobSummaries = pgTable('job_summaries', {
  job: text('job').primaryKey(),
  lastStatus: text('last_status').notNull(),
  lastStartedAt: timestamptz('last_started_at').notNull(),
  lastFinishedAt: timestamptz('last_finished_at').notNull(),
  lastSuccessAt: timestamptz('last_success_at'),
});

export const exportSummaries = pgTable('export_summaries', {
  exportName: text('export_name').primaryKey(),
  latestStatus: text('latest_status').notNull(),
  bytesDownloaded: int8('bytes_downloaded').notNull(),
  filesDownloaded: int8('files_downloaded').notNull(),
  rowsLoaded: int8('rows_loaded').notNull(),
  lastCompletedAtMs: int8('last_completed_at_ms'),
});

export const exportStatusCounts = pgTable(
  'export_status_counts',
  {
    exportName: text('export_name').notNull(),
    status: text('status').notNull(),
    operations: int8('operations').notNull(),
  },
  (t) => [primaryKey({ name: 'export_status_counts_pkey', columns: [t.exportName, t.status] })],
);

export const exportFileCounts = pgTable(
  'export_file_counts',
  {
    exportName: text('export_name').notNull(),
    loadStatus: text('load_status').notNull(),
    files: int8('files').notNull(),
  },
  (t) => [primaryKey({ name: 'export_file_counts_pkey', columns: [t.exportName, t.loadStatus] })],
);
