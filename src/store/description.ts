import { sql } from 'drizzle-orm';
import {
  decimal,
  decimalSum,
  identity,
  index,
  int32,
  integer,
  json,
  primaryKey,
  real,
  table,
  text,
  timestamp,
} from './columns.js';

/*
 * Every table of the store, described once: its columns, keys, indexes and defaults, for both
 * databases. schema.ts builds the SQLite Drizzle tables from it and schema.pg.ts the PostgreSQL
 * ones, each mapping a column's kind (columns.ts: `decimal`, `timestamp`, `json`...) to its own
 * type; drizzle-kit reads those two to write drizzle/sqlite/ and drizzle/postgres/. A new column is
 * one edit here, then `npm run db:generate`.
 *
 * The tables are part of the user interface: people query them with SQL (docs/database.md, which a
 * test keeps in step with this file). Amounts are exact decimals as the API sent them; times from
 * the API keep its unit (block and reward times in seconds, operation times in milliseconds); the
 * collector's own times (`*_at`) are timestamps, ISO-8601 UTC text in SQLite.
 */

/** One row per distinct `lastUpdated` of GET /v1/avax/supply. Amounts in AVAX. */
export const supplySnapshots = table('supply_snapshots', {
  lastUpdated: text('last_updated').primaryKey(),
  circulatingSupply: decimal('circulating_supply').notNull(),
  totalSupply: decimal('total_supply').notNull(),
  totalPBurned: decimal('total_p_burned').notNull(),
  totalCBurned: decimal('total_c_burned').notNull(),
  totalXBurned: decimal('total_x_burned').notNull(),
  totalStaked: decimal('total_staked').notNull(),
  totalLocked: decimal('total_locked').notNull(),
  totalRewards: decimal('total_rewards').notNull(),
  genesisUnlock: decimal('genesis_unlock').notNull(),
  l1ValidatorFees: decimal('l1_validator_fees').notNull(),
  fetchedAt: timestamp('fetched_at').notNull(),
});

/** One row per (chain_id, tx_hash) of GET /v1/transactions: the Transaction resource, flattened. */
export const transactions = table(
  'transactions',
  {
    chainId: text('chain_id').notNull(),
    txHash: text('tx_hash').notNull(),
    /** `mainnet` or `fuji` (the API's `testnet` is stored as `fuji`: the same network). */
    network: text('network').notNull(),
    blockNumber: decimal('block_number').notNull(),
    blockTimestamp: integer('block_timestamp').notNull(),
    blockTimestampMs: integer('block_timestamp_ms'),
    blockMinDelayExcess: integer('block_min_delay_excess'),
    blockHash: text('block_hash').notNull(),
    blockIndex: integer('block_index').notNull(),
    txStatus: text('tx_status').notNull(),
    txType: int32('tx_type').notNull(),
    gasLimit: decimal('gas_limit').notNull(),
    gasUsed: decimal('gas_used').notNull(),
    gasPrice: decimal('gas_price').notNull(),
    nonce: decimal('nonce').notNull(),
    value: decimal('value').notNull(),
    fromAddress: text('from_address').notNull(),
    fromName: text('from_name'),
    fromSymbol: text('from_symbol'),
    fromDecimals: int32('from_decimals'),
    fromLogoUri: text('from_logo_uri'),
    /** NULL for a contract creation (the API sends no `to`, or `null`). */
    toAddress: text('to_address'),
    toName: text('to_name'),
    toSymbol: text('to_symbol'),
    toDecimals: int32('to_decimals'),
    toLogoUri: text('to_logo_uri'),
    methodCallType: text('method_call_type'),
    methodHash: text('method_hash'),
    methodName: text('method_name'),
    firstSeenAt: timestamp('first_seen_at').notNull(),
    lastSeenAt: timestamp('last_seen_at').notNull(),
  },
  (t) => [
    primaryKey(t.chainId, t.txHash),
    index('transactions_block_timestamp_idx').on(t.blockTimestamp),
    // "The newest N of a chain" (and a chain over a time range) without sorting the whole chain.
    index('transactions_chain_time_idx').on(t.chainId, t.blockTimestamp),
    index('transactions_from_idx').on(t.fromAddress),
    index('transactions_to_idx').on(t.toAddress),
  ],
);

/**
 * One row per reward output of GET /v1/networks/{network}/rewards.
 *
 * Keyed on (network, utxo_id): a reward is paid as one UTXO, and its id is unique per output. Neither
 * `tx_hash` (the staking tx: a delegation yields a DELEGATOR reward and a VALIDATOR_FEE, two outputs)
 * nor `reward_tx_hash` (one reward tx pays several outputs) is unique, and the same output comes back
 * for every address or node id it concerns, so querying by both still stores it once.
 */
