/**
 * Compounded income of auto-renewed staking in `report rewards`, against the simulator's truth over
 * HTTP and a real store (SQLite; PostgreSQL with `--project postgres`): at-compounding adds one row
 * per settled cycle with a compounded part, at its end, priced from the reward its transaction paid,
 * and counts a final reward only for what was not compounded before (the rest shown as a return of
 * restaked rewards); at-withdrawal counts the final reward in full; either way the total equals, to
 * the nAVAX, what the positions earned. A bad `--compounded` is exit 2 naming both values.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rewards } from '../../jobs/rewards.js';
import { demoNodeId } from '../../src/commands/demo-config.js';
import type { RewardsJobConfig } from '../../src/config/index.js';
import { runHandler } from '../../src/kernel/index.js';
import { buildRewardsReport } from '../../src/report/rewards.js';
import { hasAutoRenewed, historyOf } from '../../src/simulator/data/auto-renewed.js';
import { runCli } from '../support/cli.js';
import { type Collector, startCollector } from '../support/collector.js';
import { avax, rewardsCliEnv } from '../support/rewards-report.js';

const SEED = 7;
function nodeWith(history: 'renewing' | 'exited' | 'aborted'): string {
  for (let i = 0; i < 500; i++) {
    const id = demoNodeId(`cycles-${i}`);
    if (hasAutoRenewed(SEED, 'testnet', id) && historyOf(SEED, id) === history) return id;
  }
  throw new Error(`no ${history} node among 500 labels`);
}

const FROM = '2024-06-01';
const TO = '2025-06-15';
let c: Collector;
let nodeIds: string[];
let job: RewardsJobConfig;

beforeAll(async () => {
  c = await startCollector();
  nodeIds = [nodeWith('exited'), nodeWith('aborted'), nodeWith('renewing')];
  job = {
    schedule: '0 * * * *',
    enabled: true,
    runOnStart: false,
    network: 'fuji',
    addresses: [],
    nodeIds,
    currency: 'usd',
    pageSize: 100,
    maxPages: 50,
    compoundedIncome: 'at-compounding',
  };
  const summary = await runHandler('rewards', rewards, job, c.deps);
  expect(summary.status).toBe('succeeded');
});
afterAll(async () => {
  await c?.close();
});

/** The operator's rewards of the nodes in the range (the report's income without compounding), nAVAX. */
function truth() {
  const fromSec = Date.parse(`${FROM}T00:00:00Z`) / 1000;
  const untilSec = Date.parse(`${TO}T00:00:00Z`) / 1000 + 86_400;
  const inRange = (t: number) => t >= fromSec && t < untilSec;
  const paid = c.sim.truth
    .rewards('fuji', { nodeIds })
    .filter((r) => r.rewardType !== 'DELEGATOR' && inRange(r.endTimestamp));
  const fixed = paid.filter((r) => r.stakingType !== 'autoRenewed');
  const cycles = nodeIds.flatMap((n) => c.sim.truth.autoRenewed('fuji', n).flatMap((p) => p.cycles));
  const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);
  return {
    paid: sum(paid.map((r) => BigInt(r.reward.amount))),
    fixed: sum(fixed.map((r) => BigInt(r.reward.amount))),
    earned: sum(
      cycles
        .filter((x) => inRange(x.endTimestamp))
        .map((x) => BigInt(x.grossValidationReward) + BigInt(x.grossDelegateeReward)),
    ),
    cycles,
    paidRewards: paid,
  };
}

