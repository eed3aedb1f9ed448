import { getTableColumns } from 'drizzle-orm';
import type { UsageMetricsResponse } from '../upstream/index.js';
import { usageMetrics } from './schema.js';
import { planUpsert, type Sql } from './sql.js';

type Row = typeof usageMetrics.$inferInsert;

/** Any of the three usage-metrics answers: they share the value record. */
export type UsageAnswer = UsageMetricsResponse;

export interface UsageSeries {
  source: 'dataApi' | 'primaryNetworkRpc' | 'subnetRpc';
  scope: string;
  timeInterval: string;
}

const compareColumns = (Object.keys(getTableColumns(usageMetrics)) as (keyof Row)[]).filter(
  (c) =>
    !['source', 'scope', 'timeInterval', 'groupBy', 'bucketTimestamp', 'groupValue', 'fetchedAt'].includes(c),
);

const upsert = planUpsert(usageMetrics, {
  key: ['source', 'scope', 'timeInterval', 'groupBy', 'bucketTimestamp', 'groupValue'],
  update: [...compareColumns, 'fetchedAt'],
  compare: compareColumns,
});

/** Upserts every bucket of a usage-metrics answer; returns how many rows were new or changed. */
export function upsertUsageMetrics(
  sql: Sql,
  series: UsageSeries,
  answer: UsageAnswer,
  fetchedAt: string,
): Promise<number> {
  const rows: Row[] = [];
  for (const bucket of answer.metrics) {
    for (const v of bucket.values) {
      rows.push({
        ...series,
        groupBy: v.groupedBy,
        bucketTimestamp: bucket.timestamp,
        groupValue: v.groupValue === undefined ? '' : String(v.groupValue),
        aggregateDuration: answer.aggregateDuration,
        totalRequests: v.totalRequests,
        apiCreditsUsed: v.apiCreditsUsed,
        requestsPerSecond: v.requestsPerSecond,
        successRatePercent: v.successRatePercent,
        medianResponseTimeMsecs: v.medianResponseTimeMsecs,
        invalidRequests: v.invalidRequests,
        apiCreditsWasted: v.apiCreditsWasted,
        fetchedAt,
      });
    }
  }
  return sql.upsert(upsert, rows);
}