export const rewards = table(
  'rewards',
  {
    network: text('network').notNull(),
    utxoId: text('utxo_id').notNull(),
    txHash: text('tx_hash').notNull(),
    rewardTxHash: text('reward_tx_hash').notNull(),
    outputIndex: integer('output_index').notNull(),
    nodeId: text('node_id').notNull(),
    rewardType: text('reward_type').notNull(),
    /** nAVAX. */
    amountStaked: decimal('amount_staked').notNull(),
    startTimestamp: integer('start_timestamp').notNull(),
    endTimestamp: integer('end_timestamp').notNull(),
    assetId: text('asset_id').notNull(),
    assetName: text('asset_name').notNull(),
    assetSymbol: text('asset_symbol').notNull(),
    assetDenomination: int32('asset_denomination').notNull(),
    assetType: text('asset_type').notNull(),
    /** Smallest units (nAVAX for AVAX). */
    amount: decimal('amount').notNull(),
    /** JSON array of the reward's addresses, as sent; query them through reward_addresses. */
    addresses: json('addresses').notNull(),
    /** `fixed`, or `autoRenewed` for an ACP-236 auto-renewed validation; `fixed` when the API sent none. */
    stakingType: text('staking_type').notNull().default('fixed'),
    firstSeenAt: timestamp('first_seen_at').notNull(),
    lastSeenAt: timestamp('last_seen_at').notNull(),
  },
  (t) => [
    primaryKey(t.network, t.utxoId),
    // A node's rewards in time order, without a sort.
    index('rewards_node_id_idx').on(t.nodeId, t.endTimestamp),
    index('rewards_end_timestamp_idx').on(t.endTimestamp),
  ],
);

/**
 * The historical price of a reward's token, one row per currency collected: the API prices a reward
 * in the currency asked for, and only once it is older than 24 h, so a reward has no row at first,
 * and one per currency the rewards job has been configured with since. A price is never erased.
 */
export const rewardPrices = table(
  'reward_prices',
  {
    network: text('network').notNull(),
    utxoId: text('utxo_id').notNull(),
    /** Lower-case currency code, e.g. `usd`, `eur`. */
    currency: text('currency').notNull(),
    /** Price of one whole token at reward time. */
    value: decimal('value').notNull(),
    fetchedAt: timestamp('fetched_at').notNull(),
  },
  (t) => [primaryKey(t.network, t.utxoId, t.currency)],
);

/** Which addresses a reward belongs to: `WHERE address = 'avax1…'`. */
export const rewardAddresses = table(
  'reward_addresses',
  {
    network: text('network').notNull(),
    utxoId: text('utxo_id').notNull(),
    address: text('address').notNull(),
  },
  (t) => [
    primaryKey(t.network, t.utxoId, t.address),
    // Address first and covering: "the rewards of these addresses" reads only their rows.
    index('reward_addresses_address_idx').on(t.address, t.network, t.utxoId),
  ],
);

/**
 * One row per (source, scope, time interval, group by, bucket, group value) of the three usage-metrics
 * endpoints; re-fetching a bucket updates it (the current bucket is partial until it closes).
 * `group_by` is 'None' and `group_value` '' for ungrouped answers (keys must not be NULL in SQLite).
 */
export const usageMetrics = table(
  'usage_metrics',
  {
    /** `dataApi`, `primaryNetworkRpc` or `subnetRpc`. */
    source: text('source').notNull(),
    /** What the series is about, e.g. `org=…`, `network=mainnet`, `chainId=…`, plus filters. */
    scope: text('scope').notNull(),
    timeInterval: text('time_interval').notNull(),
    groupBy: text('group_by').notNull(),
    /** Bucket start, Unix seconds. */
    bucketTimestamp: integer('bucket_timestamp').notNull(),
    groupValue: text('group_value').notNull(),
    aggregateDuration: text('aggregate_duration').notNull(),
    totalRequests: real('total_requests').notNull(),
    apiCreditsUsed: real('api_credits_used').notNull(),
    requestsPerSecond: real('requests_per_second').notNull(),
    successRatePercent: real('success_rate_percent').notNull(),
    medianResponseTimeMsecs: real('median_response_time_msecs').notNull(),
    invalidRequests: real('invalid_requests').notNull(),
    apiCreditsWasted: real('api_credits_wasted').notNull(),
    fetchedAt: timestamp('fetched_at').notNull(),
  },
  (t) => [primaryKey(t.source, t.scope, t.timeInterval, t.groupBy, t.bucketTimestamp, t.groupValue)],
);

/** Aggregated signatures by (network, tx_hash). */
export const signatures = table(
  'signatures',
  {
    network: text('network').notNull(),
    txHash: text('tx_hash').notNull(),
    signedMessage: text('signed_message').notNull(),
    fetchedAt: timestamp('fetched_at').notNull(),
  },
  (t) => [primaryKey(t.network, t.txHash)],
);

