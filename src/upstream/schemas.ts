/**
 * Response (and request) schemas of the nine endpoints, following spec/data-api.openapi.json: fields
 * required there are required here, optional ones stay optional, and unknown fields are accepted
 * (`z.looseObject`, so they also survive into the parsed value; the upstream "keeps growing").
 * Amounts are strings and stay strings; times, positions, amounts and free text are bounded
 * (fields.ts): a value outside its bound fails the record.
 *
 * Lists are checked record by record (records.ts): an answer is its envelope (the list itself,
 * the page token, the fields around the list), which must be right or the answer is broken, and its
 * records, each of which passes or is set aside on its own. The `…Envelope` schemas are what the
 * client checks first; the full `…Response` schemas (envelope and records) are what the simulator's
 * answers are tested against.
 *
 * Response enums the upstream may extend are "open" (known values typed, any other word accepted,
 * and seen as drift: records.ts) when an unknown value does not change what the collector does with the
 * row. Enums the collector branches on (operationStatus, operationType) or that only echo our
 * request (currencyCode) are strict.
 */
import { isLosslessNumber } from 'lossless-json';
import * as z from 'zod';
import { stakingTypeField } from './auto-renew.js';
import { currencies, networks, primaryNetworkChains } from './endpoints.js';
import {
  apiUsageGroupBys,
  assetTypes,
  callTypes,
  evmOperationTypes,
  openEnum,
  operationStatusCodes,
  operationStatuses,
  operationTypes,
  primaryNetworkOperationTypes,
  primaryNetworkRpcGroupBys,
  rewardTypes,
} from './enums.js';
import {
  BOUND,
  denomination,
  jsonPosition,
  jsonUnixSeconds,
  position,
  shaped,
  smallInteger,
  text,
  uintString,
  unixMilliseconds,
  unixSeconds,
} from './fields.js';
import { CB58_ID, EVM_ADDRESS, EVM_CHAIN_ID, EVM_HASH, NODE_ID } from './identifiers.js';
import { toPlainDecimal } from './json.js';

/** Decimal amount in whole units (supply figures in AVAX). */
const decimalString = z
  .string()
  .regex(/^\d+(\.\d+)?$/, 'expected a non-negative decimal string')
  .max(160, `${BOUND} expected at most 160 characters`);
/*
 * Fields the API defines narrowly (an id, a hash, a chain id) are validated as such: garbage is
 * refused at the boundary, naming the field, instead of being stored, labelled or printed.
 */
export const evmChainId = shaped(EVM_CHAIN_ID, 'an EVM chain id: digits, e.g. "43114"');
export const evmHash = shaped(EVM_HASH, 'a 0x-prefixed 32-byte hex hash');
const evmAddress = shaped(EVM_ADDRESS, 'a 0x-prefixed hex address of at most 20 bytes');
export const cb58Id = shaped(CB58_ID, 'a cb58 id');
const nodeId = shaped(NODE_ID, 'a node id: "NodeID-" followed by a cb58 id');
/** A bech32 Primary Network address, optionally `P-`/`X-` prefixed (the checksum is the config's business). */
const bech32Address = shaped(
  /^(?:[PX]-)?[a-z]{1,20}1[02-9ac-hj-np-z]{38}$/,
  'a bech32 address such as avax1…',
);
/** An open enum's unknown values still have the known ones' shape: upper-case words. */
const enumWord = (what: string) =>
  shaped(/^[A-Z][A-Z0-9_]{0,63}$/, `${what}: upper-case letters, digits and "_"`);
/** A page token is sent back in a URL: visible ASCII, bounded; empty means the last page. */
const pageToken = z
  .string()
  .max(4096, `${BOUND} expected a page token of at most 4096 characters`)
  .regex(/^[\x21-\x7e]*$/, 'expected a page token of visible ASCII characters');
/** A JSON number the client parses as a float anyway (a metric), finite. */
const metric = z.number();

// ---- enums (request and response) ----

export const networkSchema = z.enum(networks);
export const currencySchema = z.enum(currencies);

// ---- GET /v1/avax/supply (AvaxSupplyResponse) ----

export const supplySchema = z.looseObject({
  circulatingSupply: decimalString,
  totalSupply: decimalString,
  totalPBurned: decimalString,
  totalCBurned: decimalString,
  totalXBurned: decimalString,
  totalStaked: decimalString,
  totalLocked: decimalString,
  totalRewards: decimalString,
  lastUpdated: z.iso.datetime({ offset: true }),
  genesisUnlock: decimalString,
  l1ValidatorFees: decimalString,
});
export type Supply = z.output<typeof supplySchema>;

// ---- GET /v1/transactions (ListNativeTransactionsResponse) ----

