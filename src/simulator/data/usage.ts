/**
 * Usage metrics. Each scope (a network, an org, a chain) has a request rate that varies over the day;
 * its cumulative count C(t) is a closed formula, so a bucket's total is C(end) - C(start): past
 * buckets never change, the current bucket (end = now) grows with the clock, and hours add up to
 * days. Groups split the total by fixed shares; filters keep only the share of the filtered value.
 */
import { hash32, hashString } from '../ids.js';
import type { UsageMetric, UsageMetricsValue } from '../types.js';

export type UsageEndpoint = 'apiUsageMetrics' | 'primaryNetworkRpcUsageMetrics' | 'subnetRpcUsageMetrics';
export type TimeInterval = 'minute' | 'hourly' | 'daily' | 'weekly' | 'monthly';

type Share = readonly [value: string | number, share: number];

const rpcMethods: readonly Share[] = [
  ['eth_call', 0.34],
  ['eth_getBalance', 0.18],
  ['eth_blockNumber', 0.16],
  ['eth_getLogs', 0.12],
  ['eth_getTransactionReceipt', 0.1],
  ['eth_chainId', 0.06],
  ['platform.getCurrentValidators', 0.04],
];
const responseCodes: readonly Share[] = [
  [200, 0.93],
  [400, 0.03],
  [429, 0.02],
  [500, 0.02],
];

/** The groupBy dimensions of each endpoint (the enums of the OpenAPI) and how traffic splits over them. */
export const dimensions: Readonly<Record<UsageEndpoint, Readonly<Record<string, readonly Share[]>>>> = {
  primaryNetworkRpcUsageMetrics: {
    rpcMethod: rpcMethods,
    requestPath: [
      ['/ext/bc/C/rpc', 0.6],
      ['/ext/bc/P', 0.2],
      ['/ext/bc/X', 0.1],
      ['/ext/info', 0.1],
    ],
    responseCode: responseCodes,
    country: [
      ['US', 0.35],
      ['DE', 0.15],
      ['SG', 0.12],
      ['GB', 0.1],
      ['FR', 0.08],
      ['XX', 0.12],
      ['T1', 0.08],
    ],
    continent: [
      ['NA', 0.4],
      ['EU', 0.35],
      ['AS', 0.2],
      ['SA', 0.03],
      ['OC', 0.02],
    ],
    userAgent: [
      ['ethers/6.13.4', 0.35],
      ['viem/2.21.0', 0.3],
      ['web3.js/4.0.3', 0.15],
      ['curl/8.5.0', 0.1],
      ['Go-http-client/1.1', 0.1],
    ],
  },
  apiUsageMetrics: {
    requestPath: [
      ['/v1/transactions', 0.3],
      ['/v1/networks/mainnet/rewards', 0.2],
      ['/v1/avax/supply', 0.2],
      ['/v1/operations/transactions:export', 0.15],
      ['/v1/apiUsageMetrics', 0.15],
    ],
    responseCode: responseCodes,
    chainId: [
      ['43114', 0.7],
      ['43113', 0.2],
      ['432204', 0.1],
    ],
    apiKeyId: [
      ['key-0f3a9c51', 0.6],
      ['key-7be2d004', 0.3],
      ['key-c81e44a9', 0.1],
    ],
    requestType: [
      ['data', 0.8],
      ['rpc', 0.2],
    ],
  },
  subnetRpcUsageMetrics: {
    rpcMethod: rpcMethods,
    responseCode: responseCodes,
    rlBypassToken: [
      ['rlb-none', 0.7],
      ['rlb-3f9a0c2e', 0.3],
    ],
  },
};

/** Query filters that narrow a dimension (filter name → dimension name). */
export const filterDimensions: Readonly<Record<UsageEndpoint, Readonly<Record<string, string>>>> = {
  primaryNetworkRpcUsageMetrics: {
    rpcMethod: 'rpcMethod',
    requestPath: 'requestPath',
    responseCode: 'responseCode',
    country: 'country',
    continent: 'continent',
    userAgent: 'userAgent',
  },
  apiUsageMetrics: {
    requestPath: 'requestPath',
    responseCode: 'responseCode',
    chainId: 'chainId',
    apiKeyId: 'apiKeyId',
    requestType: 'requestType',
  },
  subnetRpcUsageMetrics: {
    rpcMethod: 'rpcMethod',
    responseCode: 'responseCode',
    rlBypassApiToken: 'rlBypassToken',
  },
};

const creditsPerRequest: Readonly<Record<UsageEndpoint, number>> = {
  primaryNetworkRpcUsageMetrics: 1,
  apiUsageMetrics: 20,
  subnetRpcUsageMetrics: 1,
};

export const aggregateDurations: Readonly<Record<TimeInterval, string>> = {
  minute: '1m',
  hourly: '1h',
  daily: '1d',
  weekly: '1w',
  monthly: '1mo',
};