/**
 * Why a configured transaction has no stored signature yet, one row per (network, tx_hash) the
 * aggregator did not sign: `outcome` `not_found` (404: asked again next run), `below_quorum` (the
 * aggregator could not reach a threshold of stake: retried within the run, then after
 * `next_attempt_at`) or `refused` (another 4xx: asked again after `next_attempt_at`, or at once when
 * the job's configuration changes, `config_digest`). The row goes when the signature is stored.
 */
export const signatureAttempts = table(
  'signature_attempts',
  {
    network: text('network').notNull(),
    txHash: text('tx_hash').notNull(),
    outcome: text('outcome').notNull(),
    /** The HTTP status of the last answer. */
    status: int32('status').notNull(),
    /** The API's message, control characters shown and cut to a bounded length. */
    message: text('message').notNull(),
    /** Runs in a row that ended with this hash unsigned. */
    failures: int32('failures').notNull(),
    firstFailedAt: timestamp('first_failed_at').notNull(),
    lastAttemptAt: timestamp('last_attempt_at').notNull(),
    nextAttemptAt: timestamp('next_attempt_at').notNull(),
    configDigest: text('config_digest').notNull(),
  },
  (t) => [primaryKey(t.network, t.txHash)],
);

/**
 * One row per validation of GET /v1/networks/{network}/validators/{nodeId}: a node's past, active and
 * pending validations, on the Primary Network (`primary_network` = 1) and other subnets. Keyed on
 * (network, node_id, tx_hash), the staking transaction. A completed (or removed) validation is final:
 * the validators job does not ask for it again. An active one is read on every run: its uptime,
 * delegators and potential reward are the last observed (their history is validation_observations).
 * Amounts are nAVAX, exact; times Unix seconds; percentages as the API sends them (0..100).
 */
export const validations = table(
  'validations',
  {
    network: text('network').notNull(),
    nodeId: text('node_id').notNull(),
    txHash: text('tx_hash').notNull(),
    subnetId: text('subnet_id').notNull(),
    /** 1 on the Primary Network (subnet `11111111111111111111111111111111LpoYY`), else 0. */
    primaryNetwork: int32('primary_network').notNull(),
    /** `active`, `pending`, `completed`, `removed` (or a status the API added, stored as sent). */
    status: text('status').notNull(),
    /** `fixed` (also when the API does not say: its released shape has no such field) or `autoRenewed`. */
    stakingType: text('staking_type').notNull(),
    /** The `autoRenew` object as sent (JSON), when the API sends one (auto-renewed staking). */
    autoRenew: json('auto_renew'),
    /** `autoRenew.state` (`renewing`, `exiting`, `exited`, `aborted`); NULL when none. */
    autoRenewState: text('auto_renew_state'),
    startTimestamp: integer('start_timestamp').notNull(),
    endTimestamp: integer('end_timestamp').notNull(),
    amountStaked: decimal('amount_staked').notNull(),
    /** Percentage, as sent (`"2.0000"`); NULL on a subnet. */
    delegationFee: decimal('delegation_fee'),
    delegatorCount: integer('delegator_count'),
    amountDelegated: decimal('amount_delegated'),
    delegationCapacity: decimal('delegation_capacity'),
    /** The last observed `uptimePerformance` (a percentage) while active. */
    uptimePerformance: real('uptime_performance'),
    /** `validatorHealth.reachabilityPercent`, last observed. */
    reachabilityPercent: real('reachability_percent'),
    /** `potentialRewards` last seen while active: what the API promised. */
    potentialValidationReward: decimal('potential_validation_reward'),
    potentialDelegationReward: decimal('potential_delegation_reward'),
    /** `rewards` of the completed validation: what was paid ("0" when its uptime fell short). */
    validationReward: decimal('validation_reward'),
    delegationReward: decimal('delegation_reward'),
    rewardTxHash: text('reward_tx_hash'),
    removeTxHash: text('remove_tx_hash'),
    removeTimestamp: integer('remove_timestamp'),
    firstSeenAt: timestamp('first_seen_at').notNull(),
    lastSeenAt: timestamp('last_seen_at').notNull(),
  },
  (t) => [
    primaryKey(t.network, t.nodeId, t.txHash),
    // A node's validations by status (the job's "what is still open", the report by node).
    index('validations_node_status_idx').on(t.nodeId, t.status),
  ],
);

/**
 * What each run observed of each active validation (uptime, delegators, potential reward), one row per
 * (validation, observation): the line a dashboard draws over the period. Kept
 * `jobs.validators.observationRetention` (default 35 days), pruned by the validators job.
 */