export const richAddressSchema = z.looseObject({
  name: text(1024).optional(),
  symbol: text(256).optional(),
  /** A token's decimals: a uint8. */
  decimals: smallInteger(255).optional(),
  logoUri: text().optional(),
  address: evmAddress,
});
export type RichAddress = z.output<typeof richAddressSchema>;

export const methodSchema = z.looseObject({
  /** Open: a new call type does not change how a transaction row is stored. */
  callType: openEnum(callTypes),
  methodHash: text(256),
  methodName: text().optional(),
});

export const transactionSchema = z.looseObject({
  blockNumber: uintString,
  blockTimestamp: unixSeconds,
  blockTimestampMilliseconds: unixMilliseconds.optional(),
  blockMinDelayExcess: position.optional(),
  blockHash: evmHash,
  chainId: evmChainId,
  blockIndex: position,
  txHash: evmHash,
  /** `"0"` or `"1"` as text; kept a string as sent. */
  txStatus: shaped(/^[01]$/, '"0" or "1"'),
  /** EIP-2718 types are a byte; PostgreSQL keeps it an `integer`. */
  txType: smallInteger(2 ** 31 - 1),
  gasLimit: uintString,
  gasUsed: uintString,
  gasPrice: uintString,
  nonce: uintString,
  from: richAddressSchema,
  /**
   * Required by the OpenAPI, but a contract creation has no recipient: absent or `null` is stored
   * as a NULL `to_address` rather than refused.
   */
  to: richAddressSchema.nullish(),
  method: methodSchema.optional(),
  value: uintString,
});
/** NativeTransaction in the OpenAPI. */
export type Transaction = z.output<typeof transactionSchema>;

export const listTransactionsEnvelopeSchema = z.looseObject({
  nextPageToken: pageToken.optional(),
  transactions: z.array(z.unknown()),
});
export const listTransactionsResponseSchema = listTransactionsEnvelopeSchema.extend({
  transactions: z.array(transactionSchema),
});

// ---- GET /v1/networks/{network}/rewards (ListHistoricalRewardsResponse) ----

/**
 * `Money.value` is `type: number` in the OpenAPI but is an amount: the client parses the rewards body
 * losslessly (json.ts), so it arrives as a safe integer or a LosslessNumber, and leaves as the exact
 * decimal string of its source text. A string is accepted too (interface.md shows it as text).
 * A non-integer JS number is refused: it has been through a float already, so the digits may be lost.
 */
export const priceValueSchema = z
  .union([z.string(), z.number().int(), z.custom<{ toString(): string }>((v) => isLosslessNumber(v))])
  .transform((v, ctx) => {
    const plain = toPlainDecimal(typeof v === 'string' ? v : v.toString());
    if (plain === undefined || !/^\d+(\.\d+)?$/.test(plain)) {
      ctx.addIssue({ code: 'custom', message: 'expected a non-negative decimal number' });
      return z.NEVER;
    }
    if (plain.length > 160) {
      ctx.addIssue({ code: 'custom', message: `${BOUND} expected a price of at most 160 digits` });
      return z.NEVER;
    }
    return plain;
  });

export const moneySchema = z.looseObject({
  currencyCode: currencySchema,
  value: priceValueSchema,
});

export const assetWithPriceInfoSchema = z.looseObject({
  assetId: cb58Id,
  name: text(1024),
  symbol: text(256),
  /** Decimals of the asset: 0..30 (AVAX: 9). */
  denomination,
  /** Open: `secp256k1` or `nft` today. */
  type: openEnum(assetTypes),
  amount: uintString,
  /** Only present for rewards older than 24 h. */
  historicalPrice: moneySchema.optional(),
});

export const historicalRewardSchema = z.looseObject({
  addresses: z.array(bech32Address).max(1000, `${BOUND} expected at most 1000 addresses`),
  txHash: cb58Id,
  amountStaked: uintString,
  nodeId,
  startTimestamp: jsonUnixSeconds,
  endTimestamp: jsonUnixSeconds,
  /** Open: a new reward type is stored as sent rather than failing the record. */
  rewardType: openEnum(rewardTypes).pipe(enumWord('a reward type')),
  utxoId: cb58Id,
  outputIndex: jsonPosition,
  reward: assetWithPriceInfoSchema,
  rewardTxHash: cb58Id,
  /** ACP-236 (unreleased SDK 0.3.14, auto-renew.ts): absent today, which is `fixed`. */
  stakingType: stakingTypeField,
});
export type HistoricalReward = z.output<typeof historicalRewardSchema>;

