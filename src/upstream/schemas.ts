/**
 * Response (and request) schemas of the nine endpoints, following spec/data-api.openapi.json: fields
 * required there are required here, optional ones stay optional, and unknown fields are accepted
 * (`z.looseObject`, so they also survive into the parsed value; the upstream "keeps growing").
 * Amounts are strings and stay strings; a malformed amount is a malformed response.
 *
 * Response enums the upstream may extend are "open" (known values typed, any other string accepted)
 * when an unknown value does not change what the collector does with the row: failing a whole page
 * of rewards because of a new `rewardType` would stall the job for nothing. Enums the collector
 * branches on (operationStatus, operationType) or that only echo our request (currencyCode) are strict.
 */
import { isLosslessNumber } from 'lossless-json';
import { z } from 'zod';
import { currencies, networks, primaryNetworkChains } from './endpoints.js';
import {
  apiUsageGroupBys,
  assetTypes,
  callTypes,
  evmOperationTypes,
  operationStatusCodes,
  operationStatuses,
  operationTypes,
  primaryNetworkOperationTypes,
  primaryNetworkRpcGroupBys,
  rewardTypes,
} from './enums.js';
import { CB58_ID, EVM_ADDRESS, EVM_CHAIN_ID, EVM_HASH, NODE_ID } from './identifiers.js';
import { toPlainDecimal } from './json.js';

/** A string enum whose known values are typed but which accepts any other string (see header). */
function openEnum<const T extends readonly [string, ...string[]]>(_known: T) {
  return z.string() as unknown as z.ZodType<T[number] | (string & {}), string>;
}

/** Integer amount in the smallest unit (wei, nAVAX), or another integer sent as text (nonce, block number). */
const uintString = z.string().regex(/^\d+$/, 'expected an unsigned integer string');
/** Decimal amount in whole units (supply figures in AVAX). */
const decimalString = z.string().regex(/^\d+(\.\d+)?$/, 'expected a non-negative decimal string');
/**
 * Fields the API defines narrowly (an id, a hash, a chain id) are validated as such: garbage is
 * refused at the boundary, naming the field, instead of being stored, labelled or printed.
 */
const shaped = (pattern: RegExp, what: string) => z.string().regex(pattern, `expected ${what}`);
const evmChainId = shaped(EVM_CHAIN_ID, 'an EVM chain id: digits, e.g. "43114"');
const evmHash = shaped(EVM_HASH, 'a 0x-prefixed 32-byte hex hash');
const evmAddress = shaped(EVM_ADDRESS, 'a 0x-prefixed hex address of at most 20 bytes');
const cb58Id = shaped(CB58_ID, 'a cb58 id');
const nodeId = shaped(NODE_ID, 'a node id: "NodeID-" followed by a cb58 id');
/** A bech32 Primary Network address, optionally `P-`/`X-` prefixed (the checksum is the config's business). */
const bech32Address = shaped(
  /^(?:[PX]-)?[a-z]{1,20}1[02-9ac-hj-np-z]{38}$/,
  'a bech32 address such as avax1…',
);
/** An open enum's unknown values still have the known ones' shape: upper-case words. */
const enumWord = (what: string) =>
  shaped(/^[A-Z][A-Z0-9_]{0,63}$/, `${what}: upper-case letters, digits and "_"`);

/** A JSON number that lossless parsing may have kept as a LosslessNumber (not an amount: a float is fine). */
const jsonNumber = z.preprocess((v) => (isLosslessNumber(v) ? Number(v.toString()) : v), z.number());

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
  name: z.string().optional(),
  symbol: z.string().optional(),
  decimals: z.number().optional(),
  logoUri: z.string().optional(),
  address: evmAddress,
});
export type RichAddress = z.output<typeof richAddressSchema>;

export const methodSchema = z.looseObject({
  /** Open: a new call type does not change how a transaction row is stored. */
  callType: openEnum(callTypes),
  methodHash: z.string(),
  methodName: z.string().optional(),
});