export const validationObservations = table(
  'validation_observations',
  {
    network: text('network').notNull(),
    nodeId: text('node_id').notNull(),
    txHash: text('tx_hash').notNull(),
    observedAt: timestamp('observed_at').notNull(),
    uptimePerformance: real('uptime_performance').notNull(),
    reachabilityPercent: real('reachability_percent'),
    delegatorCount: integer('delegator_count'),
    amountDelegated: decimal('amount_delegated'),
    delegationCapacity: decimal('delegation_capacity'),
    potentialValidationReward: decimal('potential_validation_reward'),
    potentialDelegationReward: decimal('potential_delegation_reward'),
  },
  (t) => [
    primaryKey(t.network, t.nodeId, t.txHash, t.observedAt),
    index('validation_observations_observed_idx').on(t.observedAt),
  ],
);

/**
 * GET /v1/networks/{network}/rewards:listPending: the rewards still to come of the configured node
 * ids and addresses, one row per (network, tx_hash, reward_type), refreshed on each read; a row whose
 * period has ended is removed on the next read (it is then paid, or lost: see `rewards`, `validations`).
 */
export const pendingRewards = table(
  'pending_rewards',
  {
    network: text('network').notNull(),
    txHash: text('tx_hash').notNull(),
    rewardType: text('reward_type').notNull(),
    nodeId: text('node_id').notNull(),
    /** JSON array of the addresses, as sent. */
    addresses: json('addresses').notNull(),
    amountStaked: decimal('amount_staked').notNull(),
    startTimestamp: integer('start_timestamp').notNull(),
    endTimestamp: integer('end_timestamp').notNull(),
    /** `progress` as sent (a percentage). */
    progress: real('progress').notNull(),
    /** `estimatedReward.amount`, smallest units (nAVAX). */
    estimatedAmount: decimal('estimated_amount').notNull(),
    assetId: text('asset_id').notNull(),
    stakingType: text('staking_type').notNull(),
    firstSeenAt: timestamp('first_seen_at').notNull(),
    lastSeenAt: timestamp('last_seen_at').notNull(),
  },
  (t) => [primaryKey(t.network, t.txHash, t.rewardType), index('pending_rewards_node_idx').on(t.nodeId)],
);

/**
 * One row per settled cycle of an ACP-236 auto-renewed validation, from GET
 * /v1/networks/{network}/validators/{nodeId}/cycles (the rewards job, for every configured node id
 * with an auto-renewed validation). Keyed on (network, staking_tx_hash, cycle_index): a cycle index is
 * 1-based within its position, a node may have several positions. A settled cycle is final: read once.
 * The compounded parts produce no UTXO, so they are in no `rewards` row: the reports add them as income
 * ("compounded (restaked)") at `end_timestamp`. Amounts nAVAX, exact; times Unix seconds.
 */
export const cycles = table(
  'cycles',
  {
    network: text('network').notNull(),
    stakingTxHash: text('staking_tx_hash').notNull(),
    cycleIndex: integer('cycle_index').notNull(),
    nodeId: text('node_id').notNull(),
    /** The transaction that settled the cycle (also the withdrawn parts' reward tx, when they paid). */
    rewardTxHash: text('reward_tx_hash').notNull(),
    startTimestamp: integer('start_timestamp').notNull(),
    endTimestamp: integer('end_timestamp').notNull(),
    weightAtCycleStart: decimal('weight_at_cycle_start').notNull(),
    grossValidationReward: decimal('gross_validation_reward').notNull(),
    withdrawnValidationReward: decimal('withdrawn_validation_reward').notNull(),
    compoundedValidationReward: decimal('compounded_validation_reward').notNull(),
    grossDelegateeReward: decimal('gross_delegatee_reward').notNull(),
    withdrawnDelegateeReward: decimal('withdrawn_delegatee_reward').notNull(),
    compoundedDelegateeReward: decimal('compounded_delegatee_reward').notNull(),
    /** 0..100, the share in effect during the cycle. */
    autoCompoundSharePercent: real('auto_compound_share_percent').notNull(),
    /** `renewed`, `exited`, `aborted` (or a value a later API sent, stored as sent). */
    outcome: text('outcome').notNull(),
    delegatorCount: integer('delegator_count').notNull(),
    amountDelegated: decimal('amount_delegated').notNull(),
    firstSeenAt: timestamp('first_seen_at').notNull(),
    lastSeenAt: timestamp('last_seen_at').notNull(),
  },
  (t) => [
    primaryKey(t.network, t.stakingTxHash, t.cycleIndex),
    // A node's cycles (the job's "what is settled", the reports by node) and a year's cycles.
    index('cycles_node_idx').on(t.nodeId, t.endTimestamp),
    index('cycles_end_timestamp_idx').on(t.endTimestamp),
  ],
);