export const listHistoricalRewardsEnvelopeSchema = z.looseObject({
  nextPageToken: pageToken.optional(),
  historicalRewards: z.array(z.unknown()),
});
export const listHistoricalRewardsResponseSchema = listHistoricalRewardsEnvelopeSchema.extend({
  historicalRewards: z.array(historicalRewardSchema),
});

// ---- usage metrics (three variants) ----

const metricValueFields = {
  totalRequests: metric,
  apiCreditsUsed: metric,
  requestsPerSecond: metric,
  successRatePercent: metric,
  medianResponseTimeMsecs: metric,
  invalidRequests: metric,
  apiCreditsWasted: metric,
  /** Part of the row's key: bounded well below PostgreSQL's index row size. */
  groupValue: z.union([text(512), z.number()]).optional(),
};

export const usageMetricsValueSchema = z.looseObject({
  ...metricValueFields,
  /** Open: the grouping criteria grow with the API; `None` when ungrouped. */
  groupedBy: openEnum([...apiUsageGroupBys, 'None']),
});
export const rpcUsageMetricsValueSchema = z.looseObject({
  ...metricValueFields,
  groupedBy: openEnum([...primaryNetworkRpcGroupBys, 'rlBypassToken', 'None']),
});
export type UsageMetricsValue = z.output<typeof usageMetricsValueSchema>;
export type RpcUsageMetricsValue = z.output<typeof rpcUsageMetricsValueSchema>;

/**
 * One record of a usage answer: a value of a bucket, with its bucket's start. The bucket's list of
 * values is the envelope's; each value passes or is set aside on its own.
 */
export const usageRecordSchema = (
  value: typeof usageMetricsValueSchema | typeof rpcUsageMetricsValueSchema,
) => z.object({ timestamp: unixSeconds, value });

/** A bucket as the envelope sees it: its start and its values, each checked as a record. */
const bucketEnvelope = z.looseObject({ timestamp: z.unknown(), values: z.array(z.unknown()) });

const usageEnvelopeFields = {
  aggregateDuration: text(64),
  metrics: z.array(bucketEnvelope),
};
export const apiUsageMetricsEnvelopeSchema = z.looseObject({
  ...usageEnvelopeFields,
  orgId: text(256),
});
export const primaryNetworkRpcUsageMetricsEnvelopeSchema = z.looseObject({
  ...usageEnvelopeFields,
  /** Open: `mainnet` or `testnet` per the OpenAPI; the echo of a request for `fuji` is not pinned down. */
  network: openEnum(['mainnet', 'testnet']),
});
export const subnetRpcUsageMetricsEnvelopeSchema = z.looseObject({
  ...usageEnvelopeFields,
  chainId: text(256),
});

const bucketOf = <V extends z.ZodType>(value: V) =>
  z.looseObject({ timestamp: unixSeconds, values: z.array(value) });
export const apiUsageMetricsSchema = apiUsageMetricsEnvelopeSchema.extend({
  metrics: z.array(bucketOf(usageMetricsValueSchema)),
});
export const primaryNetworkRpcUsageMetricsSchema = primaryNetworkRpcUsageMetricsEnvelopeSchema.extend({
  metrics: z.array(bucketOf(rpcUsageMetricsValueSchema)),
});
export const subnetRpcUsageMetricsSchema = subnetRpcUsageMetricsEnvelopeSchema.extend({
  metrics: z.array(bucketOf(rpcUsageMetricsValueSchema)),
});

/** A bucket of an answer, its values those that passed. */
export interface UsageBucket<V> {
  timestamp: number;
  values: V[];
}
/** UsageMetricsResponseDTO (GET /v1/apiUsageMetrics). */
export interface ApiUsageMetrics {
  aggregateDuration: string;
  orgId: string;
  metrics: UsageBucket<UsageMetricsValue>[];
}
/** PrimaryNetworkRpcUsageMetricsResponseDTO. */
export interface PrimaryNetworkRpcUsageMetrics {
  aggregateDuration: string;
  network: string;
  metrics: UsageBucket<RpcUsageMetricsValue>[];
}
/** SubnetRpcUsageMetricsResponseDTO. */
export interface SubnetRpcUsageMetrics {
  aggregateDuration: string;
  chainId: string;
  metrics: UsageBucket<RpcUsageMetricsValue>[];
}
export type UsageMetricsResponse = ApiUsageMetrics | PrimaryNetworkRpcUsageMetrics | SubnetRpcUsageMetrics;

// ---- signatures, operations ----

/** The signed warp message, hex (the OpenAPI's example), bounded. */
export const signatureResponseSchema = z.looseObject({
  signedMessage: z
    .string()
    .max(262_144, `${BOUND} expected at most 262144 characters`)
    .regex(/^(0x)?[0-9a-fA-F]*$/, 'expected a hex string'),
});
export type SignatureResponse = z.output<typeof signatureResponseSchema>;

