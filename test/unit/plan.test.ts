import { describe, expect, it } from 'vitest';
import { jobs as allJobs } from '../../jobs/index.js';
import { batchIds, MAX_REWARDS_URL_LENGTH, rewardStreams } from '../../jobs/rewards.js';
import { pendingPages, validatorsJob } from '../../jobs/validators.definition.js';
import { demoAddress, demoFileConfig, demoNodeId } from '../../src/commands/demo-config.js';
import { buildPlan, formatPlan, runsPerDay } from '../../src/commands/plan.js';
import { loadConfig } from '../../src/config/index.js';
import { readCron } from '../../src/queue/schedule.js';
import { ROW_BYTES } from '../../src/store/index.js';

describe('runsPerDay', () => {
  it.each([
    ['* * * * *', 1440],
    ['*/5 * * * *', 288],
    ['0 * * * *', 24],
    ['0 2 * * *', 1],
    ['*/30 * * * * *', 2880],
    ['0 0 * * 1', 52 / 365],
    ['0 0 1 * *', 12 / 365],
    // Accepted by the config and fired by node-cron: the last day of each month.
    ['0 0 L * *', 12 / 365],
    ['0 9 * * MON-FRI', 261 / 365],
  ])('%s runs %d times a day', (expr, expected) => {
    expect(runsPerDay(expr)).toBeCloseTo(expected, 3);
  });
});

describe('readCron', () => {
  it('reads the next firing from any instant, in the configured time zone', () => {
    const from = new Date('2025-02-03T10:00:00Z');
    expect(readCron('0 0 L * *').nextAfter(from).toISOString()).toBe('2025-02-28T00:00:00.000Z');
    expect(readCron('*/5 * * * *').nextAfter(from).toISOString()).toBe('2025-02-03T10:05:00.000Z');
    expect(readCron('0 9 * * *', 'Europe/Paris').nextAfter(from).toISOString()).toBe(
      '2025-02-04T08:00:00.000Z',
    );
  });
});

describe('rewards batching', () => {
  it('1,000 addresses make a dozen requests, each within the URL budget', () => {
    const addresses = Array.from({ length: 1000 }, (_, i) => demoAddress(`a${i}`));
    const batches = batchIds(addresses);
    expect(batches.length).toBeLessThanOrEqual(13);
    expect(batches.flat()).toEqual(addresses);
    for (const b of batches)
      expect(encodeURIComponent(b.join(',')).length).toBeLessThan(MAX_REWARDS_URL_LENGTH);
  });

  it('drops duplicates and keeps the order, so appending only changes the last batch', () => {
    const a = Array.from({ length: 200 }, (_, i) => demoAddress(`a${i}`));
    const before = batchIds(a);
    const after = batchIds([...a, a[0]!, demoAddress('new')]);
    expect(after.slice(0, -1)).toEqual(before.slice(0, -1));
  });
});