/**
 * Every export operation the collector started, with its request and status history. The lifecycle
 * (claims, polls, retries, follow-ups) is described in docs/collection.md (Exports).
 */
export const exportOperations = table(
  'export_operations',
  {
    operationId: text('operation_id').primaryKey(),
    /** The config definition's name. */
    exportName: text('export_name').notNull(),
    /** The window asked for (YYYY-MM-DD); a truncated export's follow-up starts at the parent's next_date. */
    firstDate: text('first_date').notNull(),
    lastDate: text('last_date').notNull(),
    operationType: text('operation_type').notNull(),
    /** The POST body. */
    request: json('request').notNull(),
    /**
     * sha256 of the request without its dates (type and options): a window that failed with
     * ErrInvalidRequest is asked for again only once the definition, and so this hash, changes.
     */
    requestHash: text('request_hash').notNull().default(''),
    /** 1 for the first try of a window, 2 for its first retry (after ErrInternal or a give-up)... */
    attempt: integer('attempt').notNull().default(1),
    status: text('status').notNull(),
    code: text('code'),
    message: text('message'),
    downloadUrl: text('download_url'),
    nextDate: text('next_date'),
    /** Upstream times, Unix milliseconds. */
    createdAtMs: integer('created_at_ms').notNull(),
    updatedAtMs: integer('updated_at_ms').notNull(),
    /** JSON array of {status, code?, at}: every status change seen. */
    statusHistory: json('status_history').notNull(),
    /** Status reads recorded (GET /v1/operations/{id}); the creation answer is not one. */
    statusReads: integer('status_reads').notNull().default(0),
    /** The operation this one continues after WarnTruncatedExport. */
    followUpOf: text('follow_up_of'),
    recordedAt: timestamp('recorded_at').notNull(),
    polledAt: timestamp('polled_at'),
    /** When the collector stopped polling it: still RUNNING after the `timeout` setting. */
    gaveUpAt: timestamp('gave_up_at'),
  },
  (t) => [
    index('export_operations_window_idx').on(t.exportName, t.firstDate, t.lastDate),
    // The operations still to poll, and the failed or given-up ones (docs/database.md).
    index('export_operations_status_idx').on(t.status),
    index('export_operations_gave_up_idx').on(t.gaveUpAt).where(sql`${t.gaveUpAt} IS NOT NULL`),
  ],
);

/**
 * The claim on a window taken before its POST, in one transaction with the check that no live
 * operation covers it: two passes at once never create the same window twice. `operation_id` is
 * set when the POST answers; a claim still without one after a lease was cut short by a crash.
 */
export const exportClaims = table(
  'export_claims',
  {
    exportName: text('export_name').notNull(),
    firstDate: text('first_date').notNull(),
    lastDate: text('last_date').notNull(),
    requestHash: text('request_hash').notNull(),
    attempt: integer('attempt').notNull(),
    /** The truncated operation this window continues, if any. */
    followUpOf: text('follow_up_of'),
    claimedAt: timestamp('claimed_at').notNull(),
    operationId: text('operation_id').unique(),
    /** The POST was refused (a 4xx): the window is not asked for again until the definition changes. */
    error: text('error'),
  },
  (t) => [primaryKey(t.exportName, t.firstDate, t.lastDate, t.requestHash, t.attempt)],
);

/** The file downloaded for a finished export, and its load into exported_transactions. */
export const exportFiles = table(
  'export_files',
  {
    operationId: text('operation_id').primaryKey(),
    path: text('path').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    sha256: text('sha256').notNull(),
    downloadedAt: timestamp('downloaded_at').notNull(),
    /** CSV rows in the file (all of them are in exported_transactions once `loaded_at` is set). */
    rowsLoaded: integer('rows_loaded'),
    loadedAt: timestamp('loaded_at'),
    /**
     * `pending` (not loaded yet), `loaded`, `unsupported` (its header has no usable key: kept, not
     * read again until `run exports --reload`), `broken` (the copy failed to parse: deleted, to be
     * downloaded again), `failed` (broken `downloadAttempts` times).
     */
    loadStatus: text('load_status').notNull().default('pending'),
    /** Why it is unsupported, broken or failed. */
    loadError: text('load_error'),
    /** Copies that proved broken (each deleted and downloaded again). */
    brokenCopies: integer('broken_copies').notNull().default(0),
    /**
     * Loads started and not finished: counted before each load begins, so a process that dies in
     * one (out of memory) leaves it counted; after `downloadAttempts` the file is `failed`.
     */
    loadStarts: integer('load_starts').notNull().default(0),
    /** The `job_runs` id of the run loading it now (or that died loading it). */
    loadRunId: integer('load_run_id'),
  },
  // Files downloaded but not loaded yet: a handful, found without reading the others.
  (t) => [index('export_files_unloaded_idx').on(t.operationId).where(sql`${t.loadedAt} IS NULL`)],
);

