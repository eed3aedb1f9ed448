import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rewards } from '../../jobs/rewards.js';
import { demoAddress, demoNodeId } from '../../src/commands/demo-config.js';
import { maskDatabaseUrl } from '../../src/config/index.js';
import { runHandler } from '../../src/kernel/index.js';
import { buildRewardsReport, ReportError } from '../../src/report/rewards.js';
import type { HistoricalReward } from '../../src/simulator/types.js';
import { upsertRewards } from '../../src/store/index.js';
import type { Currency } from '../../src/upstream/endpoints.js';
import type { HistoricalReward as StoredReward } from '../../src/upstream/index.js';
import { runCli } from '../support/cli.js';
import { type Collector, startCollector } from '../support/collector.js';
import { avax, cents, money, rewardsCliEnv } from '../support/rewards-report.js';
import { databaseCreated, testDatabase } from '../support/store.js';

// Seed 7 and these labels give rewards of every type, some ending in the last 24 h (no price yet).
const addresses = [demoAddress('report-validator-11'), demoAddress('report-delegator-11')];
const nodeId = demoNodeId('report-node-11');
const FROM = '2025-03-01';
const TO = '2025-06-15'; // the simulator's "now" is 2025-06-15T12:34:56Z: the newest rewards have no price yet

let c: Collector;
let env: Record<string, string>;
let cleanupDir: () => void;

beforeAll(async () => {
  c = await startCollector();
  for (const currency of ['usd', 'eur'] as const) {
    const summary = await runHandler(
      'rewards',
      rewards,
      { network: 'mainnet', addresses, nodeIds: [nodeId], currency, pageSize: 100, maxPages: 100 },
      c.deps,
    );
    expect(summary.status).toBe('succeeded');
  }
  ({ env, cleanup: cleanupDir } = rewardsCliEnv(c, addresses, [nodeId]));
});

afterAll(async () => {
  await c?.close();
  cleanupDir?.();
});

/** The report's rows, computed from the simulator's ground truth. */
function expectedRows(currency: Currency): { line: string; cents: bigint | undefined; nano: string }[] {
  const fromSec = Date.parse(`${FROM}T00:00:00Z`) / 1000;
  const untilSec = Date.parse(`${TO}T00:00:00Z`) / 1000 + 86_400;
  const byUtxo = new Map<string, HistoricalReward>();
  for (const r of [
    ...c.sim.truth.rewards('mainnet', { addresses }, currency),
    ...c.sim.truth.rewards('mainnet', { nodeIds: [nodeId] }, currency),
  ]) {
    byUtxo.set(r.utxoId, r);
  }
  return [...byUtxo.values()]
    .filter((r) => r.endTimestamp >= fromSec && r.endTimestamp < untilSec)
    .sort((a, b) => a.endTimestamp - b.endTimestamp || (a.utxoId < b.utxoId ? -1 : 1))
    .map((r) => {
      const price = r.reward.historicalPrice ? String(r.reward.historicalPrice.value) : undefined;
      const value = price === undefined ? undefined : cents(r.reward.amount, price);
      const owner = r.addresses.find((a) => addresses.includes(a));
      const line = [
        new Date(r.endTimestamp * 1000).toISOString().slice(0, 10),
        owner ?? nodeId,
        r.nodeId,
        r.rewardType,
        avax(r.reward.amount),
        price ?? '',
        currency,
        value === undefined ? '' : money(value),
        owner ? 'address' : r.rewardType === 'DELEGATOR' ? 'delegator' : 'node',
        r.stakingType ?? 'fixed',
        'paid',
      ].join(',');
      return { line, cents: value, nano: r.reward.amount };
    });
}

