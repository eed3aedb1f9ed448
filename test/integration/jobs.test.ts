import { afterEach, describe, expect, it } from 'vitest';
import { rewards } from '../../jobs/rewards.js';
import { signatures } from '../../jobs/signatures.js';
import { supply } from '../../jobs/supply.js';
import { transactions } from '../../jobs/transactions.js';
import { usageMetrics } from '../../jobs/usage-metrics.js';
import { demoAddress, demoCb58, demoNodeId } from '../../src/commands/demo-config.js';
import { type JobHandler, runHandler } from '../../src/kernel/index.js';
import { type Collector, requestCount, startCollector } from '../support/collector.js';

let collector: Collector | undefined;
afterEach(async () => {
  await collector?.close();
  collector = undefined;
});

async function setup(options?: Parameters<typeof startCollector>[0]) {
  collector = await startCollector(options);
  return collector;
}

function run<P>(c: Collector, name: string, handler: JobHandler<P>, payload: P) {
  return runHandler(name, handler, payload, c.deps);
}

const rowsOf = (c: Collector, sql: string) => c.store.all<Record<string, unknown>>(sql);

const txPayload = { networks: ['mainnet' as const], statuses: ['all' as const], pageSize: 100, maxPages: 3 };
const rewardAddresses = [demoAddress('validator-1'), demoAddress('delegator-1')];
const rewardNode = demoNodeId('node-1');
const rewardsPayload = {
  network: 'mainnet' as const,
  addresses: rewardAddresses,
  nodeIds: [rewardNode],
  currency: 'eur' as const,
  pageSize: 100,
  maxPages: 50,
};

describe('supply job', () => {
  it('stores exactly the snapshot served, once per lastUpdated', async () => {
    const c = await setup();
    const first = await run(c, 'supply', supply, {});
    expect(first).toMatchObject({ status: 'succeeded', rowsWritten: 1, requests: 1, computeUnits: 1 });
    const served = c.sim.served.supply[0]!;
    expect(await rowsOf(c, 'SELECT * FROM supply_snapshots')).toEqual([
      {
        last_updated: served.lastUpdated,
        circulating_supply: served.circulatingSupply,
        total_supply: served.totalSupply,
        total_p_burned: served.totalPBurned,
        total_c_burned: served.totalCBurned,
        total_x_burned: served.totalXBurned,
        total_staked: served.totalStaked,
        total_locked: served.totalLocked,
        total_rewards: served.totalRewards,
        genesis_unlock: served.genesisUnlock,
        l1_validator_fees: served.l1ValidatorFees,
        fetched_at: new Date(c.clock.now()).toISOString(),
      },
    ]);
    expect((await run(c, 'supply', supply, {})).rowsWritten).toBe(0);
    c.clock.advance(3_600_000);
    expect((await run(c, 'supply', supply, {})).rowsWritten).toBe(1);
  });
});

