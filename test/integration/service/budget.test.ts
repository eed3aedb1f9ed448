import { afterEach, describe, expect, it } from 'vitest';
import { demoAddress, demoCb58 } from '../../../src/commands/demo-config.js';
import type { Service } from '../../../src/service/service.js';
import { jobRuns, type ServiceHarness, serviceHarness, waitFor } from '../../support/service.js';

let h: ServiceHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/**
 * Clock time running WARP times faster than real time, and sleeps shortened to match. A stall of the
 * machine is WARP times longer in clock time: at 20, a 100 ms stall between the budget's take at the
 * end of a minute and the request's arrival moved the request into the simulator's next minute, and
 * a loaded CI saw a 429. 8 keeps the test short and such a stall under a second.
 */
const WARP = 8;
function warpedTime() {
  const real0 = Date.now();
  const t0 = Date.UTC(2025, 5, 15, 12, 0, 30);
  return {
    clock: { now: () => t0 + (Date.now() - real0) * WARP },
    sleep: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, ms / WARP);
        signal?.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            reject(signal.reason);
          },
          { once: true },
        );
      }),
  };
}

const KEY = 'budget-test-key-0123456789';
const addresses = [demoAddress('budget-1'), demoAddress('budget-2'), demoAddress('budget-3')];

describe('one compute-unit budget for every worker', () => {
  it('three workers stay within a budget below what they would spend unthrottled: no 429, every row', async () => {
    const time = warpedTime();
    // The key allows 200 CU a minute; the jobs below need ~600 CU at once.
    h = await serviceHarness({
      sim: { clock: time.clock, apiKeys: { [KEY]: { computeUnitsPerMinute: 200 } } },
    });
    const yearly = '0 0 1 1 *';
    const config = h.config(
      {
        jobs: {
          rewards: { schedule: yearly, runOnStart: true, addresses, pageSize: 50 },
          transactions: { schedule: yearly, runOnStart: true, networks: ['mainnet', 'fuji'], maxPages: 4 },
          signatures: {
            schedule: yearly,
            runOnStart: true,
            txHashes: [1, 2, 3, 4, 5].map((i) => demoCb58(`b${i}`)),
          },
        },
        budget: { computeUnitsPerMinute: 200 },
        client: { callTimeout: '10m' },
      },
      { GLACIER_API_KEY: KEY },
    );
    const workers: Service[] = [];
    for (let i = 0; i < 3; i++) workers.push(await h.start(config, { role: 'worker', ...time }));
    await h.start(config, { role: 'scheduler', ...time });
    const done = async () =>
      (await jobRuns(workers[0]!)).filter((r) => r.status === 'succeeded').map((r) => r.job);
    await waitFor(async () => new Set(await done()).size === 3, 150_000, 'three jobs to succeed');

    const statuses = h.sim.requests.map((r) => r.status);
    expect(statuses).not.toContain(429);
    const spent = h.sim.requests.reduce(
      (cu, r) =>
        cu + ({ rewards: 100, transactions: 20, signatures: 20 } as Record<string, number>)[r.endpoint]!,
      0,
    );
    expect(spent).toBeGreaterThan(400); // the test asked for more than two minutes' budget

    const truth = h.sim.truth.rewards('mainnet', { addresses: addresses.map((a) => a.replace(/^P-/, '')) });
    const stored = await workers[0]!.app.store.all<{ utxo_id: string }>('SELECT utxo_id FROM rewards');
    expect(new Set(stored.map((r) => r.utxo_id))).toEqual(new Set(truth.map((r) => r.utxoId)));
    // Four services and a simulator start first: the wait above, not the default 30 s, bounds the test.
  }, 180_000);

  it('a 429 with retry-after pauses the whole queue: nothing reaches the API before it passes', async () => {
    h = await serviceHarness({
      sim: {
        faults: {
          endpoints: {
            signatures: { plan: [{ kind: 'ok' }, { status: 429, retryAfterSeconds: 2 }], latencyMs: 100 },
          },
        },
      },
    });
    const config = h.config({
      jobs: {
        signatures: {
          schedule: '0 0 1 1 *',
          runOnStart: true,
          txHashes: [1, 2, 3, 4].map((i) => demoCb58(`p${i}`)),
        },
        supply: { schedule: '* * * * * *' },
      },
      service: { concurrency: 4 },
    });
    const svc = await h.start(config);
    await waitFor(
      async () => (await jobRuns(svc)).some((r) => r.job === 'signatures' && r.status === 'succeeded'),
      20_000,
    );
    const requests = h.sim.requests;
    const limited = requests.find((r) => r.status === 429)!;
    expect(limited).toBeDefined();
    // The 429 is answered 100 ms after it arrived (the injected latency); a request that arrived
    // before the answer left was already on its way. Anything later must wait out the 2 s.
    const after = requests.filter((r) => r.at > limited.at + 150);
    expect(after.length).toBeGreaterThan(0);
    // Supply fires every second: without the shared pause it would have asked within those 2 s.
    for (const r of after) expect(r.at - limited.at).toBeGreaterThanOrEqual(2_000);
    expect(requests.filter((r) => r.endpoint === 'signatures' && r.status === 201)).toHaveLength(4);
  });
});
