/** The upstream Data API client: the public surface for jobs, the CLI and tests. */

export * from './auto-renew.js';
export {
  type ApiUsageMetricsParams,
  type CallOptions,
  createDataApiClient,
  type DataApiClient,
  type DataApiClientOptions,
  type ListHistoricalRewardsParams,
  type ListLatestTransactionsParams,
  type ListPendingRewardsParams,
  type ListValidatorDetailsParams,
  type PrimaryNetworkRpcUsageMetricsParams,
  type SubnetRpcUsageMetricsParams,
  type WithFindings,
} from './client.js';
export * from './endpoints.js';
export * from './enums.js';
export {
  BudgetExhaustedError,
  isUnrecoverable,
  type MalformedKind,
  PageTokenRepeatedError,
  RecordRejectedError,
  UpstreamHttpError,
  UpstreamNetworkError,
  UpstreamResponseError,
  upstreamMessage,
} from './errors.js';
export * from './fields.js';
export {
  type AttemptEvent,
  type ComputeUnitBudget,
  createMeter,
  type Meter,
  type MeterSnapshot,
} from './http.js';
export { parseJsonLossless, toPlainDecimal } from './json.js';
export { type Page, type PaginateOptions, paginate } from './paginate.js';
export {
  type Checked,
  checkRecord,
  type DriftKind,
  type DriftName,
  type Findings,
  type FindingsEndpoint,
  REJECT_REASONS,
  type RecordEndpoint,
  type RejectedRecord,
  type RejectReason,
  recheckRecord,
  recordSpecs,
} from './records.js';
export {
  defaultRetryPolicy,
  hintedDelayMs,
  type RetryHints,
  type RetryPolicy,
  retryDelayMs,
} from './retry.js';
export * from './schemas.js';
export * from './staking-schemas.js';
