import { afterEach, describe, expect, it } from 'vitest';
import type { HistoricalReward, NativeTransaction, SimulatorHandle } from '../../../src/simulator/index.js';
import {
  api,
  closeSimulators,
  expectError,
  MAINNET_ADDRESS,
  NODE_ID,
  startTestSimulator,
} from './helpers.js';

afterEach(closeSimulators);

async function pageThrough<T>(
  sim: SimulatorHandle,
  path: string,
  key: string,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let token: string | undefined;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res = await api(sim, token ? `${path}${sep}pageToken=${token}` : path);
    expect(res.status).toBe(200);
    items.push(...(res.body[key] as T[]));
    token = res.body.nextPageToken;
    pages++;
  } while (token);
  return { items, pages };
}

describe('simulator pagination', () => {
  it.each([
    ['all mainnet', '/v1/transactions?pageSize=7', {}],
    [
      'failed on fuji',
      '/v1/transactions?pageSize=3&network=fuji&status=failed',
      { network: 'fuji', status: 'failed' },
    ],
    [
      'success on testnet',
      '/v1/transactions?pageSize=100&network=testnet&status=success',
      { network: 'testnet', status: 'success' },
    ],
  ] as const)(
    'returns every transaction of a static data set exactly once (%s)',
    async (_what, path, filter) => {
      const { sim } = await startTestSimulator({ initialTransactions: 300 });
      const { items } = await pageThrough<NativeTransaction>(sim, path, 'transactions');
      const truth = sim.truth.transactions(filter);
      expect(items.map((tx) => tx.txHash)).toEqual(truth.map((tx) => tx.txHash));
      expect(new Set(items.map((tx) => tx.txHash)).size).toBe(items.length);
      expect(items).toEqual(truth);
    },
  );

  it('gives no nextPageToken on the last page, even when the page is full', async () => {
    const { sim } = await startTestSimulator({ initialTransactions: 40 });
    const total = sim.truth.transactions().length;
    expect(total).toBe(40);
    const { items, pages } = await pageThrough<NativeTransaction>(
      sim,
      `/v1/transactions?pageSize=${total / 2}`,
      'transactions',
    );
    expect(items).toHaveLength(total);
    expect(pages).toBe(2);
    const single = await api(sim, '/v1/transactions?pageSize=100');
    expect(single.body.transactions).toHaveLength(total);
    expect(single.body.nextPageToken).toBeUndefined();
  });

  it('continues page 2 right after page 1 while new transactions arrive on top', async () => {
    const { sim, clock } = await startTestSimulator({ initialTransactions: 100, txPerMinute: 60 });
    const before = sim.truth.transactions();
    const first = await api(sim, '/v1/transactions?pageSize=10');
    clock.advance(5 * 60_000);
    expect(sim.truth.transactions().length).toBe(before.length + 300);
    expect(before).toHaveLength(100);
    const second = await api(sim, `/v1/transactions?pageSize=10&pageToken=${first.body.nextPageToken}`);
    expect([...first.body.transactions, ...second.body.transactions]).toEqual(before.slice(0, 20));
    const fresh = await api(sim, '/v1/transactions?pageSize=10');
    expect(fresh.body.transactions[0]).toEqual(sim.truth.transactions()[0]);
    expect(fresh.body.transactions[0].blockTimestamp).toBeGreaterThan(
      first.body.transactions[0].blockTimestamp,
    );
  });

  it('lets the page size change between pages', async () => {
    const { sim } = await startTestSimulator();
    const first = await api(sim, '/v1/transactions?pageSize=5');
    const second = await api(sim, `/v1/transactions?pageSize=15&pageToken=${first.body.nextPageToken}`);
    expect(second.body.transactions).toEqual(sim.truth.transactions().slice(5, 20));
  });

  it('refuses a token reused with other filters', async () => {
    const { sim } = await startTestSimulator();
    const { nextPageToken } = (await api(sim, '/v1/transactions?status=success')).body;
    expectError(
      await api(sim, `/v1/transactions?status=failed&pageToken=${nextPageToken}`),
      400,
      'does not match',
    );
    expectError(
      await api(sim, `/v1/transactions?network=fuji&status=success&pageToken=${nextPageToken}`),
      400,
      'match',
    );
    expect(
      (await api(sim, `/v1/transactions?network=mainnet&status=success&pageToken=${nextPageToken}`)).status,
    ).toBe(200);

    const rewards = await api(sim, `/v1/networks/mainnet/rewards?addresses=${MAINNET_ADDRESS}`);
    const token = rewards.body.nextPageToken;
    const other = `/v1/networks/mainnet/rewards?addresses=${MAINNET_ADDRESS}&sortOrder=asc&pageToken=${token}`;
    expectError(await api(sim, other), 400, 'does not match');
    expectError(
      await api(sim, `/v1/networks/mainnet/rewards?nodeIds=${NODE_ID}&pageToken=${token}`),
      400,
      'match',
    );
    expectError(await api(sim, `/v1/transactions?pageToken=${token}`), 400, 'Invalid pageToken');
  });

  it('refuses an unknown token', async () => {
    const { sim } = await startTestSimulator();
    expectError(
      await api(sim, '/v1/transactions?pageToken=6b1f0a5e-2f7c-4d8e-9d55-1c3c0f3b9a11'),
      400,
      'Invalid pageToken',
    );
  });

  it('refuses a token altered by a client, or sealed by a simulator of another seed', async () => {
    const { sim } = await startTestSimulator({ initialTransactions: 50 });
    const token = (await api(sim, '/v1/transactions?pageSize=10')).body.nextPageToken as string;
    const [body, mac] = token.split('.') as [string, string];
    // The same token with another position (20 instead of the sealed one) and the original MAC.
    const sealed = JSON.parse(Buffer.from(body, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify([sealed[0], sealed[1], 20, sealed[3]])).toString('base64url');
    expectError(await api(sim, `/v1/transactions?pageToken=${forged}.${mac}`), 400, 'Invalid pageToken');
    const other = await startTestSimulator({ initialTransactions: 50, seed: 2 });
    expectError(await api(other.sim, `/v1/transactions?pageToken=${token}`), 400, 'Invalid pageToken');
  });

  it('keeps no token: a simulator restarted with the same seed continues a page walk', async () => {
    const { sim } = await startTestSimulator({ initialTransactions: 30 });
    const first = await api(sim, '/v1/transactions?pageSize=20');
    await sim.close();
    const restarted = await startTestSimulator({ initialTransactions: 30 });
    const rest = await api(
      restarted.sim,
      `/v1/transactions?pageSize=20&pageToken=${first.body.nextPageToken}`,
    );
    expect(rest.status).toBe(200);
    const hashes = [...first.body.transactions, ...rest.body.transactions].map(
      (tx: NativeTransaction) => tx.txHash,
    );
    expect(hashes).toEqual(restarted.sim.truth.transactions().map((tx) => tx.txHash));
  });

  it('refuses a token after its lifetime, 24 hours by default', async () => {
    const { sim, clock } = await startTestSimulator();
    const a = (await api(sim, '/v1/transactions')).body.nextPageToken;
    const b = (await api(sim, '/v1/transactions')).body.nextPageToken;
    clock.advance(24 * 3_600_000);
    expect((await api(sim, `/v1/transactions?pageToken=${a}`)).status).toBe(200);
    clock.advance(1);
    expectError(await api(sim, `/v1/transactions?pageToken=${b}`), 400, 'expired');
  });

  it('honours a configured token lifetime', async () => {
    const { sim, clock } = await startTestSimulator({ pageTokenTtlMs: 1_000 });
    const token = (await api(sim, `/v1/networks/mainnet/rewards?nodeIds=${NODE_ID}`)).body.nextPageToken;
    clock.advance(1_001);
    expectError(
      await api(sim, `/v1/networks/mainnet/rewards?nodeIds=${NODE_ID}&pageToken=${token}`),
      400,
      'expired',
    );
  });

  it.each(['asc', 'desc'])(
    'returns every reward of several subjects exactly once (sortOrder %s)',
    async (order) => {
      const { sim } = await startTestSimulator();
      // The same address in three spellings is one subject: the union has no duplicates.
      const addresses = [MAINNET_ADDRESS, `P-${MAINNET_ADDRESS}`, `X-${MAINNET_ADDRESS}`].join(',');
      const path = `/v1/networks/mainnet/rewards?addresses=${addresses}&nodeIds=${NODE_ID}&pageSize=9&sortOrder=${order}`;
      const { items } = await pageThrough<HistoricalReward>(sim, path, 'historicalRewards');
      const truth = sim.truth.rewards('mainnet', { addresses: [MAINNET_ADDRESS], nodeIds: [NODE_ID] });
      expect(new Set(items.map((r) => r.utxoId)).size).toBe(items.length);
      expect(items.length).toBe(truth.length);
      expect(order === 'desc' ? items : [...items].reverse()).toEqual(truth);
      const alone = sim.truth.rewards('mainnet', { addresses: [MAINNET_ADDRESS] }).length;
      expect(items.length).toBe(alone + sim.truth.rewards('mainnet', { nodeIds: [NODE_ID] }).length);
    },
  );

  it('keeps paging rewards in ascending order as new rewards appear', async () => {
    const { sim, clock } = await startTestSimulator({ pageTokenTtlMs: 60 * 86_400_000 });
    const base = `/v1/networks/mainnet/rewards?nodeIds=${NODE_ID}&sortOrder=asc&pageSize=100`;
    const before = sim.truth.rewards('mainnet', { nodeIds: [NODE_ID] }).reverse();
    const first = await api(sim, base);
    clock.advance(30 * 86_400_000);
    const after = sim.truth.rewards('mainnet', { nodeIds: [NODE_ID] }).reverse();
    expect(after.length).toBeGreaterThan(before.length);
    const { items } = await (async () => {
      const rest: HistoricalReward[] = [];
      let token = first.body.nextPageToken;
      while (token) {
        const res = await api(sim, `${base}&pageToken=${token}`);
        rest.push(...res.body.historicalRewards);
        token = res.body.nextPageToken;
      }
      return { items: rest };
    })();
    const ids = [...first.body.historicalRewards, ...items].map((r: HistoricalReward) => r.utxoId);
    expect(ids).toEqual(after.map((r) => r.utxoId));
  });
});