export const transactionExportMetadataSchema = z.looseObject({
  /** Open: export problem codes are reported, the job branches on operationStatus. */
  code: openEnum(operationStatusCodes).optional(),
  /** Present for COMPLETED and COMPLETED_WITH_WARNING; fetched without the API key (not by this client). */
  downloadUrl: z
    .string()
    .max(8192, 'expected a URL of at most 8192 characters')
    .regex(/^https?:\/\/[\x21-\x7e]+$/, 'expected an http(s) URL without spaces or control characters')
    .optional(),
  /** `YYYY-MM-DD`: the firstDate of the follow-up export after WarnTruncatedExport. */
  nextDate: shaped(/^\d{4}-\d{2}-\d{2}$/, 'a date YYYY-MM-DD').optional(),
});

/** OperationStatusResponse. operationStatus and operationType are strict: the export job branches on them. */
export const operationSchema = z.looseObject({
  /** It names a file and a URL path segment: letters, digits and a few separators, bounded. */
  operationId: shaped(
    /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/,
    'an operation id: letters, digits, "_", ".", ":", "-", at most 128',
  ),
  operationType: z.enum(operationTypes),
  operationStatus: z.enum(operationStatuses),
  /** Human text, stored: a NUL (PostgreSQL refuses it) is dropped and a long one cut, not refused. */
  message: z
    .string()
    .transform((v) => {
      const clean = v.replaceAll('\u0000', '');
      return clean.length > 4096 ? `${clean.slice(0, 4096)}…` : clean;
    })
    .optional(),
  metadata: transactionExportMetadataSchema.optional(),
  createdAtTimestamp: unixMilliseconds,
  updatedAtTimestamp: unixMilliseconds,
});
export type Operation = z.output<typeof operationSchema>;

// ---- POST /v1/operations/transactions:export (request body) ----

const exportDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD');
const exportDates = {
  firstDate: exportDate.optional(),
  lastDate: exportDate.optional(),
  /** @deprecated use firstDate */
  startDate: exportDate.optional(),
  /** @deprecated use lastDate */
  endDate: exportDate.optional(),
};

export const createEvmExportRequestSchema = z.object({
  type: z.enum(evmOperationTypes),
  ...exportDates,
  options: z.object({ addresses: z.array(z.string()), includeChains: z.array(z.string()) }),
});
export const createPrimaryNetworkExportRequestSchema = z.object({
  type: z.enum(primaryNetworkOperationTypes),
  ...exportDates,
  options: z.object({
    addresses: z.array(z.string()).optional(),
    cChainEvmAddresses: z.array(z.string()).optional(),
    includeChains: z.array(z.enum(primaryNetworkChains)),
  }),
});
export const createExportRequestSchema = z.discriminatedUnion('type', [
  createEvmExportRequestSchema,
  createPrimaryNetworkExportRequestSchema,
]);
export type CreateEvmExportRequest = z.input<typeof createEvmExportRequestSchema>;
export type CreatePrimaryNetworkExportRequest = z.input<typeof createPrimaryNetworkExportRequestSchema>;
export type CreateExportRequest = z.input<typeof createExportRequestSchema>;

// ---- error body (BadRequest, Unauthorized, ... ServiceUnavailable share it) ----

export const errorBodySchema = z.looseObject({
  /** A string, or an array of strings (validation errors). */
  message: z.union([z.string(), z.array(z.string())]),
  statusCode: z.number(),
  error: z.string(),
});
export type ErrorBody = z.output<typeof errorBodySchema>;

/** Every schema, for tests and for code that validates data of the same shapes. */
export const schemas = {
  network: networkSchema,
  currency: currencySchema,
  supply: supplySchema,
  richAddress: richAddressSchema,
  transaction: transactionSchema,
  listTransactionsResponse: listTransactionsResponseSchema,
  money: moneySchema,
  historicalReward: historicalRewardSchema,
  listHistoricalRewardsResponse: listHistoricalRewardsResponseSchema,
  usageMetricsValue: usageMetricsValueSchema,
  rpcUsageMetricsValue: rpcUsageMetricsValueSchema,
  apiUsageMetrics: apiUsageMetricsSchema,
  primaryNetworkRpcUsageMetrics: primaryNetworkRpcUsageMetricsSchema,
  subnetRpcUsageMetrics: subnetRpcUsageMetricsSchema,
  signatureResponse: signatureResponseSchema,
  operation: operationSchema,
  createExportRequest: createExportRequestSchema,
  errorBody: errorBodySchema,
} as const;
