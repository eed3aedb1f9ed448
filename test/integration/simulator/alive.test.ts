import { afterEach, describe, expect, it } from 'vitest';
import type { HistoricalReward, UsageMetric } from '../../../src/simulator/index.js';
import { api, closeSimulators, MAINNET_ADDRESS, startTestSimulator, T0 } from './helpers.js';

afterEach(closeSimulators);

describe('simulator data is alive', () => {
  it('adds new transactions on top at the configured rate', async () => {
    const { sim, clock } = await startTestSimulator({ txPerMinute: 120 });
    const before = await api(sim, '/v1/transactions?pageSize=100');
    clock.advance(60_000);
    const after = await api(sim, '/v1/transactions?pageSize=100');
    // 120 new ones in a minute, on mainnet: the old first item is now at index 120 (off this page).
    expect(after.body.transactions.map((tx: { txHash: string }) => tx.txHash)).not.toContain(
      before.body.transactions[0].txHash,
    );
    const all = sim.truth.transactions();
    expect(all[120]).toEqual(before.body.transactions[0]);
    expect(after.body.transactions[0].blockTimestamp).toBe((T0 + 60_000) / 1000);
  });

  it('advances supply lastUpdated every five minutes and keeps the same body within them', async () => {
    const { sim, clock } = await startTestSimulator();
    const first = (await api(sim, '/v1/avax/supply')).body;
    clock.advance(1_000);
    expect((await api(sim, '/v1/avax/supply')).body).toEqual(first);
    clock.advance(5 * 60_000);
    const second = (await api(sim, '/v1/avax/supply')).body;
    expect(Date.parse(second.lastUpdated)).toBe(Date.parse(first.lastUpdated) + 5 * 60_000);
    expect(Number(second.totalRewards)).toBeGreaterThan(Number(first.totalRewards));
    expect(Number(second.totalCBurned)).toBeGreaterThan(Number(first.totalCBurned));
    expect(second.totalSupply).not.toBe(first.totalSupply);
  });

  it('grows the current usage bucket with the clock and never changes past buckets', async () => {
    const { sim, clock } = await startTestSimulator();
    const path = '/v1/apiUsageMetrics?timeInterval=hourly&groupBy=requestType';
    const before = (await api(sim, path)).body.metrics as UsageMetric[];
    clock.advance(20 * 60_000);
    const after = (await api(sim, path)).body.metrics as UsageMetric[];
    const current = (m: UsageMetric[]) => m[m.length - 1];
    expect(current(after)?.timestamp).toBe(current(before)?.timestamp);
    expect(current(after)?.values[0]?.totalRequests).toBeGreaterThan(
      current(before)?.values[0]?.totalRequests ?? 0,
    );
    const past = (m: UsageMetric[]) => m.filter((x) => x.timestamp < T0 / 1000);
    expect(past(after).slice(-10)).toEqual(past(before).slice(-10));
    clock.advance(60 * 60_000);
    const later = (await api(sim, path)).body.metrics as UsageMetric[];
    expect(current(later)?.timestamp).toBe((current(before)?.timestamp ?? 0) + 3600);
  });

  it('makes new rewards appear as staking periods end, priced once they are a day old', async () => {
    const { sim, clock } = await startTestSimulator();
    const path = `/v1/networks/mainnet/rewards?addresses=${MAINNET_ADDRESS}&pageSize=100`;
    const before = (await api(sim, path)).body.historicalRewards as HistoricalReward[];
    clock.advance(20 * 86_400_000);
    const after = (await api(sim, path)).body.historicalRewards as HistoricalReward[];
    const known = new Set(before.map((r) => r.utxoId));
    const fresh = after.filter((r) => !known.has(r.utxoId));
    expect(fresh.length).toBeGreaterThan(0);
    for (const r of fresh) expect(r.endTimestamp).toBeGreaterThan(T0 / 1000);
    const newest = after[0] as HistoricalReward;
    const nowSec = (T0 + 20 * 86_400_000) / 1000;
    expect(newest.endTimestamp).toBeLessThanOrEqual(nowSec);
    // The newest reward gets its price 24 hours after its period ended.
    clock.set((newest.endTimestamp + 86_400) * 1000);
    const priced = ((await api(sim, path)).body.historicalRewards as HistoricalReward[]).find(
      (r) => r.utxoId === newest.utxoId,
    );
    expect(priced?.reward.historicalPrice?.currencyCode).toBe('usd');
  });
});
