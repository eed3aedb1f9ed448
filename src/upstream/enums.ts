/**
 * Enums of the Data API parameters and responses, from spec/data-api.openapi.json.
 * Networks, currencies and Primary Network chains live in endpoints.ts.
 */
import * as z from 'zod';
import type { primaryNetworkChains } from './endpoints.js';

export const sortOrders = ['asc', 'desc'] as const;
export const transactionStatuses = ['failed', 'success'] as const;
export const rewardTypes = ['VALIDATOR', 'DELEGATOR', 'VALIDATOR_FEE'] as const;
export const assetTypes = ['secp256k1', 'nft'] as const;
export const callTypes = ['NATIVE_TRANSFER', 'CONTRACT_CALL', 'CONTRACT_CREATION'] as const;
export const operationStatuses = ['RUNNING', 'COMPLETED', 'COMPLETED_WITH_WARNING', 'FAILED'] as const;
export const evmOperationTypes = ['TRANSACTION_EXPORT_EVM'] as const;
export const primaryNetworkOperationTypes = [
  'TRANSACTION_EXPORT_PRIMARY_NETWORK',
  'TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING',
  'TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE',
] as const;
export const operationTypes = [...primaryNetworkOperationTypes, ...evmOperationTypes] as const;
export const operationStatusCodes = ['ErrInvalidRequest', 'ErrInternal', 'WarnTruncatedExport'] as const;
/** Data API usage metrics: `timeInterval` (TimeIntervalGranularityExtended). */
export const apiUsageTimeIntervals = ['minute', 'hourly', 'daily', 'weekly', 'monthly'] as const;
/** Primary Network and Subnet RPC usage metrics: `timeInterval`. */
export const rpcTimeIntervals = ['hourly', 'daily', 'weekly', 'monthly'] as const;
export const apiUsageGroupBys = [
  'requestPath',
  'responseCode',
  'chainId',
  'apiKeyId',
  'requestType',
] as const;
export const primaryNetworkRpcGroupBys = [
  'rpcMethod',
  'requestPath',
  'responseCode',
  'country',
  'continent',
  'userAgent',
] as const;
export const subnetRpcGroupBys = ['rpcMethod', 'responseCode', 'rlBypassToken'] as const;
export const requestTypes = ['data', 'rpc'] as const;

export type SortOrder = (typeof sortOrders)[number];
export type TransactionStatus = (typeof transactionStatuses)[number];
export type RewardType = (typeof rewardTypes)[number];
export type AssetType = (typeof assetTypes)[number];
export type CallType = (typeof callTypes)[number];
export type OperationStatus = (typeof operationStatuses)[number];
export type OperationType = (typeof operationTypes)[number];
export type OperationStatusCode = (typeof operationStatusCodes)[number];
export type ApiUsageTimeInterval = (typeof apiUsageTimeIntervals)[number];
export type RpcTimeInterval = (typeof rpcTimeIntervals)[number];
export type ApiUsageGroupBy = (typeof apiUsageGroupBys)[number];
export type PrimaryNetworkRpcGroupBy = (typeof primaryNetworkRpcGroupBys)[number];
export type SubnetRpcGroupBy = (typeof subnetRpcGroupBys)[number];
export type RequestType = (typeof requestTypes)[number];
export type PrimaryNetworkChain = (typeof primaryNetworkChains)[number];

/** The known values of each open enum (`openEnum`), which the drift walk reads (records.ts). */
export const openEnums = z.registry<{ known: readonly string[] }>();

/** A word an open enum accepts beyond its known values: letters, digits and a few separators. */
const ENUM_WORD = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;

/**
 * A string enum whose known values are typed but which accepts any other word: failing a whole
 * record because of a new `rewardType` would set data aside for nothing. An unknown value is seen
 * as drift.
 */
export function openEnum<const T extends readonly [string, ...string[]]>(known: T) {
  const schema = z
    .string()
    .regex(ENUM_WORD, 'expected a word: a letter, then letters, digits, "_", ".", ":" or "-", at most 64');
  schema.register(openEnums, { known });
  return schema as unknown as z.ZodType<T[number] | (string & {}), string>;
}
