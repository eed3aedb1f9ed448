import { formatDuration } from '../src/config/durations.js';
import type { UsageMetricsJobConfig, UsageSourceConfig } from '../src/config/index.js';
import type { JobContext, JobHandler } from '../src/kernel/index.js';
import {
  type Calls,
  contextOf,
  defineJob,
  type RestoreRecord,
  withoutSchedule,
} from '../src/kernel/index.js';
import { readCursor, type UsageAnswer, upsertUsageMetrics, writeCursor } from '../src/store/index.js';
import {
  canonicalNetwork,
  type RecordEndpoint,
  recheckRecord,
  type WithFindings,
} from '../src/upstream/index.js';

export type UsageMetricsPayload = Pick<UsageMetricsJobConfig, 'sources'>;

interface UsageCursor {
  /** Start of the newest bucket stored, Unix seconds. */
  lastBucket: number;
}

const DAY = 86_400;

/** One request per series: the canonical scope string names the series in the table and the cursor. */
interface Series {
  source: UsageSourceConfig['source'];
  endpoint: 'apiUsageMetrics' | 'primaryNetworkRpcUsageMetrics' | 'subnetRpcUsageMetrics';
  scope: string;
  fetch: (
    range: { startTimestamp: number; endTimestamp: number },
    ctx: JobContext,
  ) => Promise<WithFindings<UsageAnswer>>;
}

/**
 * The query's filters as `key=value&…` in key order (the interval has a key of its own); the network
 * in its canonical name, and the rate-limit bypass token only as "set": it is a secret.
 */
function scopeOf(query: Record<string, unknown>): string {
  const parts = Object.entries(query)
    .filter(([key, value]) => value !== undefined && key !== 'timeInterval')
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => {
      if (key === 'rlBypassApiToken') return `${key}=set`;
      if (key === 'network') return `${key}=${canonicalNetwork(String(value))}`;
      return `${key}=${String(value)}`;
    });
  return parts.length ? parts.join('&') : 'all';
}

export function seriesOf(source: UsageSourceConfig): Series[] {
  switch (source.source) {
    case 'dataApi': {
      const { source: name, lookback: _l, ...query } = source;
      return [
        {
          source: name,
          endpoint: 'apiUsageMetrics',
          scope: scopeOf(query),
          fetch: (range, ctx) =>
            ctx.client.getApiUsageMetrics({ ...query, ...range }, { signal: ctx.signal }),
        },
      ];
    }
    case 'primaryNetworkRpc': {
      const { source: name, lookback: _l, ...query } = source;
      return [
        {
          source: name,
          endpoint: 'primaryNetworkRpcUsageMetrics',
          scope: scopeOf(query),
          fetch: (range, ctx) =>
            ctx.client.getPrimaryNetworkRpcUsageMetrics({ ...query, ...range }, { signal: ctx.signal }),
        },
      ];
    }
    case 'subnetRpc': {
      const { source: name, lookback: _l, chainIds, ...query } = source;
      const chains = chainIds.length ? chainIds : [undefined];
      return chains.map((chainId) => ({
        source: name,
        endpoint: 'subnetRpcUsageMetrics',
        scope: scopeOf({ ...query, chainId }),
        fetch: (range, ctx) =>
          ctx.client.getSubnetRpcUsageMetrics({ ...query, chainId, ...range }, { signal: ctx.signal }),
      }));
    }
    default: {
      const never: never = source;
      throw new Error(`unknown usage-metrics source ${JSON.stringify(never)}`);
    }
  }
}

/** The cursor's scope of a series: `dataApi/hourly/groupBy=requestPath`. */
function cursorScope(source: UsageSourceConfig, series: Series): string {
  return `${series.source}/${source.timeInterval}/${series.scope}`;
}

/**
 * The three usage-metrics endpoints. Each run asks from the newest stored bucket on (the current
 * bucket is partial and gets updated), or `lookback` back on the first run. The API rounds both
 * bounds down to 00:00 UTC, so the end asked is a day ahead: today's buckets are included.
 */