describe('transactions job', () => {
  it('stores exactly what was served, then only what is new, with one request when nothing is', async () => {
    const c = await setup({ sim: { txPerMinute: 120 } });
    const first = await run(c, 'transactions', transactions, txPayload);
    expect(first).toMatchObject({ status: 'succeeded', rowsWritten: 300, requests: 3, computeUnits: 60 });
    const served = new Map(c.sim.served.transactions.map((t) => [`${t.chainId}:${t.txHash}`, t]));
    const rows = await rowsOf(c, 'SELECT * FROM transactions');
    expect(rows).toHaveLength(served.size);
    for (const row of rows) {
      const tx = served.get(`${row.chain_id}:${row.tx_hash}`)!;
      expect(row).toMatchObject({
        network: 'mainnet',
        block_number: tx.blockNumber,
        block_timestamp: tx.blockTimestamp,
        block_timestamp_ms: tx.blockTimestampMilliseconds ?? null,
        block_hash: tx.blockHash,
        tx_status: tx.txStatus,
        value: tx.value,
        gas_price: tx.gasPrice,
        from_address: tx.from.address,
        to_address: tx.to.address,
        to_name: tx.to.name ?? null,
        method_call_type: tx.method?.callType ?? null,
        method_name: tx.method?.methodName ?? null,
      });
    }

    const before = requestCount(c.sim, 'transactions');
    const idle = await run(c, 'transactions', transactions, txPayload);
    expect(idle).toMatchObject({ rowsWritten: 0, requests: 1 });
    expect(requestCount(c.sim, 'transactions') - before).toBe(1);

    c.clock.advance(60_000); // 120 new transactions
    const truthBefore = c.sim.truth.transactions({ network: 'mainnet' });
    const next = await run(c, 'transactions', transactions, txPayload);
    expect(next.rowsWritten).toBe(120);
    const stored = new Set(
      (await rowsOf(c, 'SELECT chain_id, tx_hash FROM transactions')).map(
        (r) => `${r.chain_id}:${r.tx_hash}`,
      ),
    );
    for (const tx of truthBefore.slice(0, 420)) expect(stored.has(`${tx.chainId}:${tx.txHash}`)).toBe(true);
  });

  it('a row seen again only gets last_seen_at, and does not count as written', async () => {
    const c = await setup();
    await run(c, 'transactions', transactions, { ...txPayload, maxPages: 1 });
    const firstSeen = new Date(c.clock.now()).toISOString();
    c.clock.advance(500); // nothing new: the default rate adds one transaction a second, on the second
    const again = await run(c, 'transactions', transactions, { ...txPayload, maxPages: 1 });
    expect(again.rowsWritten).toBe(0);
    const seen = await rowsOf(c, 'SELECT DISTINCT first_seen_at, last_seen_at FROM transactions');
    expect(seen).toEqual([{ first_seen_at: firstSeen, last_seen_at: new Date(c.clock.now()).toISOString() }]);
  });

  it('keeps one stream per network and status', async () => {
    const c = await setup();
    await run(c, 'transactions', transactions, {
      networks: ['mainnet', 'fuji'],
      statuses: ['success', 'failed'],
      pageSize: 10,
      maxPages: 1,
    });
    expect((await rowsOf(c, 'SELECT scope FROM sync_state ORDER BY scope')).map((r) => r.scope)).toEqual([
      'fuji/failed',
      'fuji/success',
      'mainnet/failed',
      'mainnet/success',
    ]);
    expect(
      (await rowsOf(c, "SELECT DISTINCT tx_status FROM transactions WHERE network = 'fuji' ORDER BY 1")).map(
        (r) => r.tx_status,
      ),
    ).toEqual(['0', '1']);
  });
});

describe('rewards job', () => {
  it('stores every reward of the addresses and node ids exactly once, with exact prices', async () => {
    const c = await setup();
    const result = await run(c, 'rewards', rewards, rewardsPayload);
    expect(result.status).toBe('succeeded');
    const expected = new Map(
      [
        ...c.sim.truth.rewards('mainnet', { addresses: rewardAddresses }),
        ...c.sim.truth.rewards('mainnet', { nodeIds: [rewardNode] }),
      ].map((r) => [r.utxoId, r]),
    );
    // Prices come in the currency asked for (eur): compare them with what was served.
    const served = new Map(c.sim.served.rewards.map((r) => [r.utxoId, r]));
    expect(new Set(served.keys())).toEqual(new Set(expected.keys()));
    const rows = await rowsOf(
      c,
      `SELECT r.*, p.currency AS price_currency, p.value AS price_value
       FROM rewards r LEFT JOIN reward_prices p USING (network, utxo_id)`,
    );
    expect(rows.length).toBe(expected.size);
    const priced = [...served.values()].filter((r) => r.reward.historicalPrice).length;
    expect(result.rowsWritten).toBe(expected.size + priced); // rewards rows and their price rows
    for (const row of rows) {
      const r = served.get(row.utxo_id as string)!;
      expect(row).toMatchObject({
        tx_hash: r.txHash,
        reward_tx_hash: r.rewardTxHash,
        output_index: r.outputIndex,
        node_id: r.nodeId,
        reward_type: r.rewardType,
        amount_staked: r.amountStaked,
        amount: r.reward.amount,
        end_timestamp: r.endTimestamp,
        price_currency: r.reward.historicalPrice ? 'eur' : null,
        price_value: r.reward.historicalPrice ? String(r.reward.historicalPrice.value) : null,
      });
    }
    // Findable by address.
    const byAddress = (
      await rowsOf(c, `SELECT COUNT(*) AS n FROM reward_addresses WHERE address = '${rewardAddresses[0]}'`)
    )[0]!;
    expect(byAddress.n).toBe(c.sim.truth.rewards('mainnet', { addresses: [rewardAddresses[0]!] }).length);

    const before = requestCount(c.sim, 'rewards');
    const idle = await run(c, 'rewards', rewards, rewardsPayload);
    expect(idle.rowsWritten).toBe(0);
    expect(requestCount(c.sim, 'rewards') - before).toBe(2); // one page per batch
  });

  it('asks for 1,000 addresses in a dozen requests, not a thousand', async () => {
    const c = await setup();
    const addresses = Array.from({ length: 1000 }, (_, i) => demoAddress(`holder-${i}`));
    const result = await run(c, 'rewards', rewards, {
      ...rewardsPayload,
      addresses,
      nodeIds: [],
      pageSize: 100,
      maxPages: 1,
    });
    expect(result.status).toBe('succeeded');
    const batches = new Set(
      c.sim.requests.filter((r) => r.endpoint === 'rewards').map((r) => r.query.addresses),
    );
    expect(batches.size).toBeLessThanOrEqual(13);
    const asked = [...batches].flatMap((b) => b!.split(','));
    expect(new Set(asked).size).toBe(1000);
  });

  it('picks up prices that appear once a reward is older than 24 hours', async () => {
    const c = await setup();
    await run(c, 'rewards', rewards, rewardsPayload);
    const unpricedSql =
      'SELECT utxo_id, end_timestamp FROM rewards WHERE utxo_id NOT IN (SELECT utxo_id FROM reward_prices)';
    const unpriced = (await rowsOf(c, unpricedSql)).length;
    c.clock.advance(26 * 3_600_000);
    await run(c, 'rewards', rewards, rewardsPayload);
    const stillUnpriced = await rowsOf(c, unpricedSql);
    const cutoff = (c.clock.now() - 24 * 3_600_000) / 1000;
    for (const r of stillUnpriced) expect(r.end_timestamp as number).toBeGreaterThan(cutoff - 3_600);
    expect(stillUnpriced.length).toBeLessThanOrEqual(Math.max(unpriced, stillUnpriced.length));
  });
});

