/** The usage-metrics job's definition; its handler is jobs/usage-metrics.ts, imported when a run starts. */
import { formatDuration } from '../src/config/durations.js';
import type { UsageMetricsJobConfig, UsageSourceConfig } from '../src/config/index.js';
import { type Calls, defineJob, type JobContext, withoutSchedule } from '../src/kernel/job.js';
import { JOB_NAMES } from '../src/kernel/job-names.js';
import type { UsageAnswer } from '../src/store/index.js';
import { canonicalNetwork } from '../src/upstream/endpoints.js';
import type { WithFindings } from '../src/upstream/index.js';

export type UsageMetricsPayload = Pick<UsageMetricsJobConfig, 'sources'>;

/** One request per series: the canonical scope string names the series in the table and the cursor. */
export interface Series {
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
 * in its canonical name, and the rate-limit bypass token only as "set": it is a secret. The order is
 * the keys' code units: for every key a usage source has it is the order localeCompare gave, which
 * stored scopes were written in (test/unit/usage-scope.test.ts), without loading ICU's collator
 * (milliseconds of `config check`, which counts the series).
 */
export function scopeOf(query: Record<string, unknown>): string {
  const parts = Object.entries(query)
    .filter(([key, value]) => value !== undefined && key !== 'timeInterval')
    .sort(([a], [b]) => (a < b ? -1 : 1))
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
export function cursorScope(source: UsageSourceConfig, series: Series): string {
  return `${series.source}/${source.timeInterval}/${series.scope}`;
}

export const usageMetricsJob = defineJob({
  name: JOB_NAMES.usageMetrics,
  configKey: 'usageMetrics',
  table: 'usage_metrics',
  handler: async () => (await import('./usage-metrics.js')).usageMetrics,
  restore: async () => (await import('./usage-metrics.js')).restore,
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