/**
 * The rows of every downloaded export file, one per (export_name, chain_id, tx_hash): the same
 * transaction exported again (an overlapping window, a re-load) is stored once per definition.
 * Columns follow the CSV; EVM-only and Primary-Network-only columns are NULL in the other kind.
 * Amounts are the exact decimal of the file.
 */
export const exportedTransactions = table(
  'exported_transactions',
  {
    /** The config definition whose export brought the row. */
    exportName: text('export_name').notNull(),
    /** EVM: the chain id (`43114`); Primary Network: the chain (`p-chain`, a blockchain id...). */
    chainId: text('chain_id').notNull(),
    txHash: text('tx_hash').notNull(),
    /** The export operation whose file first brought the row (join export_operations, export_files). */
    operationId: text('operation_id').notNull(),
    /** Unix seconds. */
    blockTimestamp: integer('block_timestamp'),
    /** EVM: the numeric type (`0`, `2`); Primary Network: the tx type name (`BaseTx`...): text in both. */
    txType: text('tx_type'),
    /** EVM only. */
    blockNumber: decimal('block_number'),
    blockHash: text('block_hash'),
    blockIndex: integer('block_index'),
    /** EVM only: `1` success, `0` failed. */
    txStatus: text('tx_status'),
    fromAddress: text('from_address'),
    toAddress: text('to_address'),
    /** EVM only: wei; gas amounts and nonce exact decimals too. */
    value: decimal('value'),
    gasLimit: decimal('gas_limit'),
    gasUsed: decimal('gas_used'),
    gasPrice: decimal('gas_price'),
    nonce: decimal('nonce'),
    methodCallType: text('method_call_type'),
    methodHash: text('method_hash'),
    methodName: text('method_name'),
    /** Primary Network only: the addresses as the file gives them (its text, not JSON). */
    addresses: text('addresses'),
    /** Primary Network only: smallest units (nAVAX for AVAX). */
    amount: decimal('amount'),
    assetId: text('asset_id'),
    /**
     * JSON object of the row's cells the collector does not map to a column (by header name), and
     * of known columns whose value did not fit the column's type; NULL when there are none.
     */
    extra: json('extra'),
  },
  (t) => [
    primaryKey(t.exportName, t.chainId, t.txHash),
    index('exported_transactions_time_idx').on(t.exportName, t.blockTimestamp),
  ],
);

/** Every run of every job, success or failure; metrics about jobs derive from it. */
export const jobRuns = table(
  'job_runs',
  {
    id: identity('id'),
    job: text('job').notNull(),
    scope: text('scope').notNull(),
    startedAt: timestamp('started_at').notNull(),
    finishedAt: timestamp('finished_at'),
    /** `running` (or a crash, if it stays so), `succeeded`, `failed` (also a queued run taken over: `interrupted: …`). */
    status: text('status').notNull(),
    rowsWritten: integer('rows_written').notNull().default(0),
    requests: integer('requests').notNull().default(0),
    computeUnits: integer('compute_units').notNull().default(0),
    error: text('error'),
    /**
     * JSON object, table name → rows the run deleted from it (the maintenance job's pruning, counted
     * batch by batch as each commits); NULL for a run that removed nothing (every other job).
     */
    rowsRemoved: json('rows_removed'),
  },
  (t) => [
    index('job_runs_job_started_idx').on(t.job, t.startedAt),
    // Runs left `running` (a takeover's), recent failures and each job's latest failure: a partial
    // index, so a run that succeeds (nearly every one) leaves it once finished and writes only its
    // `running` entry; the latest success per job is job_summaries'.
    index('job_runs_unsucceeded_idx')
      .on(t.status, t.job, t.finishedAt)
      .where(sql`${t.status} = 'running' OR ${t.status} = 'failed'`),
  ],
);

/**
 * Records set aside: each one an upstream record (a transaction, a reward, a usage value, a
 * signature, an export row) that failed its schema or a domain bound, kept raw while the rest of its
 * page was stored and the job moved on (docs/operations.md, "A record was set aside"). One row per
 * record: seen again, it is updated and counted in `times_seen`, never twice. `run <job>
 * --retry-rejected` checks them again with the running version's rules and stores those that pass.
 */