/** Range used when startTimestamp is omitted, counted back from the end. */
export const defaultSpanSeconds: Readonly<Record<TimeInterval, number>> = {
  minute: 3_600,
  hourly: 86_400,
  daily: 7 * 86_400,
  weekly: 28 * 86_400,
  monthly: 365 * 86_400,
};

export function bucketStart(tSec: number, interval: TimeInterval): number {
  switch (interval) {
    case 'minute':
      return Math.floor(tSec / 60) * 60;
    case 'hourly':
      return Math.floor(tSec / 3_600) * 3_600;
    case 'daily':
      return Math.floor(tSec / 86_400) * 86_400;
    case 'weekly': {
      // Weeks start on Monday 00:00 UTC; 1970-01-01 was a Thursday.
      const day = Math.floor(tSec / 86_400);
      return (day - ((day + 3) % 7)) * 86_400;
    }
    case 'monthly': {
      const d = new Date(tSec * 1000);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
    }
    default: {
      const never: never = interval;
      throw new Error(`unknown interval ${String(never)}`);
    }
  }
}

export function nextBucket(startSec: number, interval: TimeInterval): number {
  if (interval === 'monthly') {
    const d = new Date(startSec * 1000);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
  }
  const lengths = { minute: 60, hourly: 3_600, daily: 86_400, weekly: 7 * 86_400 } as const;
  return startSec + lengths[interval];
}

export interface UsageQuery {
  endpoint: UsageEndpoint;
  /** What the traffic belongs to: the network, the org or the chain. */
  scope: string;
  interval: TimeInterval;
  groupBy: string | undefined;
  /** Filter name → value, only the filters the endpoint knows. */
  filters: Readonly<Record<string, string>>;
  /** Bucket starts, ascending (see planBuckets). */
  buckets: readonly number[];
}

/** Bucket starts covering [fromSec, toSec], never past `nowSec` (the current bucket is the last). */
export function planBuckets(
  fromSec: number,
  toSec: number,
  nowSec: number,
  interval: TimeInterval,
): number[] {
  const out: number[] = [];
  const last = Math.min(toSec, nowSec);
  for (let b = bucketStart(fromSec, interval); b <= last; b = nextBucket(b, interval)) out.push(b);
  return out;
}

export function buildMetrics(seed: number, query: UsageQuery, nowSec: number): UsageMetric[] {
  const scopeHash = hash32(seed, hashString(query.endpoint), hashString(query.scope));
  // Requests per second: a base rate per scope with a daily swing of 60% around it.
  const rate = 0.5 + (scopeHash % 4000) / 100;
  const phase = (scopeHash % 628) / 100;
  const day = 86_400;
  const cumulative = (t: number): number =>
    rate * t - ((0.6 * rate * day) / (2 * Math.PI)) * Math.cos((2 * Math.PI * t) / day + phase);

  const dims = dimensions[query.endpoint];
  let filterShare = 1;
  for (const [name, value] of Object.entries(query.filters)) {
    const dim = dims[filterDimensions[query.endpoint][name] ?? ''];
    if (!dim) continue;
    filterShare *= dim.find(([v]) => String(v) === value)?.[1] ?? 0;
  }
  const groups: ReadonlyArray<Share | undefined> = query.groupBy ? (dims[query.groupBy] ?? []) : [undefined];
  const credits = creditsPerRequest[query.endpoint];

  return query.buckets.map((b0) => {
    const end = Math.min(nextBucket(b0, query.interval), nowSec);
    const values = groups.map((group, gi): UsageMetricsValue => {
      const share = filterShare * (group ? group[1] : 1);
      const total = Math.max(0, Math.floor(cumulative(end) * share) - Math.floor(cumulative(b0) * share));
      const h = hash32(scopeHash, b0, gi);
      let invalidShare = 0.005 + (h % 25) / 1000;
      if (query.groupBy === 'responseCode' && group)
        invalidShare = group[0] === 200 || group[0] === 500 ? 0 : 1;
      const invalid = Math.floor(total * invalidShare);
      const elapsed = end - b0;
      const value: UsageMetricsValue = {
        totalRequests: total,
        apiCreditsUsed: total * credits,
        requestsPerSecond: elapsed > 0 ? Math.round((total / elapsed) * 1000) / 1000 : 0,
        successRatePercent: total > 0 ? Math.round(((100 * (total - invalid)) / total) * 100) / 100 : 100,
        medianResponseTimeMsecs: 15 + (h % 180),
        invalidRequests: invalid,
        apiCreditsWasted: invalid * credits,
        groupedBy: query.groupBy ?? 'None',
      };
      if (group) value.groupValue = group[0];
      return value;
    });
    return { timestamp: b0, values };
  });
}
