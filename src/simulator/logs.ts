/** What the simulator received and served, kept for tests and the benchmark to compare against. */
import type { EndpointName } from '../upstream/endpoints.js';
import type { AvaxSupply, HistoricalReward, NativeTransaction, OperationStatusResponse } from './types.js';
import type { DelegatorDetails, PendingReward, ValidatorDetails } from './validator-types.js';

export interface SimRequestLog {
  method: string;
  path: string;
  query: Record<string, string>;
  endpoint: EndpointName | 'download' | 'unknown';
  /** Status sent; 0 when the fault injector reset the connection. */
  status: number;
  /** Whether an API key was sent (the key itself is never kept). */
  hadApiKey: boolean;
  /** The injected fault, e.g. `plan:503`, `rate:truncate`. */
  fault?: string;
  /** Clock time the request arrived, ms. */
  at: number;
}

export type UsageMetricsEndpoint =
  | 'apiUsageMetrics'
  | 'primaryNetworkRpcUsageMetrics'
  | 'subnetRpcUsageMetrics';

/**
 * Success bodies sent, before fault mutation. Bodies the client could not use (the truncate and
 * malformed faults) are not recorded; bodies with extra fields are.
 */
export interface ServedLog {
  supply: AvaxSupply[];
  transactions: NativeTransaction[];
  rewards: HistoricalReward[];
  usageMetrics: { endpoint: UsageMetricsEndpoint; query: Record<string, string>; body: unknown }[];
  signatures: { network: string; txHash: string; signedMessage: string }[];
  operations: OperationStatusResponse[];
  downloads: { operationId: string; bytes: number }[];
  validators: ValidatorDetails[];
  delegators: DelegatorDetails[];
  pendingRewards: PendingReward[];
}

export function createServedLog(): ServedLog {
  return {
    supply: [],
    transactions: [],
    rewards: [],
    usageMetrics: [],
    signatures: [],
    operations: [],
    downloads: [],
    validators: [],
    delegators: [],
    pendingRewards: [],
  };
}

/**
 * Keeps a log array under `limit` entries by dropping the oldest, in place (the handle exposes the
 * arrays themselves). Trimming waits for 10% slack so its cost is amortised.
 */
export function trimLog(log: unknown[], limit: number): void {
  if (log.length > limit + Math.ceil(limit / 10)) log.splice(0, log.length - limit);
}

export function trimServed(served: ServedLog, limit: number): void {
  for (const list of Object.values(served) as unknown[][]) trimLog(list, limit);
}
