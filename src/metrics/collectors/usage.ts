import { readLatestUsageBuckets, type Store, type UsageBucketRow } from '../../store/index.js';
import { mergeSameLabels, OTHER } from '../cap.js';
import type { Scrape } from '../scrape.js';

const SERIES = ['source', 'interval', 'scope', 'group_by'] as const;
const LABELS = [...SERIES, 'group'] as const;

interface Row extends UsageBucketRow {
  /** Folded rows have no median: medians do not add up. */
  folded?: boolean;
}

const seriesKey = (r: UsageBucketRow) => `${r.source}\n${r.scope}\n${r.timeInterval}\n${r.groupBy}`;

/**
 * The newest bucket of each usage-metrics series (it may still be filling), per group value: the
 * groups with the most requests keep their own series under the cap, the rest are summed into
 * group="other" (success ratio weighted by requests, no median).
 */
export function defineUsageCollector(scrape: Scrape, store: Store): void {
  const family = (name: string, help: string) => ({
    name: `glacier_usage_${name}`,
    help,
    labelNames: LABELS,
  });
  scrape.define({
    name: 'usage',
    families: {
      requests: family('requests', 'Requests in the newest bucket, per source, series and group.'),
      creditsUsed: family('api_credits_used', 'API credits used in the newest bucket.'),
      creditsWasted: family(
        'api_credits_wasted',
        'API credits wasted (failed requests) in the newest bucket.',
      ),
      successRatio: family('success_ratio', 'Share of successful requests in the newest bucket, 0 to 1.'),
      median: family('median_response_time_seconds', 'Median response time in the newest bucket.'),
      invalid: family('invalid_requests', 'Invalid requests in the newest bucket.'),
      bucket: {
        name: 'glacier_usage_bucket_timestamp_seconds',
        help: 'Start of the newest bucket stored, per usage-metrics series, Unix seconds.',
        labelNames: SERIES,
      },
    },
    async read(g, cap, label) {
      // A group value (a path, a user agent, a country…) is upstream text: checked first.
      const checked: Row[] = (await readLatestUsageBuckets(store)).map((r) => ({
        ...r,
        groupValue: label('glacier_usage_requests', r.groupValue),
      }));
      const rows = mergeSameLabels(checked, (r) => `${seriesKey(r)}\n${r.groupValue}`, combine);
      const kept = cap<Row>('glacier_usage_requests', 'usage groups', rows, {
        unitOf: (r) => `${seriesKey(r)}\n${r.groupValue}`,
        foldKeyOf: seriesKey,
        fold: (into, r) => combine(into, { ...r, groupValue: OTHER }),
      });
      for (const r of kept) {
        const series = { source: r.source, interval: r.timeInterval, scope: r.scope, group_by: r.groupBy };
        const labels = { ...series, group: r.groupValue };
        g.requests.set(labels, r.totalRequests);
        g.creditsUsed.set(labels, r.apiCreditsUsed);
        g.creditsWasted.set(labels, r.apiCreditsWasted);
        g.successRatio.set(labels, r.successRatePercent / 100);
        if (!r.folded) g.median.set(labels, r.medianResponseTimeMsecs / 1000);
        g.invalid.set(labels, r.invalidRequests);
        g.bucket.set(series, r.bucketTimestamp);
      }
    },
  });
}

/** Two groups of one series added up (over the cap, or invalid values): success ratio weighted by requests, no median. */
function combine(into: Row | undefined, r: Row): Row {
  const requests = (into?.totalRequests ?? 0) + r.totalRequests;
  const successes =
    ((into?.successRatePercent ?? 0) * (into?.totalRequests ?? 0) + r.successRatePercent * r.totalRequests) /
    (requests || 1);
  return {
    ...r,
    folded: true,
    totalRequests: requests,
    apiCreditsUsed: (into?.apiCreditsUsed ?? 0) + r.apiCreditsUsed,
    apiCreditsWasted: (into?.apiCreditsWasted ?? 0) + r.apiCreditsWasted,
    invalidRequests: (into?.invalidRequests ?? 0) + r.invalidRequests,
    successRatePercent: successes,
  };
}
