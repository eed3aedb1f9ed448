import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FaultConfig, loadFaultConfig, parseFaultConfig } from '../../../src/simulator/index.js';
import { responseErrors } from '../../support/openapi.js';
import { api, closeSimulators, expectError, startTestSimulator } from './helpers.js';

afterEach(closeSimulators);

type Sim = Awaited<ReturnType<typeof startTestSimulator>>['sim'];

async function statuses(sim: Sim, path: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await api(sim, path)).status);
  return out;
}

function hasExtraEverywhere(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(hasExtraEverywhere);
  if (value === null || typeof value !== 'object') return true;
  const record = value as Record<string, unknown>;
  return (
    'simFutureField' in record &&
    Object.entries(record).every(([k, v]) => k === 'simFutureObject' || hasExtraEverywhere(v))
  );
}

describe('simulator fault plans', () => {
  it('answers the planned statuses in order, then OK', async () => {
    const { sim } = await startTestSimulator({
      faults: { endpoints: { transactions: { plan: [{ status: 503 }, { status: 503 }] } } },
    });
    const first = await api(sim, '/v1/transactions');
    expectError(first, 503, 'injected fault');
    expectError(await api(sim, '/v1/transactions'), 503);
    expect((await api(sim, '/v1/transactions')).status).toBe(200);
    expect((await api(sim, '/v1/avax/supply')).status).toBe(200);
    expect(sim.requests.map((r) => [r.endpoint, r.status, r.fault])).toEqual([
      ['transactions', 503, 'plan:503'],
      ['transactions', 503, 'plan:503'],
      ['transactions', 200, undefined],
      ['supply', 200, undefined],
    ]);
    expect(sim.served.transactions).toHaveLength(10);
  });

  it('sends retry-after and ratelimit-reset on a planned 429', async () => {
    const { sim } = await startTestSimulator({
      faults: { endpoints: { rewards: { plan: [{ status: 429, retryAfterSeconds: 7 }] } } },
    });
    const res = await api(
      sim,
      '/v1/networks/mainnet/rewards?nodeIds=NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg',
      {
        apiKey: 'k',
      },
    );
    expectError(res, 429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.headers.get('ratelimit-reset')).toBe('7');
    expect(res.headers.get('ratelimit-policy')).toBe('8000;w=60');
  });

  it('resets the connection without an answer', async () => {
    const { sim } = await startTestSimulator({
      faults: { endpoints: { supply: { plan: [{ kind: 'reset' }] } } },
    });
    await expect(fetch(`${sim.url}/v1/avax/supply`)).rejects.toThrow();
    expect((await api(sim, '/v1/avax/supply')).status).toBe(200);
    expect(sim.requests[0]).toMatchObject({ status: 0, fault: 'plan:reset' });
    expect(sim.served.supply).toHaveLength(1);
  });

  it('sends a JSON body cut in half with a success status, and does not count it as served', async () => {
    const { sim } = await startTestSimulator({ faults: { all: { plan: [{ kind: 'truncate' }] } } });
    const res = await api(
      sim,
      '/v1/signatureAggregator/mainnet/aggregateSignatures/3P91K6nuDFvDodcRuJTsgdf9SvYe5pMiKk38HppsoeAiEztCP',
    );
    expect(res.status).toBe(201);
    expect(res.body).toBeUndefined();
    expect(() => JSON.parse(res.text)).toThrow();
    expect(res.text.startsWith('{"signedMessage":"')).toBe(true);
    expect(sim.served.signatures).toHaveLength(0);
    // `all` gives each endpoint its own copy of the plan.
    const supply = await api(sim, '/v1/avax/supply');
    expect(supply.body).toBeUndefined();
    expect((await api(sim, '/v1/avax/supply')).body).toBeDefined();
  });

  it('sends valid JSON of the wrong shape for a malformed answer', async () => {
    const { sim } = await startTestSimulator({
      faults: { all: { plan: [{ kind: 'malformed' }] } },
    });
    for (const path of [
      '/v1/transactions',
      '/v1/avax/supply',
      '/v1/apiUsageMetrics',
      '/v1/networks/fuji/rewards?nodeIds=NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg',
    ]) {
      const res = await api(sim, path, { validate: false });
      expect(res.status).toBe(200);
      expect(res.body).toBeDefined();
      const endpoint = sim.requests[sim.requests.length - 1]?.endpoint ?? 'unknown';
      expect(responseErrors(endpoint, 200, res.body).length, path).toBeGreaterThan(0);
    }
    expect(sim.served.transactions).toHaveLength(0);
  });

  it('adds unknown fields at every level and the answer still validates', async () => {
    const { sim, clock } = await startTestSimulator({
      exports: { runningMs: 0 },
      faults: { all: { plan: [{ kind: 'extraFields' }] } },
    });
    const tx = await api(sim, '/v1/transactions?pageSize=20');
    expect(tx.status).toBe(200);
    expect(hasExtraEverywhere(tx.body)).toBe(true);
    expect(tx.body.transactions[0].from.simFutureField).toBeDefined();
    expect(sim.served.transactions).toHaveLength(20);
    expect(sim.served.transactions[0]).not.toHaveProperty('simFutureField');
    const rewards = await api(
      sim,
      '/v1/networks/mainnet/rewards?nodeIds=NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg',
    );
    expect(hasExtraEverywhere(rewards.body)).toBe(true);
    expect(hasExtraEverywhere((await api(sim, '/v1/subnetRpcUsageMetrics?groupBy=rpcMethod')).body)).toBe(
      true,
    );
    const created = await api(sim, '/v1/operations/transactions:export', {
      method: 'POST',
      body: JSON.stringify({
        type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK',
        options: { includeChains: ['p-chain'] },
      }),
    });
    expect(created.status).toBe(201);
    clock.advance(1);
    const op = await api(sim, `/v1/operations/${created.body.operationId}`);
    expect(op.body.metadata.simFutureField).toBeDefined();
  });

  it('delays an answer by the planned latency and logs it', async () => {
    const { sim } = await startTestSimulator({
      faults: { endpoints: { supply: { plan: [{ latencyMs: 30 }] } } },
    });
    expect((await api(sim, '/v1/avax/supply')).status).toBe(200);
    expect(sim.requests[0]?.fault).toBe('plan:latency');
  });

  it('replaces the faults at run time, restarting plans', async () => {
    const { sim } = await startTestSimulator();
    expect((await api(sim, '/v1/avax/supply')).status).toBe(200);
    sim.setFaults({ endpoints: { supply: { plan: [{ status: 502 }, { kind: 'ok' }, { status: 500 }] } } });
    expect(await statuses(sim, '/v1/avax/supply', 4)).toEqual([502, 200, 500, 200]);
    sim.setFaults({});
    expect(await statuses(sim, '/v1/avax/supply', 2)).toEqual([200, 200]);
  });
});