describe('plan', () => {
  const config = (jobs: unknown) => loadConfig({ env: {}, cwd: '/nonexistent', file: { jobs } });

  it('adds up compute units per day per job', () => {
    const plan = buildPlan(
      allJobs,
      config({
        supply: { schedule: '* * * * *' },
        transactions: { schedule: '* * * * *', networks: ['mainnet', 'fuji'], maxPages: 5 },
        rewards: { schedule: '0 * * * *', addresses: [demoAddress('x')] },
      }),
      'Free',
    );
    const byJob = Object.fromEntries(plan.jobs.map((p) => [p.job, p]));
    expect(byJob.supply?.computeUnitsPerDay.steady).toBe(1440);
    expect(byJob.transactions?.computeUnitsPerDay).toEqual({
      steady: 1440 * 2 * 20,
      worst: 1440 * 2 * 5 * 20,
    });
    expect(byJob.rewards?.computeUnitsPerDay.steady).toBe(24 * 100);
    expect(plan.total.steady).toBe(1440 + 57_600 + 2_400);
    // Within the budget (only the database's growth is warned of: no retention here).
    expect(plan.warnings.filter((w) => w.includes(' CU'))).toEqual([]);
  });

  it("holds what a run spends within a minute against the per-minute budget: an export's polls are spread over hours", () => {
    const exports = {
      schedule: '0 2 * * *',
      definitions: [1, 2, 3].map((i) => ({
        name: `e${i}`,
        type: 'TRANSACTION_EXPORT_EVM',
        addresses: ['0x71C7656EC7ab88b098defB751B7401B5f6d8976F'],
        includeChains: ['43114'],
      })),
    };
    const plan = buildPlan(allJobs, config({ exports }));
    const job = plan.jobs.find((j) => j.job === 'exports')!;
    // 3 POSTs, then the reads of the first minute: at 2, 6, 14, 30 and 60 s.
    expect(job.computeUnitsPerMinute).toBe(3 * 20 + 3 * 5 * 10);
    expect(job.computeUnitsPerRun.worst).toBeGreaterThan(6_000);
    expect(plan.warnings.filter((w) => w.includes(' CU'))).toEqual([]);
    // A job reading its pages back to back spends its worst case at once.
    const heavy = buildPlan(allJobs, config({ transactions: { schedule: '0 * * * *', maxPages: 400 } }));
    expect(heavy.warnings).toContain(
      "one transactions run can spend 8,000 CU within a minute, over the budget's 6,000 CU/minute (tier none: no API key): expect 429s (they are waited out)",
    );
  });

  it('warns when the largest table is kept forever, and when a retention has no maintenance job to apply it', () => {
    const forever = buildPlan(allJobs, config({ supply: { schedule: '* * * * *' } }));
    expect(forever.warnings).toEqual([
      expect.stringMatching(
        /^supply_snapshots, the largest table, is kept forever: it grows .* a day without bound; set retention\.supplySnapshots \(e\.g\. "365d", as the starter config\)/,
      ),
    ]);
    const idle = loadConfig({
      env: {},
      cwd: '/nonexistent',
      file: {
        jobs: { supply: { schedule: '* * * * *' }, maintenance: { enabled: false } },
        retention: { supplySnapshots: '30d' },
      },
    });
    expect(buildPlan(allJobs, idle).warnings).toEqual([
      'retention is set but jobs.maintenance is disabled: nothing prunes the tables, the database grows as if kept forever',
    ]);
  });

  it('gives the rows per day each table can expect, job_runs a row a run', () => {
    const plan = buildPlan(
      allJobs,
      config({
        supply: { schedule: '*/5 * * * *' },
        transactions: { schedule: '* * * * *', maxPages: 10, pageSize: 100 },
        usageMetrics: {
          schedule: '0 * * * *',
          sources: [{ source: 'dataApi', timeInterval: 'hourly' }],
        },
      }),
    );
    expect(plan.tables).toEqual([
      { table: 'supply_snapshots', steady: 288, worst: 288 },
      { table: 'transactions', steady: 1440 * 100, worst: 1440 * 1000 },
      { table: 'usage_metrics', steady: 24, worst: 24 },
      // supply, transactions, usage-metrics and the maintenance job (daily by default).
      { table: 'job_runs', steady: 288 + 1440 + 24 + 1, worst: 288 + 1440 + 24 + 1 },
    ]);
    expect(formatPlan(plan)).toMatch(/^transactions\s+144,000\s+1,440,000$/m);
  });

  it('gives the bytes a day of each table on the configured store, and where its retention levels it off', () => {
    const jobs = {
      supply: { schedule: '*/5 * * * *' },
      transactions: { schedule: '* * * * *', maxPages: 10, pageSize: 100 },
    };
    const file = { jobs, retention: { transactions: '7d', jobRuns: '90d' } };
    const plan = buildPlan(allJobs, loadConfig({ env: {}, cwd: '/nonexistent', file }));
    const b = ROW_BYTES.sqlite;
    const runs = 288 + 1440 + 1;
    expect(plan.disk.store).toBe('sqlite');
    expect(plan.disk.tables).toEqual([
      {
        table: 'supply_snapshots',
        bytesPerRow: b.supply_snapshots,
        bytesPerDay: { steady: 288 * b.supply_snapshots, worst: 288 * b.supply_snapshots },
        retentionDays: null,
        levelsOffAt: undefined,
      },
      {
        table: 'transactions',
        bytesPerRow: b.transactions,
        bytesPerDay: { steady: 144_000 * b.transactions, worst: 1_440_000 * b.transactions },
        retentionDays: 7,
        levelsOffAt: { steady: 7 * 144_000 * b.transactions, worst: 7 * 1_440_000 * b.transactions },
      },
      {
        table: 'job_runs',
        bytesPerRow: b.job_runs,
        bytesPerDay: { steady: runs * b.job_runs, worst: runs * b.job_runs },
        retentionDays: 90,
        levelsOffAt: { steady: 90 * runs * b.job_runs, worst: 90 * runs * b.job_runs },
      },
    ]);
    expect(plan.disk.perDayWithoutRetention.worst).toBe(
      288 * b.supply_snapshots + 1_440_000 * b.transactions + runs * b.job_runs,
    );
    expect(plan.disk.levelsOffAt.worst).toBe(7 * 1_440_000 * b.transactions + 90 * runs * b.job_runs);
    expect(plan.disk.perDayAfterLevelling).toEqual({
      steady: 288 * b.supply_snapshots,
      worst: 288 * b.supply_snapshots,
    });
    expect(formatPlan(plan)).toMatch(
      new RegExp(`^transactions\\s+${b.transactions}\\s+\\S+ MiB–\\S+ GiB\\s+7d\\s+\\S+ MiB–\\S+ GiB$`, 'm'),
    );

    // DATABASE_URL: PostgreSQL's bytes a row.
    const onPostgres = buildPlan(
      allJobs,
      loadConfig({ env: { DATABASE_URL: 'postgres://db.example/glacier' }, cwd: '/nonexistent', file }),
    );
    expect(onPostgres.disk.store).toBe('postgres');
    expect(onPostgres.disk.tables.map((t) => t.bytesPerRow)).toEqual([
      ROW_BYTES.postgres.supply_snapshots,
      ROW_BYTES.postgres.transactions,
      ROW_BYTES.postgres.job_runs,
    ]);
    expect(formatPlan(onPostgres)).toContain('disk on PostgreSQL');
  });

  it('has the bytes a row of every table a job says it grows', () => {
    const plan = buildPlan(allJobs, loadConfig({ env: {}, cwd: '/nonexistent', file: demoFileConfig() }));
    expect(plan.tables.length).toBeGreaterThanOrEqual(4);
    expect(plan.disk.tables.map((t) => t.table)).toEqual(plan.tables.map((t) => t.table));
  });

  it('warns when the schedules exceed the tier', () => {
    const plan = buildPlan(
      allJobs,
      config({
        usageMetrics: { schedule: '*/5 * * * * *', sources: [{ source: 'dataApi' }] },
      }),
      'Free',
    );
    expect(plan.total.steady).toBe(17_280 * 200);
    expect(plan.warnings.join('\n')).toMatch(/worst case|steady state/);
  });

  it('prints what a first rewards backfill costs and takes over the given history', () => {
    const cfg = config({
      rewards: {
        schedule: '0 * * * *',
        addresses: Array.from({ length: 170 }, (_, i) => demoAddress(`backfill-${i}`)),
        nodeIds: [],
        maxPages: 50,
      },
    });
    const now = Date.UTC(2026, 0, 1, 9, 30);
    const plan = buildPlan(allJobs, cfg, 'Free', { history: '700d', nowMs: now });
    const b = plan.rewardsBackfill!;
    // One reward per address each 14 days: 50 per address over 700 days, 100 to a page.
    const batches = rewardStreams(cfg.jobs.rewards!).map((s) => Math.ceil((s.ids.length * 50) / 100));
    const pages = batches.reduce((n, p) => n + p, 0);
    expect(b).toMatchObject({ days: 700, batches: batches.length, rewards: 170 * 50 });
    expect(b.estimate.computeUnitsLeft).toBe(pages * 100);
    // Free: 8,000 CU a minute from a fresh day; 50 pages per batch and hourly run.
    expect(b.estimate.budgetSeconds).toBe(Math.ceil(((pages * 100) / 8_000) * 60));
    const runs = Math.max(...batches.map((p) => Math.ceil(p / 50)));
    expect(b.estimate.scheduleSeconds).toBe((runs - 1) * 3600);
    expect(formatPlan(plan)).toContain(`rewards first backfill: 700 days of history`);
    expect(formatPlan(plan)).toContain(`${(pages * 100).toLocaleString('en')} CU`);
    // Without --history: since the network's launch.
    expect(buildPlan(allJobs, cfg, 'Free', { nowMs: now }).rewardsBackfill?.historyStart).toBe(
      '2020-09-21T00:00:00.000Z',
    );
  });

  it('compares with the effective budget by default: the tier, or the explicit numbers', () => {
    const jobs = { supply: { schedule: '* * * * * *' } }; // 86,400 CU/day, 60 per minute
    const keyless = buildPlan(allJobs, config(jobs));
    expect(keyless.budget).toEqual({
      tier: 'none',
      perDay: 1_200_000,
      perMinute: 6_000,
      source: 'tier none: no API key',
    });
    expect(keyless.warnings.filter((w) => w.includes(' CU'))).toEqual([]);
    const explicit = buildPlan(
      allJobs,
      loadConfig({
        env: {},
        cwd: '/nonexistent',
        file: { jobs, budget: { tier: 'Pro', computeUnitsPerDay: 50_000 } },
      }),
    );
    expect(explicit.budget).toEqual({
      tier: 'Pro',
      perDay: 50_000,
      perMinute: 20_000,
      source: 'budget.computeUnitsPerDay, else tier Pro',
    });
    expect(explicit.warnings.filter((w) => w.includes(' CU'))).toEqual([
      "steady state needs 86,400 CU/day, over the budget's 50,000 (budget.computeUnitsPerDay, else tier Pro)",
    ]);
    expect(buildPlan(allJobs, config(jobs), 'Growth').budget.source).toBe('--tier Growth');
  });
});