describe('report rewards: compounded income of auto-renewed staking', () => {
  it('at-compounding: a row per compounded cycle, the final reward counted once; the total what the positions earned', async () => {
    const t = truth();
    const report = await buildRewardsReport(c.store, job, { from: FROM, to: TO, view: 'income' });
    expect(report.compounded).toBe('at-compounding');
    const ends = report.rows.map((r) => r.endTimestamp);
    expect(ends).toEqual([...ends].sort((a, b) => a - b));
    // Every position's whole life lies in the range: earned = the sum of its cycles' gross rewards.
    expect(report.total.amount).toBe(avax(t.fixed + t.earned));
    const compounded = report.rows.filter((r) => r.kind === 'compounded');
    const expected = t.cycles.filter(
      (x) => BigInt(x.compoundedValidationReward) + BigInt(x.compoundedDelegateeReward) > 0n,
    );
    expect(compounded).toHaveLength(expected.length);
    for (const row of compounded) {
      const cycle = expected.find((x) => x.rewardTxHash === row.rewardTxHash)!;
      expect(row.endTimestamp).toBe(cycle.endTimestamp);
      expect(row.amount).toBe(
        avax(BigInt(cycle.compoundedValidationReward) + BigInt(cycle.compoundedDelegateeReward)),
      );
      // Priced as the withdrawn part paid by the same transaction, when it has a price.
      const withdrawn = t.paidRewards.find((r) => r.rewardTxHash === row.rewardTxHash);
      const price = withdrawn?.reward.historicalPrice?.value;
      if (price !== undefined) expect(Number(row.price)).toBe(Number(price));
      else expect(row.value).toBeUndefined();
    }
    // The exit's and the abort's returns of restaked rewards: shown, not counted.
    const back = report.rows.filter((r) => r.kind === 'restakedReturn');
    expect(back.length).toBeGreaterThanOrEqual(2);
    expect(back.every((r) => r.stakingType === 'autoRenewed')).toBe(true);
  });

  it('at-withdrawal: no compounded row, the final reward in full; the total what was paid', async () => {
    const t = truth();
    const report = await buildRewardsReport(c.store, job, {
      from: FROM,
      to: TO,
      view: 'income',
      compounded: 'at-withdrawal',
    });
    expect(report.rows.some((r) => r.kind !== 'paid')).toBe(false);
    expect(report.total.amount).toBe(avax(t.paid));
    // Over the positions' lives both choices add up to the same nAVAX, save what still compounds
    // in the renewing positions (income at-compounding, paid only at their exit).
    const stillStaked = nodeIds
      .flatMap((n) => c.sim.truth.autoRenewed('fuji', n))
      .filter((p) => p.ended === undefined)
      .reduce((sum, p) => sum + p.accruedValidationRewards + p.accruedDelegateeRewards, 0n);
    expect(t.fixed + t.earned).toBe(t.paid + stillStaked);
  });

  it('the tax files label the compounded rows; a bad --compounded is exit 2 naming both values', async () => {
    const { env, cleanup } = rewardsCliEnv(c, [], nodeIds);
    try {
      // rewardsCliEnv writes a Mainnet config: this one is on Fuji.
      const config = JSON.stringify({ jobs: { rewards: { ...job, schedule: '0 * * * *' } } });
      const { writeFileSync } = await import('node:fs');
      writeFileSync(env['GLACIER_CONFIG']!, config);
      const koinly = await runCli(
        ['report', 'rewards', '--from', FROM, '--to', TO, '--format', 'koinly'],
        env,
      );
      expect(koinly.code, koinly.stderr).toBe(0);
      expect(koinly.stdout).toMatch(/staking reward compounded \(restaked\) \(auto-renewed\), no UTXO/);
      expect(koinly.stdout).toMatch(/-compounded\r?\n/);
      expect(koinly.stderr).toMatch(/re-pay [\d.]+ AVAX compounded before: .*left out of this file/);
      const csv = await runCli(['report', 'rewards', '--from', FROM, '--to', TO, '--format', 'csv'], env);
      expect(csv.stdout).toContain(',compounded (restaked)');
      expect(csv.stdout).toContain(',return of restaked rewards');
      const bad = await runCli(
        ['report', 'rewards', '--from', FROM, '--to', TO, '--compounded', 'yearly'],
        env,
      );
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--compounded "yearly"');
      expect(bad.stderr).toMatch(/at-compounding .*at-withdrawal/);
    } finally {
      cleanup();
    }
  }, 120_000);
});
