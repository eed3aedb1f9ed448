import { afterEach, describe, expect, it } from 'vitest';
import { chainsByNetwork } from '../../../src/simulator/data/chains.js';
import { NOT_FOUND_PREFIX } from '../../../src/simulator/data/signatures.js';
import { cb58 } from '../../../src/simulator/ids.js';
import type { HistoricalReward, NativeTransaction, UsageMetric } from '../../../src/simulator/index.js';
import { api, closeSimulators, MAINNET_ADDRESS, NODE_ID, startTestSimulator, T0, TX_ID } from './helpers.js';

afterEach(closeSimulators);

const HEX32 = /^0x[0-9a-f]{64}$/;
const EVM_ADDRESS = /^0x[0-9a-f]{40}$/;
const DECIMAL = /^\d+$/;
const CB58 = /^[1-9A-HJ-NP-Za-km-z]{40,60}$/;

describe('simulator endpoints', () => {
  it('answers supply with AVAX decimal strings and an ISO lastUpdated', async () => {
    const { sim } = await startTestSimulator();
    const res = await api(sim, '/v1/avax/supply');
    expect(res.status).toBe(200);
    for (const field of [
      'circulatingSupply',
      'totalSupply',
      'totalPBurned',
      'totalCBurned',
      'totalRewards',
    ]) {
      expect(res.body[field]).toMatch(/^\d+\.\d{15,}$/);
    }
    expect(res.body.genesisUnlock).toBe('360000000');
    expect(res.body.lastUpdated).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(res.body.lastUpdated)).toBeLessThanOrEqual(T0);
    expect(res.body).toEqual(sim.truth.supply());
    expect(sim.served.supply).toEqual([res.body]);
  });

  it('lists mainnet transactions newest first when network is omitted, with realistic fields', async () => {
    const { sim } = await startTestSimulator();
    const res = await api<{ transactions: NativeTransaction[]; nextPageToken?: string }>(
      sim,
      '/v1/transactions?pageSize=100',
    );
    expect(res.status).toBe(200);
    expect(res.body.transactions).toHaveLength(100);
    expect(res.body.nextPageToken).toMatch(/^[\w-]+\.[\w-]{22}$/);
    expect(res.body.transactions).toEqual(sim.truth.transactions().slice(0, 100));
    const mainnetChains = chainsByNetwork.mainnet.map((c) => c.chainId);
    let previous = Number.POSITIVE_INFINITY;
    for (const tx of res.body.transactions) {
      expect(tx.txHash).toMatch(HEX32);
      expect(tx.blockHash).toMatch(HEX32);
      expect(tx.from.address).toMatch(EVM_ADDRESS);
      expect(tx.to.address).toMatch(EVM_ADDRESS);
      for (const field of ['blockNumber', 'gasLimit', 'gasUsed', 'gasPrice', 'nonce', 'value'] as const) {
        expect(tx[field]).toMatch(DECIMAL);
      }
      expect(['0', '1']).toContain(tx.txStatus);
      expect(mainnetChains).toContain(tx.chainId);
      expect(tx.blockTimestamp).toBeLessThanOrEqual(T0 / 1000);
      expect(tx.blockTimestamp).toBeLessThanOrEqual(previous);
      previous = tx.blockTimestamp;
      if (tx.blockTimestampMilliseconds !== undefined) {
        expect(Math.floor(tx.blockTimestampMilliseconds / 1000)).toBe(tx.blockTimestamp);
      }
    }
    expect(sim.served.transactions).toEqual(res.body.transactions);
  });

  it('omits the optional transaction fields on some transactions and fills them on others', async () => {
    const { sim } = await startTestSimulator();
    const all = sim.truth.transactions();
    expect(all.length).toBeGreaterThan(500);
    const some = (pred: (tx: NativeTransaction) => boolean) => all.some(pred) && !all.every(pred);
    expect(some((tx) => tx.method === undefined)).toBe(true);
    expect(some((tx) => tx.blockTimestampMilliseconds === undefined)).toBe(true);
    expect(some((tx) => tx.blockMinDelayExcess === undefined)).toBe(true);
    expect(
      some((tx) => tx.to.symbol !== undefined && tx.to.name !== undefined && tx.to.logoUri !== undefined),
    ).toBe(true);
    const callTypes = new Set(all.map((tx) => tx.method?.callType).filter(Boolean));
    expect([...callTypes].sort()).toEqual(['CONTRACT_CALL', 'CONTRACT_CREATION', 'NATIVE_TRANSFER']);
  });

  it('filters transactions by status and serves fuji and testnet as the same test network', async () => {
    const { sim } = await startTestSimulator();
    const failed = await api<{ transactions: NativeTransaction[] }>(
      sim,
      '/v1/transactions?status=failed&pageSize=50',
    );
    expect(failed.body.transactions.length).toBe(50);
    expect(failed.body.transactions.every((tx) => tx.txStatus === '0')).toBe(true);
    const success = await api<{ transactions: NativeTransaction[] }>(sim, '/v1/transactions?status=success');
    expect(success.body.transactions.every((tx) => tx.txStatus === '1')).toBe(true);
    expect(success.body.transactions).toHaveLength(10);

    const fuji = await api(sim, '/v1/transactions?network=fuji&pageSize=20');
    const testnet = await api(sim, '/v1/transactions?network=testnet&pageSize=20');
    expect(fuji.body.transactions).toEqual(testnet.body.transactions);
    const testChains = chainsByNetwork.testnet.map((c) => c.chainId);
    expect(fuji.body.transactions.every((tx: NativeTransaction) => testChains.includes(tx.chainId))).toBe(
      true,
    );
    const mainnet = await api(sim, '/v1/transactions?network=mainnet&pageSize=20');
    expect(mainnet.body.transactions).toEqual(sim.truth.transactions({ network: 'mainnet' }).slice(0, 20));
    expect(mainnet.body.transactions).not.toEqual(fuji.body.transactions);
  });

  it('lists rewards of an address in nAVAX with prices only for rewards older than 24 hours', async () => {
    const { sim } = await startTestSimulator();
    const res = await api<{ historicalRewards: HistoricalReward[] }>(
      sim,
      `/v1/networks/mainnet/rewards?addresses=${MAINNET_ADDRESS}&pageSize=100&currency=eur`,
    );
    expect(res.status).toBe(200);
    const rewards = res.body.historicalRewards;
    expect(rewards.length).toBeGreaterThan(50);
    const nowSec = T0 / 1000;
    for (const r of rewards) {
      expect(r.addresses).toEqual([MAINNET_ADDRESS]);
      expect(r.txHash).toMatch(CB58);
      expect(r.rewardTxHash).toMatch(CB58);
      expect(r.utxoId).toMatch(CB58);
      expect(r.nodeId).toMatch(/^NodeID-[1-9A-HJ-NP-Za-km-z]{20,40}$/);
      expect(r.amountStaked).toMatch(DECIMAL);
      expect(r.reward).toMatchObject({
        assetId: 'FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z',
        name: 'Avalanche',
        symbol: 'AVAX',
        denomination: 9,
        type: 'secp256k1',
      });
      expect(r.reward.amount).toMatch(DECIMAL);
      expect(r.startTimestamp).toBeLessThan(r.endTimestamp);
      expect(r.endTimestamp).toBeLessThanOrEqual(nowSec);
      if (r.endTimestamp <= nowSec - 86_400) {
        expect(r.reward.historicalPrice?.currencyCode).toBe('eur');
        expect(typeof r.reward.historicalPrice?.value).toBe('number');
      } else expect(r.reward.historicalPrice).toBeUndefined();
    }
    // Newest first by default; span about two years.
    const ends = rewards.map((r) => r.endTimestamp);
    expect(ends).toEqual([...ends].sort((a, b) => b - a));
    expect(new Set(rewards.map((r) => r.utxoId)).size).toBe(rewards.length);
  });

  it('lists rewards of a node id, where one reward transaction carries a delegator and a fee output', async () => {
    const { sim } = await startTestSimulator();
    const res = await api<{ historicalRewards: HistoricalReward[] }>(
      sim,
      `/v1/networks/mainnet/rewards?nodeIds=${NODE_ID}&pageSize=100&sortOrder=asc`,
    );
    const rewards = res.body.historicalRewards;
    expect(rewards.every((r) => r.nodeId === NODE_ID)).toBe(true);
    const byTx = new Map<string, HistoricalReward[]>();
    for (const r of rewards) byTx.set(r.rewardTxHash, [...(byTx.get(r.rewardTxHash) ?? []), r]);
    const pairs = [...byTx.values()].filter((list) => list.length === 2);
    expect(pairs.length).toBeGreaterThan(0);
    for (const [a, b] of pairs) {
      expect(new Set([a?.rewardType, b?.rewardType])).toEqual(new Set(['DELEGATOR', 'VALIDATOR_FEE']));
      expect(a?.outputIndex).not.toBe(b?.outputIndex);
      expect(a?.utxoId).not.toBe(b?.utxoId);
    }
    const ends = rewards.map((r) => r.endTimestamp);
    expect(ends).toEqual([...ends].sort((x, y) => x - y));
    expect(rewards.some((r) => r.rewardType === 'VALIDATOR')).toBe(true);
  });

  it('uses the fuji asset id and fuji addresses on the test network', async () => {
    const { sim } = await startTestSimulator();
    const res = await api(sim, `/v1/networks/fuji/rewards?nodeIds=${NODE_ID}`);
    for (const r of res.body.historicalRewards as HistoricalReward[]) {
      expect(r.reward.assetId).toBe('U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK');
      expect(r.addresses[0]).toMatch(/^fuji1[02-9ac-hj-np-z]{38}$/);
    }
  });

  it('answers the three usage-metrics endpoints with buckets aligned to the interval in UTC', async () => {
    const { sim } = await startTestSimulator();
    const primary = await api(sim, '/v1/primaryNetworkRpcUsageMetrics?network=fuji&timeInterval=hourly');
    expect(primary.status).toBe(200);
    expect(primary.body.network).toBe('testnet');
    expect(primary.body.aggregateDuration).toBe('1h');
    expect(primary.body.metrics).toHaveLength(25);
    for (const m of primary.body.metrics as UsageMetric[]) {
      expect(m.timestamp % 3600).toBe(0);
      expect(m.values).toHaveLength(1);
      expect(m.values[0]?.groupedBy).toBe('None');
    }

    const apiUsage = await api(sim, '/v1/apiUsageMetrics?groupBy=requestType');
    expect(apiUsage.body.aggregateDuration).toBe('1d');
    expect(apiUsage.body.orgId).toMatch(/^org-/);
    expect(apiUsage.body.metrics).toHaveLength(8);
    for (const m of apiUsage.body.metrics as UsageMetric[]) {
      expect(m.timestamp % 86_400).toBe(0);
      expect(m.values.map((v) => v.groupValue)).toEqual(['data', 'rpc']);
      expect(m.values.every((v) => v.groupedBy === 'requestType')).toBe(true);
    }

    const subnet = await api(
      sim,
      '/v1/subnetRpcUsageMetrics?timeInterval=weekly&groupBy=responseCode&chainId=432204',
    );
    expect(subnet.body.chainId).toBe('432204');
    expect(subnet.body.aggregateDuration).toBe('1w');
    for (const m of subnet.body.metrics as UsageMetric[]) {
      // Weeks start on Monday 00:00 UTC.
      expect(new Date(m.timestamp * 1000).getUTCDay()).toBe(1);
      expect(m.timestamp % 86_400).toBe(0);
      expect(m.values.every((v) => typeof v.groupValue === 'number')).toBe(true);
    }

    const monthly = await api(sim, '/v1/apiUsageMetrics?timeInterval=monthly');
    expect(
      monthly.body.metrics.every((m: UsageMetric) => new Date(m.timestamp * 1000).getUTCDate() === 1),
    ).toBe(true);
    const minute = await api(sim, '/v1/apiUsageMetrics?timeInterval=minute');
    expect(minute.body.aggregateDuration).toBe('1m');
    expect(minute.body.metrics).toHaveLength(61);
    expect(sim.served.usageMetrics.map((u) => u.endpoint)).toEqual([
      'primaryNetworkRpcUsageMetrics',
      'apiUsageMetrics',
      'subnetRpcUsageMetrics',
      'apiUsageMetrics',
      'apiUsageMetrics',
    ]);
  });

  it('rounds given start and end timestamps down to 00:00 UTC and covers whole days', async () => {
    const { sim } = await startTestSimulator();
    const start = Date.UTC(2025, 4, 20, 17, 45) / 1000;
    const end = Date.UTC(2025, 4, 22, 9, 10) / 1000;
    const res = await api(
      sim,
      `/v1/primaryNetworkRpcUsageMetrics?network=mainnet&startTimestamp=${start}&endTimestamp=${end}`,
    );
    expect(res.body.metrics.map((m: UsageMetric) => m.timestamp)).toEqual([
      Date.UTC(2025, 4, 20) / 1000,
      Date.UTC(2025, 4, 21) / 1000,
      Date.UTC(2025, 4, 22) / 1000,
    ]);
    const hourly = await api(
      sim,
      `/v1/subnetRpcUsageMetrics?timeInterval=hourly&startTimestamp=${start}&endTimestamp=${start}`,
    );
    expect(hourly.body.metrics).toHaveLength(24);
    expect(hourly.body.metrics[0].timestamp).toBe(Date.UTC(2025, 4, 20) / 1000);
    expect(hourly.body.chainId).toBe('all');
  });

  it('narrows usage numbers with filters and splits them by every groupBy value', async () => {
    const { sim } = await startTestSimulator();
    const whole = await api(sim, '/v1/primaryNetworkRpcUsageMetrics?network=mainnet');
    const filtered = await api(sim, '/v1/primaryNetworkRpcUsageMetrics?network=mainnet&rpcMethod=eth_call');
    const total = (b: { metrics: UsageMetric[] }) =>
      b.metrics.reduce((s, m) => s + (m.values[0]?.totalRequests ?? 0), 0);
    expect(total(filtered.body)).toBeLessThan(total(whole.body));
    expect(total(filtered.body)).toBeGreaterThan(0);
    for (const groupBy of ['rpcMethod', 'requestPath', 'responseCode', 'country', 'continent', 'userAgent']) {
      const res = await api(sim, `/v1/primaryNetworkRpcUsageMetrics?network=mainnet&groupBy=${groupBy}`);
      expect(res.status).toBe(200);
      expect(res.body.metrics[0].values.length).toBeGreaterThan(1);
    }
    for (const groupBy of ['requestPath', 'responseCode', 'chainId', 'apiKeyId', 'requestType']) {
      expect((await api(sim, `/v1/apiUsageMetrics?groupBy=${groupBy}`)).status).toBe(200);
    }
    for (const groupBy of ['rpcMethod', 'responseCode', 'rlBypassToken']) {
      expect((await api(sim, `/v1/subnetRpcUsageMetrics?groupBy=${groupBy}`)).status).toBe(200);
    }
  });

  it('answers aggregated signatures with 201 and a deterministic hex message, 404 for the documented ids', async () => {
    const { sim } = await startTestSimulator();
    const res = await api(sim, `/v1/signatureAggregator/mainnet/aggregateSignatures/${TX_ID}`);
    expect(res.status).toBe(201);
    expect(res.body.signedMessage).toMatch(/^[0-9a-f]{400,}$/);
    expect(res.body.signedMessage).toBe(sim.truth.signature('mainnet', TX_ID));
    const fuji = await api(sim, `/v1/signatureAggregator/fuji/aggregateSignatures/${TX_ID}`);
    const testnet = await api(sim, `/v1/signatureAggregator/testnet/aggregateSignatures/${TX_ID}`);
    expect(fuji.body).toEqual(testnet.body);
    expect(fuji.body).not.toEqual(res.body);
    // Eight leading zero bytes (cb58 "11111111…", checksum valid): an id no real transaction has.
    const unknown = cb58(Buffer.concat([Buffer.alloc(8), Buffer.alloc(24, 7)]));
    expect(unknown.startsWith(NOT_FOUND_PREFIX)).toBe(true);
    const missing = await api(sim, `/v1/signatureAggregator/mainnet/aggregateSignatures/${unknown}`);
    expect(missing.status).toBe(404);
    expect(sim.served.signatures).toHaveLength(3);
  });

  it('gives identical bodies for the same seed and clock, and different ones for another seed', async () => {
    const a = await startTestSimulator({ seed: 42 });
    const b = await startTestSimulator({ seed: 42 });
    const c = await startTestSimulator({ seed: 43 });
    const paths = [
      '/v1/avax/supply',
      '/v1/transactions?pageSize=50',
      '/v1/transactions?network=fuji&status=failed&pageSize=20',
      `/v1/networks/mainnet/rewards?addresses=${MAINNET_ADDRESS}&nodeIds=${NODE_ID}&pageSize=50`,
      '/v1/apiUsageMetrics?groupBy=chainId&timeInterval=hourly',
      '/v1/primaryNetworkRpcUsageMetrics?network=mainnet',
      '/v1/subnetRpcUsageMetrics?groupBy=rpcMethod',
      `/v1/signatureAggregator/mainnet/aggregateSignatures/${TX_ID}`,
    ];
    const strip = (body: Record<string, unknown>) => ({ ...body, nextPageToken: undefined });
    for (const path of paths) {
      const [x, y, z] = await Promise.all([api(a.sim, path), api(b.sim, path), api(c.sim, path)]);
      expect(strip(x.body), path).toEqual(strip(y.body));
      expect(strip(x.body), path).not.toEqual(strip(z.body));
    }
  });
});
