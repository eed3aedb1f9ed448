import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '../../jobs/index.js';
import { maintenance } from '../../jobs/maintenance.js';
import { rewards } from '../../jobs/rewards.js';
import { supply } from '../../jobs/supply.js';
import { demoAddress } from '../../src/commands/demo-config.js';
import { loadConfig, maskDatabaseUrl } from '../../src/config/index.js';
import { runHandler } from '../../src/kernel/index.js';
import { readCron } from '../../src/queue/schedule.js';
import { collectStatus, type Status } from '../../src/report/status.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { finishJobRun, listLatestJobRuns, startJobRun } from '../../src/store/index.js';
import { runCli } from '../support/cli.js';
import { type Collector, evmExportPayload, retentionOnly, startCollector } from '../support/collector.js';
import { runExports } from '../support/exports.js';
import { databaseCreated, STORE, testDatabase } from '../support/store.js';
import { tempDir } from '../support/tmp.js';

const timezone = 'Europe/Paris';
const schedules = { supply: '*/5 * * * *', rewards: '30 3 * * *', usageMetrics: '15 * * * *' };

let c: Collector;
let dir: string;
let cleanup: () => void;
let env: Record<string, string>;
/** What the maintenance run removed from job_runs. */
let runsRemoved: number;
/** rows_written of a maintenance run recorded as before rows_removed existed (NULL there). */
const OLD_MAINTENANCE_ROWS = 7;

beforeAll(async () => {
  // Runs happen "now", so that they count in today's compute units.
  c = await startCollector({ clock: createManualClock(Date.now()) });
  ({ dir, cleanup } = tempDir('glacier-status-'));
  const addresses = [demoAddress('status-holder')];
  await runHandler('supply', supply, {}, c.deps);
  await runHandler(
    'rewards',
    rewards,
    { network: 'mainnet', addresses, nodeIds: [], currency: 'usd', pageSize: 100, maxPages: 2 },
    c.deps,
  );
  await runHandler(
    'usage-metrics',
    async () => {
      throw new Error('upstream said no', { cause: new Error('403 Forbidden') });
    },
    {},
    c.deps,
  );
  // An export left running: the simulator's operations finish only when its clock moves on.
  await runExports(c.deps, { ...evmExportPayload(join(dir, 'exports')), wait: false });
  // A maintenance run of an older version (rows_removed NULL), two runs of a job, then a maintenance
  // run that prunes job_runs: the older of the two goes (a job's latest success stays).
  const at = () => new Date(c.clock.now()).toISOString();
  const finished = { status: 'succeeded' as const, requests: 0, computeUnits: 0 };
  const old = await startJobRun(c.store, 'maintenance', 'all', at());
  await finishJobRun(c.store, old, { ...finished, finishedAt: at(), rowsWritten: OLD_MAINTENANCE_ROWS });
  for (let i = 0; i < 2; i++) {
    const id = await startJobRun(c.store, 'probe', 'all', at());
    await finishJobRun(c.store, id, { ...finished, finishedAt: at(), rowsWritten: 0 });
  }
  c.clock.advance(1_000);
  const pruned = await runHandler(
    'maintenance',
    maintenance,
    { retention: retentionOnly({ jobRuns: 500 }), batchSize: 100 },
    c.deps,
  );
  expect(pruned.status).toBe('succeeded');
  runsRemoved = pruned.rowsRemoved.job_runs ?? 0;
  expect(runsRemoved).toBeGreaterThan(0);
  expect(Object.keys(pruned.rowsRemoved)).toEqual(['job_runs']);
  const configPath = join(dir, 'glacier-collector.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      service: { timezone },
      budget: { computeUnitsPerDay: 50_000 },
      jobs: {
        supply: { schedule: schedules.supply },
        rewards: { schedule: schedules.rewards, addresses },
        usageMetrics: { schedule: schedules.usageMetrics, sources: [{ source: 'dataApi' }] },
        signatures: {
          schedule: '0 0 * * *',
          enabled: false,
          txHashes: ['ASfYWNc2QSgzyWmJBVQJKCWgdmLEYgkvkegrBx4K4iP9AxX45'],
        },
      },
    }),
  );
  env = { ...c.dbEnv, GLACIER_CONFIG: configPath };
});

