/**
 * `report validations` from the CLI, on a store the validators and rewards jobs filled from the
 * simulator: one row per Primary Network validation, the reward paid matched to the rewards job's
 * rows, the realized annual rate exact, cells escaped for a spreadsheet, and a database without
 * validations said in one line (exit 0, an empty CSV).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '../../jobs/index.js';
import { demoNodeId } from '../../src/commands/demo-config.js';
import { findJob, runJob } from '../../src/kernel/index.js';
import type { ValidatorDetails } from '../../src/simulator/validator-types.js';
import { runCli } from '../support/cli.js';
import { type Collector, configOf, startCollector } from '../support/collector.js';
import { avax } from '../support/rewards-report.js';
import { tempDir } from '../support/tmp.js';

const PRIMARY = '11111111111111111111111111111111LpoYY';
let c: Collector;
let env: Record<string, string>;
let node: string;
let dir: ReturnType<typeof tempDir>;

const lossOf = (v: ValidatorDetails) =>
  v.validationStatus === 'completed' && v.subnetId === PRIMARY && v.rewards.validationRewardAmount === '0';

beforeAll(async () => {
  c = await startCollector();
  // A node with a period that paid nothing, and others that paid.
  for (let i = 0; ; i++) {
    const id = demoNodeId(`v-${i}`);
    const vs = c.sim.truth.validations('mainnet', id);
    if (vs?.some(lossOf) && vs.some((v) => v.validationStatus === 'active')) {
      node = id;
      break;
    }
  }
  const file = {
    jobs: {
      rewards: { schedule: '0 * * * *', nodeIds: [node], currency: 'usd', maxPages: 100 },
      validators: {},
    },
  };
  const config = configOf(file);
  for (const name of ['validators', 'rewards']) {
    const summary = await runJob(findJob(jobs, name)!, c.deps, { config });
    expect(summary.status, name).toBe('succeeded');
  }
  dir = tempDir('glacier-validations-');
  const configPath = join(dir.dir, 'glacier-collector.json');
  writeFileSync(configPath, JSON.stringify(file));
  env = { ...c.dbEnv, GLACIER_CONFIG: configPath };
}, 120_000);

afterAll(async () => {
  dir?.cleanup();
  await c?.close();
});

type CsvRow = Record<string, string>;
const csvRows = (text: string) => parse(text, { columns: true }) as CsvRow[];

describe('report validations', () => {
  it('lists every Primary Network validation with the reward paid, matched to the stored rewards, and the exact realized rate', async () => {
    const r = await runCli(['report', 'validations', '--format', 'csv'], env);
    expect(r.code, r.stderr).toBe(0);
    const rows = csvRows(r.stdout);
    const truth = c.sim.truth.validations('mainnet', node)!.filter((v) => v.subnetId === PRIMARY);
    expect(rows.map((row) => row.staking_tx).sort()).toEqual(truth.map((v) => v.txHash).sort());
    const stored = await c.store.all<{ tx_hash: string; amount: string }>(
      "SELECT tx_hash, amount FROM rewards WHERE node_id = ? AND reward_type = 'VALIDATOR'",
      [node],
    );
    for (const v of truth) {
      const row = rows.find((x) => x.staking_tx === v.txHash)!;
      expect(row.status).toBe(v.validationStatus);
      expect(row.amount_staked_avax).toBe(avax(v.amountStaked));
      expect(Number(row.days)).toBeCloseTo((v.endTimestamp - v.startTimestamp) / 86_400, 12);
      if (v.validationStatus === 'active') {
        expect(row.expected_reward_avax).toBe(avax(v.potentialRewards.validationRewardAmount));
        expect(row.uptime_percent).toBe(String(v.uptimePerformance));
        expect(row.reward_paid_avax).toBe('');
        expect(row.realized_annual_rate).toBe('');
      }
      if (v.validationStatus !== 'completed') continue;
      const paid = BigInt(v.rewards.validationRewardAmount);
      expect(row.reward_paid_avax).toBe(avax(paid));
      expect(row.delegation_fee_avax).toBe(avax(v.rewards.delegationRewardAmount));
      const fromRewardsJob = stored.filter((s) => s.tx_hash === v.txHash);
      expect(row.rewards_collected_avax).toBe(
        fromRewardsJob.length ? avax(fromRewardsJob.reduce((n, s) => n + BigInt(s.amount), 0n)) : '',
      );
      // paid × year ÷ (stake × duration), to the 20 decimal places kept.
      const [whole, fraction = ''] = row.realized_annual_rate!.split('.');
      expect(fraction.length).toBeLessThanOrEqual(20);
      const scaled = BigInt(`${whole}${fraction.padEnd(20, '0')}`);
      const seconds = BigInt(v.endTimestamp - v.startTimestamp);
      const num = paid * 31_536_000n * 10n ** 20n;
      const den = BigInt(v.amountStaked) * seconds;
      // Half up at the 20th place.
      const exact = (2n * num + den) / (2n * den);
      expect(scaled).toBe(exact);
    }
    const lost = rows.filter((row) => row.status === 'completed' && row.reward_paid_avax === '0.000000000');
    expect(lost.length).toBe(truth.filter(lossOf).length);
    for (const row of lost) expect(row.realized_annual_rate).toBe('0');
  });

  it('filters by node id and dates, and writes json and a table', async () => {
    const truth = c.sim.truth.validations('mainnet', node)!.filter((v) => v.subnetId === PRIMARY);
    const completed = truth.filter((v) => v.validationStatus === 'completed');
    const one = completed[Math.floor(completed.length / 2)]!;
    const day = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);
    const json = await runCli(
      [
        'report',
        'validations',
        '--node-id',
        node,
        '--from',
        day(one.endTimestamp),
        '--to',
        day(one.endTimestamp),
        '--format',
        'json',
      ],
      env,
    );
    expect(json.code, json.stderr).toBe(0);
    const body = JSON.parse(json.stdout) as {
      validations: { stakingTx: string; realizedAnnualRate: string }[];
    };
    expect(body.validations.map((v) => v.stakingTx)).toContain(one.txHash);
    // Only those whose period touches that day: at most the one ending and the one starting then.
    expect(body.validations.length).toBeLessThanOrEqual(3);
    const other = await runCli(
      ['report', 'validations', '--node-id', demoNodeId('nobody'), '--format', 'csv'],
      env,
    );
    expect(other.code).toBe(0);
    expect(csvRows(other.stdout)).toEqual([]);
    expect(other.stderr.trim()).toBe('no stored validation matches these node ids and dates');
    const table = await runCli(['report', 'validations', '--format', 'table'], env);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/node id\s+staking tx\s+status/);
    expect(table.stdout).toMatch(/\d+\.\d{2} %/);
    const bad = await runCli(['report', 'validations', '--from', '2025-13-01'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--from "2025-13-01": not a date');
  });

  it('escapes a cell a spreadsheet would run as a formula', async () => {
    const row = await c.store.get<{ tx_hash: string }>(
      'SELECT tx_hash FROM validations WHERE node_id = ? LIMIT 1',
      [node],
    );
    await c.store.run('UPDATE validations SET status = \'=HYPERLINK("http://x")\' WHERE tx_hash = ?', [
      row!.tx_hash,
    ]);
    try {
      const r = await runCli(['report', 'validations', '--format', 'csv'], env);
      expect(r.code, r.stderr).toBe(0);
      expect(csvRows(r.stdout).find((x) => x.staking_tx === row!.tx_hash)?.status).toBe(
        `'=HYPERLINK("http://x")`,
      );
    } finally {
      await c.store.run("UPDATE validations SET status = 'completed' WHERE tx_hash = ?", [row!.tx_hash]);
    }
  });

  it('on a database without validations: one line, exit 0, an empty csv', async () => {
    const empty = await startCollector();
    try {
      // The schema is there (migrated), no validation in it.
      const r = await runCli(['report', 'validations', '--format', 'csv'], {
        ...empty.dbEnv,
        GLACIER_CONFIG: env.GLACIER_CONFIG!,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toEqual([
        'no validation stored: add jobs.validators to the config and run the validators job (run validators)',
      ]);
    } finally {
      await empty.close();
    }
  });
});
