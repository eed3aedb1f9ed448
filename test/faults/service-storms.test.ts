/**
 * Storms on the service (`start`'s scheduler, workers and shared budget), against the simulator's
 * fault injection, a real Redis and a store (SQLite or PostgreSQL): every row arrives, no request goes out before
 * the retry-after it was told, and the request rate stays within the budget.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { demoAddress } from '../../src/commands/demo-config.js';
import type { Service } from '../../src/service/service.js';
import { endpoints } from '../../src/upstream/endpoints.js';
import { jobRuns, type ServiceHarness, serviceHarness, waitFor } from '../support/service.js';
import { FULL } from './support.js';

let h: ServiceHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const addresses = Array.from({ length: FULL ? 6 : 2 }, (_, i) => demoAddress(`storm-${i}`));
const KEY = 'storm-test-key-0123456789';

/** The rewards stored are exactly the simulator's rewards of the addresses. */
async function expectEveryReward(h: ServiceHarness, svc: Service): Promise<void> {
  const truth = h.sim.truth.rewards('mainnet', { addresses });
  const stored = await svc.app.store.all<{ utxo_id: string }>('SELECT utxo_id FROM rewards');
  expect(new Set(stored.map((r) => r.utxo_id))).toEqual(new Set(truth.map((r) => r.utxoId)));
}

describe('storms on the service', () => {
  it('429 storm (30 % of answers): every row collected, no request before its retry-after, within the budget', async () => {
    h = await serviceHarness({
      sim: {
        apiKeys: { [KEY]: { tier: 'Pro', computeUnitsPerMinute: 1e9 } },
        faults: { all: { rateLimitRate: 0.3, rateLimitBurst: 1, retryAfterSeconds: 1 } },
      },
    });
    const perMinute = 20_000;
    const config = h.config(
      {
        jobs: {
          rewards: { schedule: '0 0 1 1 *', runOnStart: true, addresses, pageSize: 20, maxPages: 1000 },
          supply: { schedule: '* * * * * *' },
        },
        budget: { computeUnitsPerMinute: perMinute },
        client: { maxAttempts: 20, callTimeout: '10m' },
        service: { concurrency: 3 },
      },
      { GLACIER_API_KEY: KEY },
    );
    const svc = await h.start(config);
    await waitFor(
      async () => (await jobRuns(svc)).some((r) => r.job === 'rewards' && r.status === 'succeeded'),
      120_000,
      'rewards',
    );

    await expectEveryReward(h, svc);

    const requests = h.sim.requests;
    const limited = requests.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    for (const l of limited) {
      // Requests that arrived within 100 ms of the 429 were already on their way when it was sent.
      const early = requests.filter((r) => r.at > l.at + 100 && r.at < l.at + 1_000);
      expect(early.map((r) => `${r.endpoint} ${r.at - l.at} ms after a 429`)).toEqual([]);
    }
    const perWindow = new Map<number, number>();
    for (const r of requests) {
      if (r.endpoint === 'download' || r.endpoint === 'unknown' || r.fault) continue;
      const minute = Math.floor(r.at / 60_000);
      perWindow.set(minute, (perWindow.get(minute) ?? 0) + endpoints[r.endpoint].computeUnits);
    }
    for (const cu of perWindow.values()) expect(cu).toBeLessThanOrEqual(perMinute);
  });

  it('5xx and connection resets (20 %): every row collected; past the attempts a run fails clearly, the next succeeds', async () => {
    h = await serviceHarness({
      sim: {
        faults: {
          endpoints: {
            rewards: { errorRate: 0.1, resetRate: 0.1 },
            // The first supply run meets five 503s in a row: as many as its attempts (the default 5).
            supply: { plan: Array.from({ length: 5 }, () => ({ status: 503 })) },
          },
        },
      },
    });
    const config = h.config({
      jobs: {
        rewards: { schedule: '0 0 1 1 *', runOnStart: true, addresses, pageSize: 20, maxPages: 1000 },
        supply: { schedule: '0 0 1 1 *', runOnStart: true },
      },
      service: { concurrency: 2 },
    });
    const svc = await h.start(config);
    await waitFor(
      async () => (await jobRuns(svc)).some((r) => r.job === 'rewards' && r.status === 'succeeded'),
      120_000,
      'rewards',
    );
    await expectEveryReward(h, svc);

    // Supply: the first run fails after its two attempts, saying why; the queue's retry succeeds.
    await waitFor(
      async () => (await jobRuns(svc)).some((r) => r.job === 'supply' && r.status === 'succeeded'),
      40_000,
      'supply',
    );
    const supplyRuns = (await jobRuns(svc)).filter((r) => r.job === 'supply');
    expect(supplyRuns[0]).toMatchObject({ status: 'failed' });
    expect(supplyRuns[0]!.error).toMatch(/\[GET\] \/v1\/avax\/supply: 503 Service Unavailable/);
    expect(supplyRuns.at(-1)).toMatchObject({ status: 'succeeded' });
  });
});
