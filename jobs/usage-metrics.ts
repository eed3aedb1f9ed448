import type { UsageMetricsJobConfig, UsageSourceConfig } from '../src/config/index.js';
import type { JobContext, JobHandler } from '../src/runner.js';
import {
  canonicalNetwork,
  readCursor,
  type UsageAnswer,
  upsertUsageMetrics,
  writeCursor,
} from '../src/store/index.js';

export type UsageMetricsPayload = Pick<UsageMetricsJobConfig, 'sources'>;

interface UsageCursor {
  /** Start of the newest bucket stored, Unix seconds. */
  lastBucket: number;
}

const DAY = 86_400;

/** One request per series: the canonical scope string names the series in the table and the cursor. */
interface Series {
  source: UsageSourceConfig['source'];
  scope: string;
  fetch: (range: { startTimestamp: number; endTimestamp: number }, ctx: JobContext) => Promise<UsageAnswer>;
}

function scopeOf(parts: Record<string, string | undefined>): string {
  const entries = Object.entries(parts).filter(([, v]) => v !== undefined);
  return entries.length ? entries.map(([k, v]) => `${k}=${v}`).join('&') : 'all';
}

export function seriesOf(source: UsageSourceConfig): Series[] {
  switch (source.source) {
    case 'dataApi': {
      const { source: _s, lookback: _l, ...query } = source;
      return [
        {
          source: source.source,
          scope: scopeOf({
            orgId: query.orgId,
            groupBy: query.groupBy,
            chainId: query.chainId,
            requestType: query.requestType,
            apiKeyId: query.apiKeyId,
            requestPath: query.requestPath,
            responseCode: query.responseCode,
          }),
          fetch: (range, ctx) =>
            ctx.client.getApiUsageMetrics({ ...query, ...range }, { signal: ctx.signal }),
        },
      ];
    }
    case 'primaryNetworkRpc': {
      const { source: _s, lookback: _l, ...query } = source;
      return [
        {
          source: source.source,
          scope: scopeOf({
            network: canonicalNetwork(query.network),
            groupBy: query.groupBy,
            requestPath: query.requestPath,
            country: query.country,
            continent: query.continent,
            userAgent: query.userAgent,
            rpcMethod: query.rpcMethod,
            responseCode: query.responseCode,
          }),
          fetch: (range, ctx) =>
            ctx.client.getPrimaryNetworkRpcUsageMetrics({ ...query, ...range }, { signal: ctx.signal }),
        },
      ];
    }
    case 'subnetRpc': {
      const { source: _s, lookback: _l, chainIds, ...query } = source;
      const chains = chainIds.length ? chainIds : [undefined];
      return chains.map((chainId) => ({
        source: source.source,
        scope: scopeOf({
          chainId,
          groupBy: query.groupBy,
          rpcMethod: query.rpcMethod,
          rlBypassApiToken: query.rlBypassApiToken ? 'set' : undefined,
          responseCode: query.responseCode,
        }),
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

/**
 * The three usage-metrics endpoints. Each run asks from the newest stored bucket on (the current
 * bucket is partial and gets updated), or `lookback` back on the first run. The API rounds both
 * bounds down to 00:00 UTC, so the end asked is a day ahead: today's buckets are included.
 */
export const usageMetrics: JobHandler<UsageMetricsPayload> = async (payload, ctx) => {
  let rowsWritten = 0;
  for (const source of payload.sources) {
    for (const series of seriesOf(source)) {
      const nowSeconds = Math.floor(ctx.clock.now() / 1000);
      const scopeKey = `${series.source}/${source.timeInterval}/${series.scope}`;
      const cursor = readCursor<UsageCursor>(ctx.store, 'usage-metrics', scopeKey);
      const startTimestamp =
        cursor?.lastBucket ?? Math.max(0, nowSeconds - Math.floor(source.lookback / 1000));
      const answer = await series.fetch({ startTimestamp, endTimestamp: nowSeconds + DAY }, ctx);
      const fetchedAt = new Date(ctx.clock.now()).toISOString();
      const newest = answer.metrics.reduce((max, m) => Math.max(max, m.timestamp), cursor?.lastBucket ?? 0);
      rowsWritten += ctx.store.transaction(() => {
        const written = upsertUsageMetrics(
          ctx.store,
          { source: series.source, scope: series.scope, timeInterval: source.timeInterval },
          answer,
          fetchedAt,
        );
        if (newest > 0)
          writeCursor(
            ctx.store,
            'usage-metrics',
            scopeKey,
            { lastBucket: newest } satisfies UsageCursor,
            fetchedAt,
          );
        return written;
      });
    }
  }
  return { rowsWritten };
};