afterAll(async () => {
  await c?.close();
  cleanup?.();
});

const count = async (sql: string) => (await c.store.get<{ n: number }>(sql))!.n;

/** The collector's tables (not the migrations' own), as the database lists them. */
const tableNames = async () =>
  (
    await c.store.all<{ name: string }>(
      c.store.dialect === 'sqlite'
        ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%'"
        : "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name NOT LIKE '\\_\\_%'",
    )
  ).map((t) => t.name);

describe('status', () => {
  it('--json gives rows per table, each job run and next run, compute units today and exports in flight', async () => {
    const r = await runCli(['status', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const status = JSON.parse(r.stdout) as Status;
    const now = new Date(status.now);

    expect(status.database).toMatchObject({
      kind: STORE,
      location: maskDatabaseUrl(c.location),
      exists: true,
    });
    expect(status.database.tables.map((t) => t.table).sort()).toEqual((await tableNames()).sort());
    for (const t of status.database.tables)
      expect(t.rows).toBe(await count(`SELECT COUNT(*) AS n FROM "${t.table}"`));
    expect(status.database.tables.find((t) => t.table === 'rewards')!.rows).toBeGreaterThan(0);
    // Where the disk goes: sizes, the oldest row kept, and the growth per day from job_runs.
    const table = (name: string) => status.database.tables.find((t) => t.table === name)!;
    for (const t of status.database.tables) expect(t.bytes).toBeGreaterThan(0);
    expect(table('rewards').writtenPerDay).toBe(
      Number(await count("SELECT sum(rows_written) AS n FROM job_runs WHERE job = 'rewards'")),
    );
    expect(table('job_runs').writtenPerDay).toBe(await count('SELECT count(*) AS n FROM job_runs'));
    expect(table('job_runs').oldestKept).toBe(
      (await c.store.get<{ v: string }>('SELECT min(started_at) AS v FROM job_runs'))!.v,
    );
    // Removed per day per table, from rows_removed; every table together from rows_written (the
    // older run's too, which has no per-table figures).
    expect(table('job_runs').removedPerDay).toBe(runsRemoved);
    expect(status.database.tables.filter((t) => t.removedPerDay !== undefined).map((t) => t.table)).toEqual([
      'job_runs',
    ]);
    expect(status.database.prunedPerDay).toBe(runsRemoved + OLD_MAINTENANCE_ROWS);

    const byJob = new Map(status.jobs.map((j) => [j.job, j]));
    expect([...byJob.keys()]).toEqual(['supply', 'rewards', 'usage-metrics', 'signatures', 'maintenance']);
    expect(byJob.get('supply')!.lastRun).toMatchObject({
      status: 'succeeded',
      rowsWritten: 1,
      computeUnits: 1,
    });
    expect(byJob.get('supply')!.lastSuccessAt).toBe(byJob.get('supply')!.lastRun!.finishedAt);
    expect(byJob.get('usage-metrics')!.lastRun).toMatchObject({
      status: 'failed',
      error: 'upstream said no: caused by 403 Forbidden',
    });
    expect(byJob.get('usage-metrics')!.lastSuccessAt).toBeNull();
    expect(byJob.get('signatures')).toMatchObject({ enabled: false, lastRun: null });
    expect(byJob.get('signatures')!.nextRunAt).toBeNull();
    for (const [job, schedule] of [
      ['supply', schedules.supply],
      ['rewards', schedules.rewards],
      ['usage-metrics', schedules.usageMetrics],
    ] as const) {
      expect(byJob.get(job)!.nextRunAt).toBe(readCron(schedule, timezone).nextAfter(now).toISOString());
    }

    const runs = await c.store.all<{ started_at: string; compute_units: number }>(
      'SELECT started_at, compute_units FROM job_runs',
    );
    const today = runs.filter((run) => run.started_at.startsWith(status.now.slice(0, 10)));
    expect(status.computeUnits).toEqual({
      day: status.now.slice(0, 10),
      spent: today.reduce((s, run) => s + run.compute_units, 0),
      budget: 50_000,
      tier: 'none',
      share: today.reduce((s, run) => s + run.compute_units, 0) / 50_000,
    });
    expect(status.computeUnits.spent).toBeGreaterThan(100); // the rewards pages alone cost 100 each

    const running = await c.store.all<{ operation_id: string }>(
      "SELECT operation_id FROM export_operations WHERE status = 'RUNNING'",
    );
    expect(running).toHaveLength(1);
    expect(status.exportsInFlight.map((e) => e.operationId)).toEqual([running[0]!.operation_id]);
    expect(status.exportsInFlight[0]).toMatchObject({ exportName: 'treasury', status: 'RUNNING' });
  });

  it('prints a human summary', async () => {
    const r = await runCli(['status'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^supply\s+\*\/5 \* \* \* \*\s+\S+ \S+Z \(\d+[smhd] ago\)\s+succeeded\s+1\s+1\s/m,
    );
    expect(r.stdout).toMatch(/^signatures\s.*never run.*disabled$/m);
    expect(r.stdout).toContain('usage-metrics failed: upstream said no: caused by 403 Forbidden');
    expect(r.stdout).toMatch(/compute units today \(\d{4}-\d{2}-\d{2} UTC\): [\d,]+ of 50,000 \(/);
    expect(r.stdout).toContain('exports in flight: 1');
    expect(r.stdout).toMatch(
      /^table\s+rows\s+size\s+oldest kept\s+written\/day \(7 d\)\s+removed\/day \(7 d\)$/m,
    );
    expect(r.stdout).toMatch(/^rewards\s+[\d,]+\s+[\d.]+ (B|KiB|MiB)\s+[\d,]+$/m);
    expect(r.stdout).toMatch(
      new RegExp(
        `^job_runs\\s+[\\d,]+\\s+[\\d.]+ (B|KiB|MiB)\\s+\\S+ \\S+Z\\s+[\\d,]+\\s+${runsRemoved}$`,
        'm',
      ),
    );
    expect(r.stdout).not.toContain('pruned by maintenance');
  });

  it('judges overdue on the schedule: a schedule of seconds within seconds, a daily one after a minute', async () => {
    const supplyRun = (await listLatestJobRuns(c.store)).find((r) => r.job === 'supply')!;
    const ran = new Date(supplyRun.startedAt);
    const overdueAt = async (schedule: string, at: number) => {
      const config = loadConfig({ env: c.dbEnv, file: { jobs: { supply: { schedule } } } });
      const s = await collectStatus(jobs, config, c.store, new Date(at));
      return s.jobs.find((j) => j.job === 'supply')!.overdueSince;
    };
    // Every 2 s: overdue once its next slot is 10 s past (three periods, at least 10 s), not a minute.
    const everyTwo = '*/2 * * * * *';
    const slot = readCron(everyTwo, 'UTC').nextAfter(ran).getTime();
    expect(await overdueAt(everyTwo, slot + 9_000)).toBeNull();
    expect(await overdueAt(everyTwo, slot + 11_000)).toBe(new Date(slot).toISOString());
    // Daily: its slot may wait a minute (the queue, the budget) before the job is overdue.
    const daily = '0 0 * * *';
    const midnight = readCron(daily, 'UTC').nextAfter(ran).getTime();
    expect(await overdueAt(daily, midnight + 59_000)).toBeNull();
    expect(await overdueAt(daily, midnight + 61_000)).toBe(new Date(midnight).toISOString());
  });

  it('reports a database that does not exist yet without creating it', async () => {
    const missing = await testDatabase({ filename: 'missing.db' });
    try {
      const r = await runCli(['status', '--json'], { ...env, ...missing.env });
      expect(r.code, r.stderr).toBe(0);
      const status = JSON.parse(r.stdout) as Status;
      expect(status.database).toEqual({
        kind: STORE,
        location: maskDatabaseUrl(missing.location),
        exists: false,
        tables: [],
        prunedPerDay: 0,
        unfinishedCopy: null,
      });
      expect(status.jobs.every((j) => j.lastRun === null)).toBe(true);
      expect(status.computeUnits.spent).toBe(0);
      expect(await databaseCreated(missing)).toBe(false);
    } finally {
      await missing.cleanup();
    }
  });
});