export const usageMetrics: JobHandler<UsageMetricsPayload> = async (payload, ctx) => {
  for (const source of payload.sources) {
    for (const series of seriesOf(source)) {
      const nowSeconds = Math.floor(ctx.clock.now() / 1000);
      const scopeKey = cursorScope(source, series);
      const cursor = await readCursor<UsageCursor>(ctx.store, 'usage-metrics', scopeKey);
      const startTimestamp =
        cursor?.lastBucket ?? Math.max(0, nowSeconds - Math.floor(source.lookback / 1000));
      const answer = await series.fetch({ startTimestamp, endTimestamp: nowSeconds + DAY }, ctx);
      const fetchedAt = new Date(ctx.clock.now()).toISOString();
      let newest = cursor?.lastBucket ?? 0;
      for (const bucket of answer.metrics) newest = Math.max(newest, bucket.timestamp);
      const seriesKey = { source: series.source, scope: series.scope, timeInterval: source.timeInterval };
      const { written, recorded } = await ctx.store.transaction(async (tx) => {
        const written = await upsertUsageMetrics(tx, seriesKey, answer, fetchedAt);
        if (newest > 0) {
          const next: UsageCursor = { lastBucket: newest };
          await writeCursor(tx, 'usage-metrics', scopeKey, next, fetchedAt);
        }
        // A value set aside is one row of its series: keyed by series, bucket, grouping and value.
        const recorded = await ctx.recordFindings(tx, answer.findings, {
          scope: scopeKey,
          keyPrefix: `${scopeKey}/`,
          context: { ...seriesKey, aggregateDuration: answer.aggregateDuration },
        });
        return { written, recorded };
      });
      ctx.countRows(written);
      ctx.noteFindings(recorded);
    }
  }
};

const USAGE_ENDPOINTS = ['apiUsageMetrics', 'primaryNetworkRpcUsageMetrics', 'subnetRpcUsageMetrics'];

/** A usage value set aside, checked again: stored as a row of its series when it passes. */
const restore: RestoreRecord = async (tx, record, at) => {
  const endpoint = (
    USAGE_ENDPOINTS.includes(record.endpoint) ? record.endpoint : 'apiUsageMetrics'
  ) as Extract<RecordEndpoint, 'apiUsageMetrics'>;
  const checked = recheckRecord(endpoint, record.raw);
  if (!checked.ok) return { rejected: checked.rejected };
  const c = contextOf(record);
  const series = {
    source: String(c['source']) as Series['source'],
    scope: String(c['scope'] ?? ''),
    timeInterval: String(c['timeInterval'] ?? ''),
  };
  const { timestamp, value } = checked.value;
  const answer = {
    aggregateDuration: String(c['aggregateDuration'] ?? ''),
    orgId: '',
    metrics: [{ timestamp, values: [value] }],
  };
  return { stored: await upsertUsageMetrics(tx, series, answer, at) };
};

export const usageMetricsJob = defineJob({
  name: 'usage-metrics',
  configKey: 'usageMetrics',
  table: 'usage_metrics',
  handler: usageMetrics,
  restore,
  payload: (section) => withoutSchedule(section),
  streams: (section) =>
    section.sources.flatMap((source) =>
      seriesOf(source).map((series) => ({
        scope: cursorScope(source, series),
        label: `${series.source} ${source.timeInterval}${series.scope === 'all' ? '' : `, ${series.scope}`}`,
        firstRun: { [series.endpoint]: 1 },
        reads: `the ${formatDuration(source.lookback)} before the run (lookback) again, in one request; the buckets stored are updated where they changed`,
      })),
    ),
  cost: (section) => {
    const calls: Calls = {};
    let series = 0;
    for (const source of section.sources) {
      for (const one of seriesOf(source)) {
        calls[one.endpoint] = (calls[one.endpoint] ?? 0) + 1;
        series++;
      }
    }
    // A run on the interval's own rhythm brings one new bucket per series and group value.
    return { steady: calls, worst: calls, rows: { steady: series, worst: series } };
  },
});
