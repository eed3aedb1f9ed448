/** The upstream Data API client: the public surface for jobs, the CLI and tests. */
export {
  type ApiUsageMetricsParams,
  type CallOptions,
  createDataApiClient,
  type DataApiClient,
  type DataApiClientOptions,
  type ListHistoricalRewardsParams,
  type ListLatestTransactionsParams,
  type PrimaryNetworkRpcUsageMetricsParams,
  type SubnetRpcUsageMetricsParams,
} from './client.js';
export * from './endpoints.js';
export * from './enums.js';
export {
  BudgetExhaustedError,
  isUnrecoverable,
  type MalformedKind,
  PageTokenRepeatedError,
  UpstreamHttpError,
  UpstreamNetworkError,
  UpstreamResponseError,
} from './errors.js';
export type { AttemptEvent, ComputeUnitBudget } from './http.js';
export { parseJsonLossless, toPlainDecimal } from './json.js';
export { createMeter, type Meter, type MeterSnapshot } from './meter.js';
export { type Page, type PaginateOptions, paginate } from './paginate.js';
export {
  defaultRetryPolicy,
  hintedDelayMs,
  type RetryHints,
  type RetryPolicy,
  retryDelayMs,
} from './retry.js';
export * from './schemas.js';
