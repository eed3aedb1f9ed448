/** The usage-metrics job's handler; its definition (name, config key, cost, streams) is usage-metrics.definition.ts. */

import type { JobHandler } from '../src/kernel/index.js';
import { contextOf, type RestoreRecord } from '../src/kernel/index.js';
import { readCursor, upsertUsageMetrics, writeCursor } from '../src/store/index.js';
import type { RecordEndpoint } from '../src/upstream/index.js';
import { recheckRecord } from '../src/upstream/index.js';
import { cursorScope, type Series, seriesOf, type UsageMetricsPayload } from './usage-metrics.definition.js';

export type { UsageMetricsPayload } from './usage-metrics.definition.js';

interface UsageCursor {
  /** Start of the newest bucket stored, Unix seconds. */
  lastBucket: number;
}

const DAY = 86_400;

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
      const cursor = await readCursor<UsageCursor>(ctx.store, ctx.job, scopeKey);
      const startTimestamp =
        cursor?.lastBucket ?? Math.max(0, nowSeconds - Math.floor(source.lookback / 1000));
      const answer = await series.fetch({ startTimestamp, endTimestamp: nowSeconds + DAY }, ctx);
      const fetchedAt = new Date(ctx.clock.now()).toISOString();
      let newest = cursor?.lastBucket ?? 0;
      for (const bucket of answer.metrics) newest = Math.max(newest, bucket.timestamp);
      const seriesKey = { source: series.source, scope: series.scope, timeInterval: source.timeInterval };
      await ctx.commit(
        async (tx) => {
          const rows = await upsertUsageMetrics(tx, seriesKey, answer, fetchedAt);
          if (newest > 0) {
            const next: UsageCursor = { lastBucket: newest };
            await writeCursor(tx, ctx.job, scopeKey, next, fetchedAt);
          }
          return { rows, findings: answer.findings };
        },
        // A value set aside is one row of its series: keyed by series, bucket, grouping and value.
        {
          where: {
            scope: scopeKey,
            keyPrefix: `${scopeKey}/`,
            context: { ...seriesKey, aggregateDuration: answer.aggregateDuration },
          },
        },
      );
    }
  }
};

const USAGE_ENDPOINTS = ['apiUsageMetrics', 'primaryNetworkRpcUsageMetrics', 'subnetRpcUsageMetrics'];

/** A usage value set aside, checked again: stored as a row of its series when it passes. */
export const restore: RestoreRecord = async (tx, record, at) => {
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