export const rejectedRecords = table(
  'rejected_records',
  {
    job: text('job').notNull(),
    /** The natural key when it could be read (`43114:0x…`, `mainnet:2oGz…`), else `sha256:` of the raw record. */
    recordId: text('record_id').notNull(),
    /** The stream, batch, series or export it came from, as `sync_state` and `job_runs` name it. */
    scope: text('scope').notNull(),
    /** The API endpoint (`transactions`, `rewards`, …) or `exportFile`. */
    endpoint: text('endpoint').notNull(),
    /** The natural key, when its fields were valid; NULL otherwise. */
    naturalKey: text('natural_key'),
    /** `schema` (a field of the wrong shape, or missing) or `bounds` (a value outside its bound). */
    reason: text('reason').notNull(),
    /** The failing fields, comma-separated (`reward.denomination, endTimestamp`). */
    fields: text('fields').notNull(),
    /** Each failing field and its rule, bounded. */
    problems: text('problems').notNull(),
    /** What storing it needs beside the record (the network, the bucket's series...). */
    context: json('context').notNull(),
    /**
     * The record's JSON as sent, at most 16 KiB of it (`raw_cut` = 1: the rest was cut), so not
     * always JSON: text.
     */
    raw: text('raw').notNull(),
    /** The size of the whole record's JSON, bytes. */
    rawBytes: integer('raw_bytes').notNull(),
    rawCut: integer('raw_cut').notNull().default(0),
    firstSeenAt: timestamp('first_seen_at').notNull(),
    lastSeenAt: timestamp('last_seen_at').notNull(),
    timesSeen: integer('times_seen').notNull(),
  },
  (t) => [
    primaryKey(t.job, t.recordId),
    // Per job: its count and newest (`status`), and the retention's pruning by last sight.
    index('rejected_records_job_seen_idx').on(t.job, t.lastSeenAt),
  ],
);

/**
 * Drift: fields and enum values the upstream sent that the OpenAPI does not list, per endpoint: the
 * first 50 names of each endpoint, then `(more)` counts the rest. Stored as sent, and seen here.
 */
export const upstreamDrift = table(
  'upstream_drift',
  {
    endpoint: text('endpoint').notNull(),
    /** `field` or `enumValue`. */
    kind: text('kind').notNull(),
    /** The path (`historicalRewards[].simDriftField`), or `path=value` for an enum value. */
    name: text('name').notNull(),
    firstSeenAt: timestamp('first_seen_at').notNull(),
    lastSeenAt: timestamp('last_seen_at').notNull(),
    /** Records (or answers) that carried it. */
    timesSeen: integer('times_seen').notNull(),
  },
  (t) => [primaryKey(t.endpoint, t.kind, t.name)],
);

/** Cursors per job and scope; written in the same transaction as the rows they follow. */
export const syncState = table(
  'sync_state',
  {
    job: text('job').notNull(),
    scope: text('scope').notNull(),
    cursor: json('cursor').notNull(),
    updatedAt: timestamp('updated_at').notNull(),
  },
  (t) => [primaryKey(t.job, t.scope)],
);

/**
 * The store's own facts, a key and its value (src/store/store-meta.ts): its id (`store_id`, made the
 * first time it is the source of a copy), the store it was copied from (`copied_from`), and an
 * unfinished copy (`copy_unfinished`, JSON: its source and start), written before `migrate-store`
 * copies a row and removed once the copy ends, so `start`, `run` and `status` see a half copy.
 * Never copied itself.
 */