describe('simulator fault rates', () => {
  it('answers the configured share of 5xx, among the configured statuses, reproducibly per seed', async () => {
    const faults: FaultConfig = { seed: 9, endpoints: { supply: { errorRate: 0.3 } } };
    const a = await startTestSimulator({ faults });
    const b = await startTestSimulator({ faults });
    const sa = await statuses(a.sim, '/v1/avax/supply', 200);
    const sb = await statuses(b.sim, '/v1/avax/supply', 200);
    expect(sa).toEqual(sb);
    const errors = sa.filter((s) => s !== 200);
    expect(errors.length).toBeGreaterThan(30);
    expect(errors.length).toBeLessThan(90);
    expect(new Set(errors)).toEqual(new Set([500, 502, 503]));
    const c = await startTestSimulator({ faults: { ...faults, seed: 10 } });
    expect(await statuses(c.sim, '/v1/avax/supply', 200)).not.toEqual(sa);

    const only502 = await startTestSimulator({ faults: { all: { errorRate: 1, errorStatuses: [502] } } });
    expect(new Set(await statuses(only502.sim, '/v1/transactions', 10))).toEqual(new Set([502]));
  });

  it('sends 429 in bursts of the configured length with the configured retry-after', async () => {
    const { sim } = await startTestSimulator({
      faults: {
        endpoints: { transactions: { rateLimitRate: 0.1, rateLimitBurst: 4, retryAfterSeconds: 3 } },
      },
    });
    const seen: number[] = [];
    for (let i = 0; i < 300; i++) {
      const res = await api(sim, '/v1/transactions');
      seen.push(res.status);
      if (res.status === 429) expect(res.headers.get('retry-after')).toBe('3');
    }
    const runs = seen
      .join(',')
      .split(/,?200,?/)
      .filter((r) => r !== '');
    expect(runs.length).toBeGreaterThan(5);
    for (const run of runs.slice(0, -1)) expect(run.split(',').length % 4).toBe(0);
  });

  it('applies reset, truncate, malformed and extraFields rates', async () => {
    const { sim } = await startTestSimulator({
      faults: {
        endpoints: {
          supply: { resetRate: 1 },
          transactions: { truncateRate: 1 },
          apiUsageMetrics: { malformedRate: 1 },
          subnetRpcUsageMetrics: { extraFieldsRate: 1 },
        },
      },
    });
    await expect(fetch(`${sim.url}/v1/avax/supply`)).rejects.toThrow();
    const truncated = await api(sim, '/v1/transactions');
    expect(truncated.status).toBe(200);
    expect(truncated.body).toBeUndefined();
    const malformed = await api(sim, '/v1/apiUsageMetrics', { validate: false });
    expect(responseErrors('apiUsageMetrics', 200, malformed.body).length).toBeGreaterThan(0);
    const extra = await api(sim, '/v1/subnetRpcUsageMetrics');
    expect(hasExtraEverywhere(extra.body)).toBe(true);
    expect(sim.requests.map((r) => r.fault)).toEqual([
      'rate:reset',
      'rate:truncate',
      'rate:malformed',
      'rate:extraFields',
    ]);
  });

  it('lets an endpoint override the settings of all', async () => {
    const { sim } = await startTestSimulator({
      faults: { all: { errorRate: 1, errorStatuses: [500] }, endpoints: { supply: { errorRate: 0 } } },
    });
    expect(await statuses(sim, '/v1/avax/supply', 3)).toEqual([200, 200, 200]);
    expect(await statuses(sim, '/v1/transactions', 3)).toEqual([500, 500, 500]);
  });
});

