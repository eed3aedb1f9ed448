import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/commands/plan.js';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function dir(): string {
  const t = tempDir('glacier-config-');
  cleanups.push(t.cleanup);
  return t.dir;
}

describe('config check and config init', () => {
  it('config check summarizes: jobs and schedules, store, Redis, budget, metrics address; --print the whole', async () => {
    const d = dir();
    const path = join(d, 'glacier.json');
    writeFileSync(
      path,
      JSON.stringify({
        jobs: {
          supply: { schedule: '*/5 * * * *' },
          transactions: { schedule: '* * * * *', runOnStart: true },
          signatures: {
            schedule: '0 * * * *',
            enabled: false,
            txHashes: ['ASfYWNc2QSgzyWmJBVQJKCWgdmLEYgkvkegrBx4K4iP9AxX45'],
          },
        },
        budget: { computeUnitsPerDay: 50_000 },
      }),
    );
    const env = {
      DATABASE_PATH: join(d, 'glacier.db'),
      REDIS_URL: 'redis://:hunter2@127.0.0.1:6379',
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: '9999',
      GLACIER_API_KEY: 'sk-very-secret-key',
    };
    const r = await runCli(['config', 'check', '-c', path], env);
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    expect(out.split('\n').length).toBeLessThan(26);
    expect(out).toContain(`config OK: ${path}`);
    expect(out).toContain('jobs: 3 enabled of 4 configured (schedules in UTC)');
    expect(out).toMatch(/^ {2}maintenance\s+17 3 \* \* \*$/m);
    expect(out).toMatch(/^ {2}supply\s+\*\/5 \* \* \* \*$/m);
    expect(out).toMatch(/^ {2}transactions\s+\* \* \* \* \*\s+runs at start too$/m);
    expect(out).toMatch(/^ {2}signatures\s+0 \* \* \* \*\s+disabled$/m);
    expect(out).toContain(`store:   SQLite ${join(d, 'glacier.db')}`);
    expect(out).toContain(
      'retention: transactions forever, exportedTransactions forever, jobRuns 90d, supplySnapshots forever, usageMetrics forever',
    );
    expect(out).toContain('redis:   redis://:***@127.0.0.1:6379 (queue prefix glacier');
    expect(out).toContain(
      'budget:  50,000 CU/day, 8,000 CU/minute (budget.computeUnitsPerDay, else tier Free)',
    );
    expect(out).toContain('metrics: http://127.0.0.1:9999/metrics');
    expect(out).toMatch(/^WARNING: transactions, the largest table, is kept forever/m);
    expect(out).toContain('config check --print');
    expect(out).not.toMatch(/hunter2|sk-very-secret-key/);

    const full = await runCli(['config', 'check', '--print', '-c', path], env);
    expect(full.code, full.stderr).toBe(0);
    const printed = JSON.parse(full.stdout) as { jobs: { supply: { schedule: string } }; budget: unknown };
    expect(printed.jobs.supply.schedule).toBe('*/5 * * * *');
    expect(printed.budget).toEqual({
      tier: 'Free',
      computeUnitsPerMinute: 8_000,
      computeUnitsPerDay: 50_000,
    });
    expect(full.stdout).not.toMatch(/hunter2|sk-very-secret-key/);
  });

  it('config init writes a commented starter file that config check accepts, and never overwrites', async () => {
    const path = join(dir(), 'glacier-collector.yaml');
    const r = await runCli(['config', 'init', path]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`wrote ${path}`);
    const text = readFileSync(path, 'utf8');
    expect(text).toMatch(/^# Written by `node --import tsx src\/cli\.ts config init`/m);
    expect(text.split('\n').filter((l) => l.trimStart().startsWith('#')).length).toBeGreaterThan(50);
    const check = await runCli(['config', 'check', '-c', path]);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toContain(`config OK: ${path}`);
    expect(check.stdout).not.toContain('WARNING');
    // The starter keeps a bounded database: no table plan sizes is kept forever; and it fits the
    // keyless tier it runs on without a key: plan warns of nothing.
    const plan = await runCli(['plan', '--json', '-c', path]);
    expect(plan.code, plan.stderr).toBe(0);
    const planned = JSON.parse(plan.stdout) as Plan;
    expect(planned.disk.tables.map((t) => t.table)).toEqual(
      expect.arrayContaining(['transactions', 'job_runs', 'supply_snapshots', 'usage_metrics']),
    );
    expect(planned.disk.tables.filter((t) => t.retentionDays === null)).toEqual([]);
    expect(planned.budget.tier).toBe('none');
    expect(planned.warnings).toEqual([]);

    writeFileSync(path, 'jobs: {}\n');
    const again = await runCli(['config', 'init', path]);
    expect(again.code).toBe(2);
    expect(again.stderr.trim()).toBe(
      `${path} exists already: config init does not overwrite a file; remove it first or give another path (node --import tsx src/cli.ts config init <path>)`,
    );
    expect(readFileSync(path, 'utf8')).toBe('jobs: {}\n');
  });
});