export const storeMeta = table('store_meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

/*
 * Summaries for the metrics endpoint (docs/metrics.md): a scrape reads a few rows of these instead
 * of aggregating the big tables. The triggers of drizzle/<dialect>/*_metrics_summaries.sql keep
 * transaction, reward, usage and job summaries current in the same transaction as the rows they
 * count; export summaries are refreshed after each exports run (src/store/summaries.ts).
 */

/** Transactions stored per (network, chain): count and newest block time. */
export const transactionSummaries = table(
  'transaction_summaries',
  {
    network: text('network').notNull(),
    chainId: text('chain_id').notNull(),
    transactions: integer('transactions').notNull(),
    /** Unix seconds. */
    newestBlockTimestamp: integer('newest_block_timestamp').notNull(),
  },
  (t) => [primaryKey(t.network, t.chainId)],
);

/** Rewards per subject (an address of reward_addresses or a node id of rewards) and reward type. */
export const rewardSummaries = table(
  'reward_summaries',
  {
    network: text('network').notNull(),
    /** `address` or `node_id`. */
    subjectKind: text('subject_kind').notNull(),
    subject: text('subject').notNull(),
    rewardType: text('reward_type').notNull(),
    rewards: integer('rewards').notNull(),
    /** Sum of the amounts in smallest units (nAVAX). */
    amount: decimalSum('amount').notNull(),
    /** Unix seconds. */
    newestEndTimestamp: integer('newest_end_timestamp').notNull(),
  },
  (t) => [primaryKey(t.network, t.subjectKind, t.subject, t.rewardType)],
);

/** Value of those rewards per price currency of reward_prices: the priced ones and amount × price. */
export const rewardValueSummaries = table(
  'reward_value_summaries',
  {
    network: text('network').notNull(),
    subjectKind: text('subject_kind').notNull(),
    subject: text('subject').notNull(),
    rewardType: text('reward_type').notNull(),
    currency: text('currency').notNull(),
    /** Rewards with a price in this currency. */
    priced: integer('priced').notNull(),
    /** Sum of amount × price (a float: sums of products are not exact anyway). */
    value: real('value').notNull(),
  },
  (t) => [primaryKey(t.network, t.subjectKind, t.subject, t.rewardType, t.currency)],
);

/**
 * Per configured node id: what the validator metrics say, recomputed from `validations` and
 * `pending_rewards` by each validators run that read the node (a scrape reads these rows only).
 */
export const validatorSummaries = table(
  'validator_summaries',
  {
    network: text('network').notNull(),
    nodeId: text('node_id').notNull(),
    /** 0 when the API does not know the node id (404, or no validation at all). */
    known: int32('known').notNull(),
    /** 1 while a Primary Network validation is active. */
    active: int32('active').notNull(),
    /** 1 when that validation renews itself (auto-renewed staking, not exiting). */
    autoRenewing: int32('auto_renewing').notNull(),
    /** End of the active Primary Network validation, else of the newest one; Unix seconds. */
    endTimestamp: integer('end_timestamp'),
    /** Its length, seconds (the staking period GlacierRewardsStopped allows for). */
    periodSeconds: integer('period_seconds'),
    /** uptimePerformance ÷ 100 of the active one. */
    uptimeRatio: real('uptime_ratio'),
    reachabilityRatio: real('reachability_ratio'),
    potentialValidationReward: decimal('potential_validation_reward'),
    potentialDelegationReward: decimal('potential_delegation_reward'),
    delegators: integer('delegators'),
    amountDelegated: decimal('amount_delegated'),
    delegationCapacity: decimal('delegation_capacity'),
    /** Completed Primary Network validations that paid no validation reward. */
    unrewarded: integer('unrewarded').notNull(),
    /** End of the newest one of those, Unix seconds. */
    newestUnrewardedEnd: integer('newest_unrewarded_end'),
    /** Sum of the node's pending rewards (estimatedReward), nAVAX; NULL before the first read. */
    pendingReward: decimal('pending_reward'),
    updatedAt: timestamp('updated_at').notNull(),
  },
  (t) => [primaryKey(t.network, t.nodeId)],
);

/** The newest bucket stored per usage-metrics series. */
export const usageSummaries = table(
  'usage_summaries',
  {
    source: text('source').notNull(),
    scope: text('scope').notNull(),
    timeInterval: text('time_interval').notNull(),
    groupBy: text('group_by').notNull(),
    /** Unix seconds. */
    latestBucketTimestamp: integer('latest_bucket_timestamp').notNull(),
  },
  (t) => [primaryKey(t.source, t.scope, t.timeInterval, t.groupBy)],
);

/** Per job: its latest finished run and its latest success. */
export const jobSummaries = table('job_summaries', {
  job: text('job').primaryKey(),
  lastStatus: text('last_status').notNull(),
  lastStartedAt: timestamp('last_started_at').notNull(),
  lastFinishedAt: timestamp('last_finished_at').notNull(),
  lastSuccessAt: timestamp('last_success_at'),
});

/** Per export definition: what its operations downloaded and loaded. */
export const exportSummaries = table('export_summaries', {
  exportName: text('export_name').primaryKey(),
  /** Status of its newest operation. */
  latestStatus: text('latest_status').notNull(),
  bytesDownloaded: integer('bytes_downloaded').notNull(),
  filesDownloaded: integer('files_downloaded').notNull(),
  /** CSV rows of its files loaded into exported_transactions. */
  rowsLoaded: integer('rows_loaded').notNull(),
  /** Upstream time (Unix ms) of the newest operation that completed. */
  lastCompletedAtMs: integer('last_completed_at_ms'),
});

/** Operations per export definition and status. */
export const exportStatusCounts = table(
  'export_status_counts',
  {
    exportName: text('export_name').notNull(),
    status: text('status').notNull(),
    operations: integer('operations').notNull(),
  },
  (t) => [primaryKey(t.exportName, t.status)],
);

/** Downloaded files per export definition and load status. */
export const exportFileCounts = table(
  'export_file_counts',
  {
    exportName: text('export_name').notNull(),
    loadStatus: text('load_status').notNull(),
    files: integer('files').notNull(),
  },
  (t) => [primaryKey(t.exportName, t.loadStatus)],
);
