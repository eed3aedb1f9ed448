import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { jobs as allJobs } from '../../../jobs/index.js';
import { runDemo } from '../../../src/commands/demo.js';
import { demoFileConfig } from '../../../src/commands/demo-config.js';
import { collectStatus, formatStatus } from '../../../src/report/status.js';
import { runCli } from '../../support/cli.js';
import { configOf } from '../../support/collector.js';
import { freePort } from '../../support/redis-server.js';
import { queryAt, withStore } from '../../support/store.js';
import { tempDir } from '../../support/tmp.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('npm run demo', () => {
  it('runs the whole service against the simulator, serves /metrics and the database, and stops', async () => {
    const { dir, cleanup } = tempDir('glacier-demo-');
    cleanups.push(cleanup);
    const databasePath = join(dir, 'demo.db');
    const port = await freePort();
    const lines: string[] = [];
    const abort = new AbortController();
    const demo = runDemo({
      jobs: allJobs,
      databasePath,
      durationMs: 30_000,
      env: { METRICS_PORT: String(port), LOG_LEVEL: 'warn' },
      signal: abort.signal,
      print: (l) => lines.push(l),
    });
    // Stop once the first rounds are in: the demo prints the queries and closes everything.
    for (let i = 0; i < 200; i++) {
      const health = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      if (health?.ok) {
        const [jobs] = await queryAt<{ n: number }>(
          databasePath,
          "SELECT COUNT(DISTINCT job) AS n FROM job_runs WHERE status = 'succeeded'",
        );
        if (jobs!.n >= 5) break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    abort.abort();
    await demo;
    const out = lines.join('\n');
    // The banner first, what to try next last.
    expect(lines[0]).toMatch(/^glacier-collector demo: the whole collector against a local simulator/);
    expect(lines.at(-1)).toMatch(
      /glacier-collector config init[\s\S]*glacier-collector status[\s\S]*docs\/cli\.md/,
    );
    expect(out).toContain(`http://127.0.0.1:${port}/metrics`);
    // The one copy-paste suggestion while it runs: the database's path, as sqlite3 opens it.
    expect(
      lines
        .join('\n')
        .split('\n')
        .filter((l) => l.startsWith('  database: ')),
    ).toEqual([`  database: ${databasePath}   (sqlite3 ${databasePath})`]);
    expect(out).toContain('Transactions per chain');
    // Query results as text tables: named columns, no console.table index column.
    expect(out).toMatch(/^ {2}job\s+status\s+runs\s+rows\s+cu$/m);
    expect(out).not.toContain('(index)');
    // Its own Redis keys are gone.
    const redis = new Redis('redis://127.0.0.1:6379');
    try {
      expect(await redis.keys('glacier-demo:*')).toEqual([]);
    } finally {
      redis.disconnect();
    }
    const jobs = await queryAt<{ job: string }>(
      databasePath,
      "SELECT DISTINCT job FROM job_runs WHERE status = 'succeeded'",
    );
    expect(jobs.map((j) => j.job).sort()).toEqual(
      expect.arrayContaining(['rewards', 'signatures', 'supply', 'transactions', 'usage-metrics']),
    );
    // Everything was closed: the port is free again.
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it('without Redis says so in one line and runs the one-shot rounds', async () => {
    const { dir, cleanup } = tempDir('glacier-demo-');
    cleanups.push(cleanup);
    const lines: string[] = [];
    const port = await freePort();
    await runDemo({
      jobs: allJobs,
      databasePath: join(dir, 'demo.db'),
      env: { REDIS_URL: `redis://127.0.0.1:${port}`, LOG_LEVEL: 'warn' },
      print: (l) => lines.push(l),
    });
    expect(lines[0]).toMatch(/^glacier-collector demo: /);
    expect(lines[1]).toMatch(/^No Redis answers at redis:\/\/127\.0\.0\.1:\d+/);
    expect(lines.join('\n')).toContain('Job runs');
    expect(lines.join('\n')).not.toContain('(index)');
    expect(lines.at(-1)).toContain('glacier-collector config init');
    // The simulator sent a transaction out of bounds and drift: status shows both.
    const out = lines.join('\n');
    expect(out).toContain('Records set aside');
    expect(out).toMatch(/transactions\s+transactions\s+bounds\s+blockTimestamp/);
    const status = await withStore(join(dir, 'demo.db'), (store) =>
      collectStatus(allJobs, configOf(demoFileConfig()), store, new Date()),
    );
    const shown = formatStatus(status);
    expect(shown).toMatch(/records set aside: [1-9]/);
    expect(shown).toContain('upstream drift:');
    expect(shown).toContain('historicalRewards[].simDriftField');
    // The export files went beside the database, not to ./data/demo-exports.
    const files = await queryAt<{ path: string }>(join(dir, 'demo.db'), 'SELECT path FROM export_files');
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(resolve(f.path).startsWith(join(dir, 'demo-exports'))).toBe(true);
  });

  it('as a command: the banner is the first line, before any log, and the next steps end it', async () => {
    const { dir, cleanup } = tempDir('glacier-demo-');
    cleanups.push(cleanup);
    const port = await freePort();
    const r = await runCli(['demo', '--duration', '2', '--database', join(dir, 'demo.db')], {
      METRICS_PORT: String(port),
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^glacier-collector demo: the whole collector against a local simulator/);
    // The next steps are commands this user can run: the CLI the way they started it.
    const next = lines.slice(lines.indexOf('Next, against the real API:') + 1);
    expect(next.map((l) => l.replace(/\s+#.*/, ''))).toEqual([
      '  node --import tsx src/cli.ts config init',
      '  node --import tsx src/cli.ts config check',
      '  node --import tsx src/cli.ts plan',
      '  node --import tsx src/cli.ts start',
      'Every command and setting: docs/cli.md and docs/configuration.md (node --import tsx src/cli.ts --help).',
    ]);
  });
});
