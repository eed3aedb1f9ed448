/**
 * A simulator left running for weeks (the compose `offline` profile, a demo) holds a bounded amount:
 * its data is a pure function of seed and clock, built per page, page tokens carry their own
 * position, and what it does keep between requests (logs, export operations, budgets per key) is
 * forgotten by age or count.
 * Measured as the simulator's own counts after weeks of manual-clock time, not as RSS.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createAuth, MAX_TRACKED_KEYS } from '../../../src/simulator/auth.js';
import type { SimulatorState } from '../../../src/simulator/index.js';
import { api, closeSimulators, NODE_ID, startTestSimulator, T0 } from './helpers.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const LOG_LIMIT = 200;

afterEach(closeSimulators);

describe('simulator memory over weeks of clock time', () => {
  it('keeps the same bounded state in week 2 as in week 3 while serving every endpoint hourly', async () => {
    const { sim, clock } = await startTestSimulator({ logLimit: LOG_LIMIT, exports: { rowsPerDay: 2 } });
    const weekly: SimulatorState[] = [];
    const operationIds: string[] = [];
    for (let hour = 1; hour <= 21 * 24; hour++) {
      clock.advance(HOUR_MS);
      const first = await api(sim, '/v1/transactions?pageSize=5');
      await api(sim, `/v1/transactions?pageSize=5&pageToken=${first.body.nextPageToken}`);
      await api(sim, `/v1/networks/mainnet/rewards?nodeIds=${NODE_ID}&pageSize=3`, {
        apiKey: `key-${hour % 20}`,
      });
      await api(sim, '/v1/avax/supply');
      await api(sim, '/v1/apiUsageMetrics?timeInterval=hourly');
      const created = await api(sim, '/v1/operations/transactions:export', {
        method: 'POST',
        body: JSON.stringify({
          type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE',
          options: { includeChains: ['x-chain'] },
        }),
      });
      expect(created.status).toBe(201);
      operationIds.push(created.body.operationId);
      if (hour % 24 === 0) {
        // An export of six days ago is still there, its file downloadable.
        const old = await api(sim, `/v1/operations/${operationIds.at(-6 * 24) ?? operationIds[0]}`);
        expect(old.body.operationStatus).toBe('COMPLETED');
        expect((await fetch(old.body.metadata.downloadUrl)).status).toBe(200);
      }
      if (hour % (7 * 24) === 0) weekly.push(sim.state());
    }

    const [week1, week2, week3] = weekly as [SimulatorState, SimulatorState, SimulatorState];
    // Logs stop at their limit (plus the 10% slack that amortises trimming), in each week.
    for (const week of weekly) {
      expect(week.requests).toBeLessThanOrEqual(LOG_LIMIT * 1.1 + 1);
      expect(week.served).toBeLessThanOrEqual(7 * (LOG_LIMIT * 1.1 + 1));
    }
    // Operations: one an hour, kept 7 days.
    expect(week3.operations).toBeLessThanOrEqual(7 * 24 + 1);
    expect(week3.apiKeys).toBeLessThanOrEqual(21);
    // Once the longest window (7 days) is full, nothing grows any more.
    const held = ({ operations, apiKeys }: SimulatorState) => ({ operations, apiKeys });
    expect(held(week2)).toEqual(held(week3));
    expect(week1.operations).toBeLessThanOrEqual(week3.operations);
  });

  it('forgets an export operation seven days after its creation', async () => {
    const { sim, clock } = await startTestSimulator();
    const created = await api(sim, '/v1/operations/transactions:export', {
      method: 'POST',
      body: JSON.stringify({
        type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK',
        options: { includeChains: ['p-chain'] },
      }),
    });
    const id = created.body.operationId as string;
    clock.advance(7 * DAY_MS);
    expect((await api(sim, `/v1/operations/${id}`)).status).toBe(200);
    clock.advance(1);
    expect((await api(sim, `/v1/operations/${id}`)).status).toBe(404);
  });

  it('serves the same pages after weeks as a fresh simulator at that instant (no history kept)', async () => {
    const { sim, clock } = await startTestSimulator({ logLimit: 0 });
    for (let day = 0; day < 28; day++) {
      clock.advance(DAY_MS);
      await api(sim, '/v1/transactions?pageSize=3');
    }
    const fresh = await startTestSimulator({ epochMs: T0 }, clock.now());
    for (const path of [
      '/v1/transactions?pageSize=50',
      `/v1/networks/mainnet/rewards?nodeIds=${NODE_ID}&pageSize=50`,
      '/v1/avax/supply',
      '/v1/subnetRpcUsageMetrics?timeInterval=daily&chainId=43114',
    ]) {
      const { nextPageToken: _a, ...ours } = (await api(sim, path)).body;
      const { nextPageToken: _b, ...theirs } = (await api(fresh.sim, path)).body;
      expect(ours).toEqual(theirs);
    }
    expect(sim.state().served).toBe(0);
    expect(sim.state().requests).toBe(0);
  });

  it(`tracks the budgets of at most ${MAX_TRACKED_KEYS} API keys, forgetting the least recently used`, () => {
    const auth = createAuth({ clock: { now: () => T0 }, seed: 1 });
    const kept = auth.identify('kept-key').account;
    auth.charge(kept, 500);
    let spent = 500;
    for (let i = 0; i < MAX_TRACKED_KEYS + 2_000; i++) {
      auth.charge(auth.identify(`key-${i}`).account, 1);
      if (i % 1_000 === 0) {
        auth.charge(auth.identify('kept-key').account, 1);
        spent += 1;
      }
    }
    expect(auth.size()).toBeLessThanOrEqual(MAX_TRACKED_KEYS + 1);
    // The key used all along kept its budget: what it spent is still counted against the minute's 8000.
    expect(auth.headers(auth.identify('kept-key').account)['ratelimit-remaining']).toBe(
      String(8_000 - spent),
    );
  });
});