describe('simulator download faults', () => {
  async function finishedExport(faults: FaultConfig) {
    const { sim, clock } = await startTestSimulator({ exports: { runningMs: 0, rowsPerDay: 2_000 }, faults });
    const created = await api(sim, '/v1/operations/transactions:export', {
      method: 'POST',
      body: JSON.stringify({
        type: 'TRANSACTION_EXPORT_EVM',
        firstDate: '2025-05-01',
        lastDate: '2025-05-02',
        options: { addresses: ['0x71c7656ec7ab88b098defb751b7401b5f6d8976f'], includeChains: ['43114'] },
      }),
    });
    clock.advance(1);
    const op = await api(sim, `/v1/operations/${created.body.operationId}`);
    return { sim, url: op.body.metadata.downloadUrl as string };
  }

  it('drops the connection halfway through a truncated file', async () => {
    const { sim, url } = await finishedExport({ endpoints: { download: { plan: [{ kind: 'truncate' }] } } });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    expect(sim.served.downloads).toHaveLength(0);
    const whole = await (await fetch(url)).text();
    expect(whole.split('\n')).toHaveLength(1 + 4_000 + 1);
    expect(sim.served.downloads).toHaveLength(1);
  });

  it("takes the middle row's key for badRecord; drift mixes line endings and adds a __proto__ column", async () => {
    const { url } = await finishedExport({
      endpoints: { download: { plan: [{ kind: 'badRecord' }, { kind: 'drift' }] } },
    });
    const bad = (await (await fetch(url)).text()).split('\n');
    expect(bad.filter((l) => l.startsWith(','))).toHaveLength(1);
    const drift = await (await fetch(url)).text();
    const [header] = drift.split('\r\n');
    expect(header?.endsWith(',simDriftColumn,__proto__')).toBe(true);
    expect(drift.split('\r\n').length).toBeGreaterThan(100);
    expect(drift).toMatch(/[^\n]\r[^\n]/);
    expect(drift).toContain(',99999999999,');
  });

  it('adds a column for extraFields, a broken row for malformed, and 503 for a planned status', async () => {
    const { url } = await finishedExport({
      endpoints: { download: { plan: [{ kind: 'extraFields' }, { kind: 'malformed' }, { status: 503 }] } },
    });
    const extra = (await (await fetch(url)).text()).split('\n');
    expect(extra[0]?.endsWith(',simFutureColumn')).toBe(true);
    const malformed = await (await fetch(url)).text();
    expect(malformed).toContain('"unterminated,row\n');
    expect((await fetch(url)).status).toBe(503);
  });
});

