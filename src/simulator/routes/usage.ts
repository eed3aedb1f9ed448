/**
 * The three usage-metrics endpoints. No pagination. Defaults (not documented upstream, chosen here):
 * timeInterval `daily`; no groupBy (one value record per bucket, groupedBy `None`); range = the
 * defaultSpanSeconds of the interval ending now. Given timestamps are rounded down to 00:00 UTC and
 * the range covers whole days, from the start day through the end day; buckets never start after now.
 */
import { networks } from '../../upstream/endpoints.js';
import { type Handler, json, type RouteRequest, type SimContext } from '../context.js';
import {
  aggregateDurations,
  buildMetrics,
  defaultSpanSeconds,
  planBuckets,
  type TimeInterval,
  type UsageEndpoint,
} from '../data/usage.js';
import { badRequest, HttpError } from '../http.js';
import type { UsageMetricsResponse } from '../types.js';
import { checkNetwork, createChecker, networkGroup } from '../validation.js';

interface UsageSpec {
  intervals: readonly TimeInterval[];
  groupBy: readonly string[];
  /** Filters that narrow the numbers (the scope filters, network and chainId on subnet, are apart). */
  filters: readonly string[];
}

const rpcIntervals = ['hourly', 'daily', 'weekly', 'monthly'] as const;

const specs: Readonly<Record<UsageEndpoint, UsageSpec>> = {
  primaryNetworkRpcUsageMetrics: {
    intervals: rpcIntervals,
    groupBy: ['rpcMethod', 'requestPath', 'responseCode', 'country', 'continent', 'userAgent'],
    filters: ['responseCode', 'requestPath', 'country', 'continent', 'userAgent', 'rpcMethod'],
  },
  apiUsageMetrics: {
    intervals: ['minute', ...rpcIntervals],
    groupBy: ['requestPath', 'responseCode', 'chainId', 'apiKeyId', 'requestType'],
    filters: ['chainId', 'responseCode', 'requestType', 'apiKeyId', 'requestPath'],
  },
  subnetRpcUsageMetrics: {
    intervals: rpcIntervals,
    groupBy: ['rpcMethod', 'responseCode', 'rlBypassToken'],
    filters: ['responseCode', 'rpcMethod', 'rlBypassApiToken'],
  },
};

const DAY = 86_400;
/** More buckets than this in one answer is refused (e.g. minutes over a month). */
export const MAX_BUCKETS = 2_000;

const floorDay = (t: number): number => Math.floor(t / DAY) * DAY;

function usageHandler(endpoint: UsageEndpoint): Handler {
  const spec = specs[endpoint];
  return (ctx: SimContext, req: RouteRequest) => {
    const q = req.query;
    const check = createChecker();
    const network =
      endpoint === 'primaryNetworkRpcUsageMetrics' ? checkNetwork(check, q['network'], true) : undefined;
    const interval = check.oneOf('timeInterval', q['timeInterval'], spec.intervals) ?? 'daily';
    const groupBy = check.oneOf('groupBy', q['groupBy'], spec.groupBy);
    const start = check.integer('startTimestamp', q['startTimestamp'], 0);
    const end = check.integer('endTimestamp', q['endTimestamp'], 0);
    if (endpoint === 'apiUsageMetrics')
      check.oneOf('requestType', q['requestType'], ['data', 'rpc'] as const);
    if (start !== undefined && end !== undefined && floorDay(start) > floorDay(end)) {
      check.add('startTimestamp must not be after endTimestamp');
    }
    check.done();

    let orgId = '';
    if (endpoint === 'apiUsageMetrics') {
      const asked = q['orgId'];
      const allowed = req.account.orgIds;
      if (asked && allowed && !allowed.includes(asked)) {
        throw new HttpError(403, `Forbidden: no access to the usage metrics of org ${asked}`);
      }
      orgId = asked || req.account.defaultOrgId;
    }

    const nowSec = Math.floor(ctx.clock.now() / 1000);
    const toSec = end !== undefined ? floorDay(end) + DAY - 1 : nowSec;
    const fromSec =
      start !== undefined ? floorDay(start) : Math.min(toSec + 1, nowSec) - defaultSpanSeconds[interval];
    const buckets = planBuckets(fromSec, toSec, nowSec, interval);
    if (buckets.length > MAX_BUCKETS) {
      throw badRequest([
        `The range holds ${buckets.length} ${interval} buckets; at most ${MAX_BUCKETS} are served`,
      ]);
    }
    const filters: Record<string, string> = {};
    for (const name of spec.filters) {
      const value = q[name];
      if (value !== undefined && value !== '') filters[name] = value;
    }
    const group = networkGroup(network ?? networks[0]);
    const chainId = q['chainId'] || 'all';
    const scope =
      endpoint === 'primaryNetworkRpcUsageMetrics' ? group : endpoint === 'apiUsageMetrics' ? orgId : chainId;
    const metrics = buildMetrics(ctx.seed, { endpoint, scope, interval, groupBy, filters, buckets }, nowSec);
    const aggregateDuration = aggregateDurations[interval];

    let body: unknown;
    switch (endpoint) {
      case 'primaryNetworkRpcUsageMetrics':
        body = { aggregateDuration, metrics, network: group };
        break;
      case 'apiUsageMetrics':
        body = { aggregateDuration, orgId, metrics } satisfies UsageMetricsResponse;
        break;
      case 'subnetRpcUsageMetrics':
        body = { aggregateDuration, metrics, chainId };
        break;
      default: {
        const never: never = endpoint;
        throw new Error(`unknown usage endpoint ${String(never)}`);
      }
    }
    return json(200, body, (served) => {
      served.usageMetrics.push({ endpoint, query: { ...q }, body });
    });
  };
}

export const getPrimaryNetworkRpcUsageMetrics = usageHandler('primaryNetworkRpcUsageMetrics');
export const getApiUsageMetrics = usageHandler('apiUsageMetrics');
export const getSubnetRpcUsageMetrics = usageHandler('subnetRpcUsageMetrics');