describe('report rewards', () => {
  const job = {
    schedule: '0 * * * *',
    enabled: true,
    runOnStart: false,
    network: 'mainnet' as const,
    addresses,
    nodeIds: [],
    currency: 'usd' as const,
    pageSize: 100,
    maxPages: 10,
    compoundedIncome: 'at-compounding' as const,
  };

  for (const currency of ['usd', 'eur'] as const) {
    it(`lists every reward of the range with its ${currency} value, equal to the ground truth to the cent`, async () => {
      const expected = expectedRows(currency);
      const r = await runCli(
        ['report', 'rewards', '--from', FROM, '--to', TO, '--currency', currency, '--format', 'csv'],
        env,
      );
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines[0]).toBe(
        'date,address,node_id,reward_type,amount_avax,price,currency,value,owner,staking_type,kind',
      );
      expect(lines.slice(1)).toEqual(expected.map((e) => e.line));
      // Every kind of row is there: address and node-id rewards, priced and not yet priced.
      expect(expected.length).toBeGreaterThan(20);
      expect(expected.some((e) => e.line.includes(`,${nodeId},`) && e.line.startsWith('2025'))).toBe(true);
      // The simulator prices every reward older than 24 h: the unpriced ones are pending.
      const unpriced = expected.filter((e) => e.cents === undefined);
      expect(unpriced.length).toBeGreaterThan(0);
      expect(r.stderr).toContain(`${unpriced.length} reward(s) pending`);
      expect(r.stderr).not.toContain('left out');
    });
  }

  it('prints monthly subtotals and a total in the table format, without double counting', async () => {
    const expected = expectedRows('eur');
    const r = await runCli(
      ['report', 'rewards', '--from', FROM, '--to', TO, '--currency', 'eur', '--format', 'table'],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    const total = r.stdout.split('\n').find((l) => l.startsWith('total'))!;
    const priced = expected.filter((e) => e.cents !== undefined);
    const sumCents = priced.reduce((s, e) => s + e.cents!, 0n);
    const sumNano = expected.reduce((s, e) => s + BigInt(e.nano), 0n);
    const unpriced = expected.length - priced.length;
    expect(total).toContain(`${expected.length} rewards, ${unpriced} without price (${unpriced} pending)`);
    expect(total).toContain(avax(sumNano.toString()));
    expect(total.trimEnd().split(/\s+/).slice(-2)).toEqual(['eur', money(sumCents)]);
    for (const month of ['2025-03', '2025-04', '2025-05', '2025-06']) {
      const inMonth = expected.filter((e) => e.line.startsWith(month));
      const line = r.stdout.split('\n').find((l) => l.startsWith(`${month} subtotal`))!;
      expect(line).toContain(`${inMonth.length} rewards`);
      expect(line.trimEnd().endsWith(money(inMonth.reduce((s, e) => s + (e.cents ?? 0n), 0n)))).toBe(true);
    }
    expect(r.stdout).toContain('(UTC days, both included)');
  });

  it('uses the configured currency by default and filters by address', async () => {
    const r = await runCli(
      ['report', 'rewards', '--from', FROM, '--to', TO, '--address', `P-${addresses[0]}`],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trimEnd().split('\n').slice(1);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((l) => l.split(',')[1] === addresses[0] && l.split(',')[6] === 'usd')).toBe(true);
    expect(rows).toEqual(
      expectedRows('usd')
        .filter((e) => e.line.split(',')[1] === addresses[0])
        .map((e) => e.line),
    );
  });

  it('rejects bad arguments through the CLI with exit code 2 and a message naming them', async () => {
    const cases: [string[], string][] = [
      [['--from', '2025-02-30', '--to', TO], '--from "2025-02-30": not a date'],
      [['--from', FROM, '--to', TO, '--format', 'xml'], "'xml' is invalid"],
      [['--to', TO], "required option '--from <date>' not specified"],
    ];
    const none = await testDatabase({ filename: 'none.db' });
    const noDatabase = { ...env, ...none.env };
    cases.push([['--from', '2025-13-01', '--to', TO], '--from "2025-13-01": not a date']);
    const results = await Promise.all(
      cases.map(([args], i) =>
        runCli(['report', 'rewards', ...args], i === cases.length - 1 ? noDatabase : env),
      ),
    );
    // With good arguments, a missing database is a failure (1), and it is not created.
    const missing = await runCli(['report', 'rewards', '--from', FROM, '--to', TO], noDatabase);
    expect(missing.code).toBe(1);
    try {
      expect(missing.stderr).toContain(`no database at ${maskDatabaseUrl(none.location)}`);
      expect(await databaseCreated(none)).toBe(false);
    } finally {
      await none.cleanup();
    }
    results.forEach((r, i) => {
      expect({ args: cases[i]![0], code: r.code, stdout: r.stdout }).toEqual({
        args: cases[i]![0],
        code: 2,
        stdout: '',
      });
      expect(r.stderr).toContain(cases[i]![1]);
    });
  }, 120_000); // six CLI runs: seconds each on a loaded machine

  it.each([
    [{ from: '15/06/2025', to: TO }, '--from "15/06/2025": not a date'],
    [{ from: FROM, to: '2025-13-01' }, '--to "2025-13-01": not a date'],
    [{ from: TO, to: FROM }, `--to ${FROM} is before --from ${TO}`],
    [
      { from: FROM, to: TO, currency: 'gbp' },
      'no gbp prices collected on mainnet; prices were collected in: eur, usd',
    ],
    [{ from: FROM, to: TO, currency: 'xyz' }, '--currency "xyz": not a currency the API prices in'],
    [{ from: FROM, to: TO, addresses: [demoAddress('stranger')] }, 'no rewards collected for it on mainnet'],
  ])('rejects %j with a ReportError', async (request, message) => {
    await expect(buildRewardsReport(c.store, job, request)).rejects.toThrow(ReportError);
    await expect(buildRewardsReport(c.store, job, request)).rejects.toThrow(message);
  });

  /** A reward of the first address, stored as the API would send it, with changes. */
  async function storeReward(utxoId: string, change: (r: StoredReward) => void): Promise<string> {
    const base = c.sim.truth.rewards('mainnet', { addresses: [addresses[0]!] }, 'usd')[5]!;
    const reward: StoredReward = {
      ...base,
      utxoId,
      reward: { ...base.reward, historicalPrice: { currencyCode: 'usd', value: '1' } },
    };
    change(reward);
    await upsertRewards(c.store, 'mainnet', [reward], new Date(c.clock.now()).toISOString());
    return new Date(reward.endTimestamp * 1000).toISOString().slice(0, 10);
  }

  it('lists a reward shared by two configured addresses once, under both', async () => {
    const day = await storeReward('shared-utxo', (r) => {
      r.addresses = [...addresses];
    });
    for (const filter of [undefined, [addresses[0]!], addresses]) {
      const report = await buildRewardsReport(c.store, job, { from: day, to: day, addresses: filter });
      const rows = report.rows.filter((row) => row.utxoId === 'shared-utxo');
      expect(rows).toHaveLength(1);
      expect(rows[0]!.address).toBe([...addresses].sort().join(' '));
      expect(report.total.rewards).toBe(report.rows.length);
    }
  });

  it("shows each reward's stakingType: as stored, fixed when the API sent none", async () => {
    const auto = await storeReward('auto-renewed-utxo', (r) => {
      r.stakingType = 'autoRenewed';
    });
    await storeReward('fixed-utxo', (r) => {
      delete r.stakingType;
    });
    const report = await buildRewardsReport(c.store, job, { from: auto, to: auto });
    expect(report.rows.find((r) => r.utxoId === 'auto-renewed-utxo')?.stakingType).toBe('autoRenewed');
    expect(report.rows.find((r) => r.utxoId === 'fixed-utxo')?.stakingType).toBe('fixed');
    const stored = await c.store.all<{ s: string }>(
      "SELECT staking_type AS s FROM rewards WHERE utxo_id IN ('auto-renewed-utxo', 'fixed-utxo') ORDER BY utxo_id",
    );
    expect(stored.map((r) => r.s)).toEqual(['autoRenewed', 'fixed']);
    const { koinly } = await import('../../src/report/rewards-formats.js');
    const row = report.rows.find((r) => r.utxoId === 'auto-renewed-utxo')!;
    expect(koinly.row(row).join(',')).toContain('staking reward (auto-renewed), node');
  });

  it('rounds values to cents half to even, exactly', async () => {
    const cases = [
      ['1005000000', '1', '1.00'], // 1.005 → 1.00 (0 is even)
      ['1015000000', '1', '1.02'], // 1.015 → 1.02
      ['1', '0.01', '0.00'], // 1e-11
      ['123456789012345678', '98765.4321', '12193263112482.85'], // beyond a float's 15 digits
      ['500000000', '0.01', '0.00'], // 0.005 → 0.00
      ['1500000000', '0.01', '0.02'], // 0.015 → 0.02
    ] as const;
    const days: string[] = [];
    for (const [i, [amount, price]] of cases.entries()) {
      days.push(
        await storeReward(`rounding-${i}`, (r) => {
          r.reward = { ...r.reward, amount, historicalPrice: { currencyCode: 'usd', value: price } };
        }),
      );
    }
    const report = await buildRewardsReport(c.store, job, { from: days[0]!, to: days[0]! });
    cases.forEach(([, , value], i) => {
      expect(report.rows.find((r) => r.utxoId === `rounding-${i}`)?.value).toBe(value);
    });
  });
});