export const transactionSchema = z.looseObject({
  blockNumber: uintString,
  blockTimestamp: z.number(),
  blockTimestampMilliseconds: z.number().optional(),
  blockMinDelayExcess: z.number().optional(),
  blockHash: evmHash,
  chainId: evmChainId,
  blockIndex: z.number(),
  txHash: evmHash,
  /** `"0"` or `"1"` as text; kept a string as sent. */
  txStatus: shaped(/^[01]$/, '"0" or "1"'),
  txType: z.number(),
  gasLimit: uintString,
  gasUsed: uintString,
  gasPrice: uintString,
  nonce: uintString,
  from: richAddressSchema,
  to: richAddressSchema,
  method: methodSchema.optional(),
  value: uintString,
});
/** NativeTransaction in the OpenAPI. */
export type Transaction = z.output<typeof transactionSchema>;

export const listTransactionsResponseSchema = z.looseObject({
  nextPageToken: z.string().optional(),
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
    return plain;
  });

export const moneySchema = z.looseObject({
  currencyCode: currencySchema,
  value: priceValueSchema,
});

export const assetWithPriceInfoSchema = z.looseObject({
  assetId: cb58Id,
  name: z.string(),
  symbol: z.string(),
  denomination: jsonNumber,
  /** Open: `secp256k1` or `nft` today. */
  type: openEnum(assetTypes),
  amount: uintString,
  /** Only present for rewards older than 24 h. */
  historicalPrice: moneySchema.optional(),
});

export const historicalRewardSchema = z.looseObject({
  addresses: z.array(bech32Address),
  txHash: cb58Id,
  amountStaked: uintString,
  nodeId,
  startTimestamp: jsonNumber,
  endTimestamp: jsonNumber,
  /** Open: a new reward type is stored as sent rather than failing the page. */
  rewardType: openEnum(rewardTypes).pipe(enumWord('a reward type')),
  utxoId: cb58Id,
  outputIndex: jsonNumber,
  reward: assetWithPriceInfoSchema,
  rewardTxHash: cb58Id,
});
export type HistoricalReward = z.output<typeof historicalRewardSchema>;

export const listHistoricalRewardsResponseSchema = z.looseObject({
  nextPageToken: z.string().optional(),
  historicalRewards: z.array(historicalRewardSchema),
});

// ---- usage metrics (three variants) ----

const metricValueFields = {
  totalRequests: z.number(),
  apiCreditsUsed: z.number(),
  requestsPerSecond: z.number(),
  successRatePercent: z.number(),
  medianResponseTimeMsecs: z.number(),
  invalidRequests: z.number(),
  apiCreditsWasted: z.number(),
  groupValue: z.union([z.string(), z.number()]).optional(),
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

export const apiUsageMetricsSchema = z.looseObject({
  aggregateDuration: z.string(),
  orgId: z.string(),
  metrics: z.array(z.looseObject({ timestamp: z.number(), values: z.array(usageMetricsValueSchema) })),
});
const rpcMetricsSchema = z.looseObject({
  timestamp: z.number(),
  values: z.array(rpcUsageMetricsValueSchema),
});
export const primaryNetworkRpcUsageMetricsSchema = z.looseObject({
  aggregateDuration: z.string(),
  metrics: z.array(rpcMetricsSchema),
  /** Open: `mainnet` or `testnet` per the OpenAPI; the echo of a request for `fuji` is not pinned down. */
  network: openEnum(['mainnet', 'testnet']),
});
export const subnetRpcUsageMetricsSchema = z.looseObject({
  aggregateDuration: z.string(),
  metrics: z.array(rpcMetricsSchema),
  chainId: z.string(),
});
/** UsageMetricsResponseDTO (GET /v1/apiUsageMetrics). */
export type ApiUsageMetrics = z.output<typeof apiUsageMetricsSchema>;
/** PrimaryNetworkRpcUsageMetricsResponseDTO. */
export type PrimaryNetworkRpcUsageMetrics = z.output<typeof primaryNetworkRpcUsageMetricsSchema>;
/** SubnetRpcUsageMetricsResponseDTO. */
export type SubnetRpcUsageMetrics = z.output<typeof subnetRpcUsageMetricsSchema>;
export type UsageMetricsResponse = ApiUsageMetrics | PrimaryNetworkRpcUsageMetrics | SubnetRpcUsageMetrics;

// ---- signatures, operations ----

export const signatureResponseSchema = z.looseObject({ signedMessage: z.string() });
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
  message: z.string().optional(),
  metadata: transactionExportMetadataSchema.optional(),
  createdAtTimestamp: z.number(),
  updatedAtTimestamp: z.number(),
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
