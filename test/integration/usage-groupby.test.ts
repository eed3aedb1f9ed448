/**
 * The usage metrics' groupings the public swagger lists are accepted in the config and stored when
 * answered, as known values (no drift): the Primary Network RPC endpoint's `groupBy` takes
 * rpcMethod | requestPath | responseCode | country | continent | userAgent, and its answers'
 * `groupedBy` may also be `rlBypassToken` or `None`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { usageMetrics } from '../../jobs/usage-metrics.js';
import { runHandler } from '../../src/kernel/index.js';
import { type Collector, configOf, startCollector } from '../support/collector.js';

const PRIMARY_GROUP_BYS = ['rpcMethod', 'requestPath', 'responseCode', 'country', 'continent', 'userAgent'];

let collector: Collector | undefined;
afterEach(async () => {
  await collector?.close();
  collector = undefined;
});

describe('usage metrics groupBy values', () => {
  it('accepts every Primary Network RPC groupBy in the config, and stores each as answered, without drift', async () => {
    const config = configOf({
      jobs: {
        usageMetrics: {
          schedule: '0 * * * *',
          sources: [
            ...PRIMARY_GROUP_BYS.map((groupBy) => ({
              source: 'primaryNetworkRpc',
              network: 'mainnet',
              timeInterval: 'daily',
              groupBy,
              lookback: '2d',
            })),
            // Ungrouped: the answers say `None`.
            { source: 'primaryNetworkRpc', network: 'mainnet', timeInterval: 'daily', lookback: '2d' },
            {
              source: 'subnetRpc',
              chainIds: ['432204'],
              timeInterval: 'daily',
              groupBy: 'rlBypassToken',
              lookback: '2d',
            },
          ],
        },
      },
    });
    const section = config.jobs.usageMetrics;
    expect(section?.sources.map((s) => s.groupBy ?? 'none')).toEqual([
      ...PRIMARY_GROUP_BYS,
      'none',
      'rlBypassToken',
    ]);

    collector = await startCollector();
    const c = collector;
    const { schedule: _s, enabled: _e, runOnStart: _r, ...payload } = section!;
    const result = await runHandler('usage-metrics', usageMetrics, payload, c.deps);
    expect(result.status).toBe('succeeded');
    const stored = await c.store.all<{ source: string; group_by: string; n: number }>(
      'SELECT source, group_by, COUNT(*) AS n FROM usage_metrics GROUP BY source, group_by ORDER BY source, group_by',
    );
    const groups = stored.map((r) => `${r.source}:${r.group_by}`);
    expect(groups).toEqual(
      [
        ...[...PRIMARY_GROUP_BYS, 'None'].map((g) => `primaryNetworkRpc:${g}`),
        'subnetRpc:rlBypassToken',
      ].sort(),
    );
    expect(stored.every((r) => Number(r.n) > 0)).toBe(true);
    // Known values: nothing recorded as drift, nothing set aside.
    expect(await c.store.all('SELECT * FROM upstream_drift')).toEqual([]);
    expect(await c.store.all('SELECT * FROM rejected_records')).toEqual([]);
  });
});