describe('usage-metrics job', () => {
  const payload = {
    sources: [
      {
        source: 'dataApi' as const,
        timeInterval: 'hourly' as const,
        groupBy: 'requestPath' as const,
        lookback: 2 * 86_400_000,
      },
      {
        source: 'primaryNetworkRpc' as const,
        network: 'mainnet' as const,
        timeInterval: 'daily' as const,
        lookback: 7 * 86_400_000,
      },
      {
        source: 'subnetRpc' as const,
        chainIds: ['432204', '73772'],
        timeInterval: 'daily' as const,
        lookback: 7 * 86_400_000,
      },
    ],
  };

  it('stores every bucket served, and updates the current bucket on the next run', async () => {
    const c = await setup();
    const first = await run(c, 'usage-metrics', usageMetrics, payload);
    expect(first).toMatchObject({ status: 'succeeded', requests: 4, computeUnits: 800 });
    const servedValues = c.sim.served.usageMetrics.reduce(
      (n, s) =>
        n + (s.body as { metrics: { values: unknown[] }[] }).metrics.reduce((m, b) => m + b.values.length, 0),
      0,
    );
    expect((await rowsOf(c, 'SELECT COUNT(*) AS n FROM usage_metrics'))[0]!.n).toBe(servedValues);
    expect(first.rowsWritten).toBe(servedValues);

    const idle = await run(c, 'usage-metrics', usageMetrics, payload);
    expect(idle).toMatchObject({ rowsWritten: 0, requests: 4 });

    const newestStored = (
      await rowsOf(c, "SELECT MAX(bucket_timestamp) AS t FROM usage_metrics WHERE source = 'dataApi'")
    )[0]!.t;
    c.clock.advance(20 * 60_000);
    const later = await run(c, 'usage-metrics', usageMetrics, payload);
    expect(later.rowsWritten).toBeGreaterThan(0);
    const lastAsked = c.sim.requests.filter((r) => r.endpoint === 'apiUsageMetrics').at(-1)!;
    expect(Number(lastAsked.query.startTimestamp)).toBe(newestStored);
  });
});

describe('signatures job', () => {
  it('fetches each hash once', async () => {
    const c = await setup();
    const payload = { network: 'mainnet' as const, txHashes: [demoCb58('a'), demoCb58('b')] };
    const first = await run(c, 'signatures', signatures, payload);
    expect(first).toMatchObject({ rowsWritten: 2, requests: 2, computeUnits: 40 });
    const rows = await rowsOf(c, 'SELECT tx_hash, signed_message FROM signatures ORDER BY tx_hash');
    for (const row of rows)
      expect(row.signed_message).toBe(c.sim.truth.signature('mainnet', row.tx_hash as string));
    const again = await run(c, 'signatures', signatures, payload);
    expect(again).toMatchObject({ rowsWritten: 0, requests: 0 });
  });
});
