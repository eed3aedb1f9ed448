/**
 * The simulator's own resource types, written from the schemas of spec/data-api.openapi.json
 * (components.schemas.*). They describe what the simulator sends; the client validates with its own
 * zod schemas, so the two sides cannot silently agree on a mistake.
 */
import type { Currency } from '../upstream/endpoints.js';

/** RichAddress: only `address` is required; the other fields are present for known contracts. */
export interface RichAddress {
  name?: string;
  symbol?: string;
  decimals?: number;
  logoUri?: string;
  address: string;
}

export type TransactionMethodType = 'NATIVE_TRANSFER' | 'CONTRACT_CALL' | 'CONTRACT_CREATION';

export interface TransactionMethod {
  callType: TransactionMethodType;
  methodHash: string;
  methodName?: string;
}

/** NativeTransaction (element of ListNativeTransactionsResponse.transactions). */
export interface NativeTransaction {
  blockNumber: string;
  /** Seconds. */
  blockTimestamp: number;
  /** Milliseconds; optional (only after the Granite upgrade). */
  blockTimestampMilliseconds?: number;
  blockMinDelayExcess?: number;
  blockHash: string;
  chainId: string;
  blockIndex: number;
  txHash: string;
  /** "0" failed, "1" success. */
  txStatus: '0' | '1';
  txType: number;
  gasLimit: string;
  gasUsed: string;
  gasPrice: string;
  nonce: string;
  from: RichAddress;
  to: RichAddress;
  method?: TransactionMethod;
  /** Wei, decimal string. */
  value: string;
}

export interface ListNativeTransactionsResponse {
  nextPageToken?: string;
  transactions: NativeTransaction[];
}

export interface Money {
  currencyCode: Currency;
  /** A JSON number (Money.value is `type: number` in the OpenAPI). */
  value: number;
}

export interface AssetWithPriceInfo {
  assetId: string;
  name: string;
  symbol: string;
  denomination: number;
  type: 'secp256k1' | 'nft';
  /** nAVAX, integer decimal string. */
  amount: string;
  /** Only for rewards that ended more than 24 h before the clock. */
  historicalPrice?: Money;
}

export type RewardType = 'VALIDATOR' | 'DELEGATOR' | 'VALIDATOR_FEE';

export interface HistoricalReward {
  addresses: string[];
  txHash: string;
  amountStaked: string;
  nodeId: string;
  /** Seconds. */
  startTimestamp: number;
  /** Seconds. */
  endTimestamp: number;
  rewardType: RewardType;
  utxoId: string;
  outputIndex: number;
  reward: AssetWithPriceInfo;
  rewardTxHash: string;
  /** ACP-236 (the SDK's next release): present on the rewards of auto-renewed validations only. */
  stakingType?: 'fixed' | 'autoRenewed';
}

export interface ListHistoricalRewardsResponse {
  nextPageToken?: string;
  historicalRewards: HistoricalReward[];
}

export interface AvaxSupply {
  circulatingSupply: string;
  totalSupply: string;
  totalPBurned: string;
  totalCBurned: string;
  totalXBurned: string;
  totalStaked: string;
  totalLocked: string;
  totalRewards: string;
  /** ISO 8601 with milliseconds and Z. */
  lastUpdated: string;
  genesisUnlock: string;
  l1ValidatorFees: string;
}

export interface SignatureAggregationResponse {
  signedMessage: string;
}

export type OperationType =
  | 'TRANSACTION_EXPORT_PRIMARY_NETWORK'
  | 'TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING'
  | 'TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE'
  | 'TRANSACTION_EXPORT_EVM';
export type OperationStatus = 'RUNNING' | 'COMPLETED' | 'COMPLETED_WITH_WARNING' | 'FAILED';
export type OperationStatusCode = 'ErrInvalidRequest' | 'ErrInternal' | 'WarnTruncatedExport';

export interface TransactionExportMetadata {
  code?: OperationStatusCode;
  downloadUrl?: string;
  /** YYYY-MM-DD: the firstDate of the follow-up export after WarnTruncatedExport. */
  nextDate?: string;
}

export interface OperationStatusResponse {
  operationId: string;
  operationType: OperationType;
  operationStatus: OperationStatus;
  message?: string;
  metadata?: TransactionExportMetadata;
  /** Milliseconds. */
  createdAtTimestamp: number;
  /** Milliseconds. */
  updatedAtTimestamp: number;
}

/** The value record shared by the three usage-metrics variants. */
export interface UsageMetricsValue {
  totalRequests: number;
  apiCreditsUsed: number;
  requestsPerSecond: number;
  successRatePercent: number;
  medianResponseTimeMsecs: number;
  invalidRequests: number;
  apiCreditsWasted: number;
  /** The groupBy asked, or 'None'. */
  groupedBy: string;
  groupValue?: string | number;
}

export interface UsageMetric {
  /** Seconds: the start of the bucket. */
  timestamp: number;
  values: UsageMetricsValue[];
}

export interface UsageMetricsResponse {
  aggregateDuration: string;
  orgId: string;
  metrics: UsageMetric[];
}

export interface PrimaryNetworkRpcUsageMetricsResponse {
  aggregateDuration: string;
  metrics: UsageMetric[];
  network: 'mainnet' | 'testnet';
}

export interface SubnetRpcUsageMetricsResponse {
  aggregateDuration: string;
  metrics: UsageMetric[];
  chainId: string;
}

export type AnyUsageMetricsResponse =
  | UsageMetricsResponse
  | PrimaryNetworkRpcUsageMetricsResponse
  | SubnetRpcUsageMetricsResponse;

/** The error body of every non-2xx answer. */
export interface ErrorBody {
  message: string | string[];
  statusCode: number;
  error: string;
}