describe('simulator record faults', () => {
  it('badRecord spoils one record of a page, the rest intact: out of bounds, a word, no hex', async () => {
    const { sim } = await startTestSimulator({
      faults: { all: { plan: [{ kind: 'badRecord' }] } },
    });
    const txs = await api(sim, '/v1/transactions?pageSize=10', { validate: false });
    const late = txs.body.transactions.filter(
      (t: { blockTimestamp: number }) => t.blockTimestamp === 99_999_999_999,
    );
    expect(late).toHaveLength(1);
    expect(txs.body.transactions).toHaveLength(10);
    const usage = await api(sim, '/v1/apiUsageMetrics?groupBy=requestPath', { validate: false });
    const words = usage.body.metrics.flatMap((b: { values: { totalRequests: unknown }[] }) =>
      b.values.filter((v) => v.totalRequests === 'many'),
    );
    expect(words).toHaveLength(1);
    const sig = await api(
      sim,
      '/v1/signatureAggregator/mainnet/aggregateSignatures/3P91K6nuDFvDodcRuJTsgdf9SvYe5pMiKk38HppsoeAiEztCP',
      { validate: false },
    );
    expect(sig.body.signedMessage).toBe('not hex');
  });

  it('drift adds a field the OpenAPI does not list to rewards, a new reward type, unknown fields and two contract creations', async () => {
    const { sim } = await startTestSimulator({ faults: { all: { plan: [{ kind: 'drift' }] } } });
    const rewards = await api(
      sim,
      '/v1/networks/fuji/rewards?nodeIds=NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg',
      {
        validate: false,
      },
    );
    const list = rewards.body.historicalRewards as Record<string, unknown>[];
    expect(list.every((r) => r['simDriftField'])).toBe(true);
    expect(list[0]!['rewardType']).toBe('SIM_NEW_REWARD_TYPE');
    const txs = (await api(sim, '/v1/transactions?pageSize=10', { validate: false })).body
      .transactions as Record<string, unknown>[];
    expect(txs.every((t) => t['simDriftField'])).toBe(true);
    expect('to' in txs[1]!).toBe(false);
    expect(txs[2]!['to']).toBeNull();
    // Neither is recorded as served: its records are not what the truth holds.
    expect(sim.served.transactions).toHaveLength(0);
  });

  it('reads badRecord and drift rates and plan steps from a faults file', () => {
    expect(
      parseFaultConfig({
        endpoints: { rewards: { badRecordRate: 0.1, driftRate: 0.2, plan: [{ kind: 'drift' }] } },
      }),
    ).toEqual({ endpoints: { rewards: { badRecordRate: 0.1, driftRate: 0.2, plan: [{ kind: 'drift' }] } } });
  });
});

describe('fault configuration files', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sim-faults-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads a valid faults file', async () => {
    const config = {
      seed: 3,
      all: { latencyMs: [1, 5] },
      endpoints: {
        transactions: { plan: [{ status: 503 }, { kind: 'ok' }], truncateRate: 0.1 },
        download: { resetRate: 0.5 },
      },
    };
    const path = join(dir, 'ok.json');
    await writeFile(path, JSON.stringify(config));
    expect(await loadFaultConfig(path)).toEqual(config);
  });

  it.each([
    ['an unknown endpoint', { endpoints: { blocks: {} } }, /endpoints.*blocks/],
    ['an unknown fault key', { all: { errorRatio: 0.1 } }, /all.*errorRatio/],
    ['a rate above 1', { endpoints: { rewards: { errorRate: 1.5 } } }, /endpoints\.rewards\.errorRate/],
    [
      'a bad plan step',
      { endpoints: { supply: { plan: [{ kind: 'explode' }] } } },
      /endpoints\.supply\.plan\.0/,
    ],
    ['an inverted latency range', { all: { latencyMs: [50, 10] } }, /all\.latencyMs/],
  ])('refuses %s, naming the bad key', async (_what, config, pattern) => {
    const path = join(dir, 'bad.json');
    await writeFile(path, JSON.stringify(config));
    await expect(loadFaultConfig(path)).rejects.toThrow(pattern);
    expect(() => parseFaultConfig(config)).toThrow(pattern);
  });

  it('refuses a file that is not JSON or does not exist', async () => {
    const path = join(dir, 'broken.json');
    await writeFile(path, '{ "all": ');
    await expect(loadFaultConfig(path)).rejects.toThrow(/not valid JSON/);
    await expect(loadFaultConfig(join(dir, 'missing.json'))).rejects.toThrow(/Cannot read/);
  });
});