describe('plan with 500 validator node ids', () => {
  const nodeIds = Array.from({ length: 500 }, (_, i) => demoNodeId(`plan-${i}`));
  const config = (validators: Record<string, unknown>) =>
    loadConfig({ env: {}, cwd: '/nonexistent', file: { jobs: { validators: { nodeIds, ...validators } } } });

  it('counts one request per node id and the pending rewards in batches; within the Free tier every 15 minutes', () => {
    const plan = buildPlan(allJobs, config({}), 'Free');
    const validators = plan.jobs.find((p) => p.job === 'validators')!;
    const batches = batchIds(nodeIds).length;
    expect(validators.requestsPerRun.steady).toBe(500 + batches);
    expect(validators.computeUnitsPerRun.steady).toBe(500 * 20 + batches * 100);
    expect(validators.computeUnitsPerDay.steady).toBe(96 * (500 * 20 + batches * 100));
    expect(plan.warnings.filter((w) => w.startsWith('steady state needs'))).toEqual([]);
  });

  it('counts one pending-rewards page per batch as steady, maxPages each as worst, and names the pages beyond 100', () => {
    const cost = validatorsJob.cost(config({ maxPages: 4 }))!;
    const batches = batchIds(nodeIds).length;
    expect(cost.steady.pendingRewards).toBe(batches);
    expect(cost.worst.pendingRewards).toBe(batches * 4);
    expect(cost.note).toContain('one more per 100 further pending rewards');
    expect([0, 1, 100, 101, 250, 10_000].map((n) => pendingPages(n, 4))).toEqual([1, 1, 1, 2, 3, 4]);
  });

  it('warns when the schedule would pass the tier’s daily budget', () => {
    const plan = buildPlan(allJobs, config({ schedule: '*/5 * * * *' }), 'Free');
    const perDay = 288 * (500 * 20 + batchIds(nodeIds).length * 100);
    expect(perDay).toBeGreaterThan(2_000_000);
    expect(plan.warnings).toContain(
      `steady state needs ${perDay.toLocaleString('en-US')} CU/day, over the budget's 2,000,000 (--tier Free)`,
    );
    expect(formatPlan(plan)).toContain('steady state needs');
  });
});
