import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { maintenanceJob } from '../../jobs/maintenance.definition.js';
import { maintenance } from '../../jobs/maintenance.js';
import { supplyJob } from '../../jobs/supply.definition.js';
import { transactionsJob } from '../../jobs/transactions.definition.js';
import { usageMetricsJob } from '../../jobs/usage-metrics.definition.js';
import type { Config } from '../../src/config/index.js';
import { storeLocation } from '../../src/config/index.js';
import { type Job, type RunSummary, runHandler, runJob } from '../../src/kernel/index.js';
import { openStore, pruneTransactions, startJobRun, upsertTransactions } from '../../src/store/index.js';
import { type Collector, configOf, evmExportPayload, startCollector } from '../support/collector.js';
import { count, runExportsPass } from '../support/exports.js';
import { onPostgres, testStore } from '../support/store.js';
import { tempDir } from '../support/tmp.js';
import { evmTransaction } from '../support/transactions.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let collector: Collector | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await collector?.close();
  collector = undefined;
  while (cleanups.length) cleanups.pop()!();
});

function configWith(retention: Record<string, string>, batchSize = 100): Config {
  return configOf({
    jobs: {
      supply: { schedule: '*/5 * * * *' },
      transactions: { schedule: '* * * * *', pageSize: 100, maxPages: 3 },
      usageMetrics: {
        schedule: '0 * * * *',
        sources: [{ source: 'dataApi', timeInterval: 'hourly', groupBy: 'requestPath', lookback: '3d' }],
      },
      maintenance: { batchSize },
    },
    retention,
  });
}

async function setup(options?: Parameters<typeof startCollector>[0]): Promise<Collector> {
  collector = await startCollector(options);
  return collector;
}

async function run(c: Collector, job: Job, config: Config): Promise<RunSummary> {
  const summary = await runJob(job, c.deps, { config });
  expect(summary.errorMessage).toBeUndefined();
  return summary;
}

const rows = (c: Collector, sql: string) => c.store.all<Record<string, unknown>>(sql);

/** A run's `job_runs` row: rows_written, and rows_removed parsed (SQLite's text and PostgreSQL's jsonb alike). */
async function recordedRun(c: Collector, runId: number | undefined) {
  const row = await c.store.get<{ status: string; rows_written: number; rows_removed: string | null }>(
    'SELECT status, rows_written, rows_removed FROM job_runs WHERE id = ?',
    [runId],
  );
  return {
    status: row?.status,
    rowsWritten: row?.rows_written,
    rowsRemoved: row?.rows_removed == null ? null : (JSON.parse(row.rows_removed) as Record<string, number>),
  };
}

/** Every summary the metrics read, against the same figures recounted from the tables. */
async function expectSummariesExact(c: Collector): Promise<void> {
  expect(
    await rows(
      c,
      'SELECT network, chain_id, transactions, newest_block_timestamp FROM transaction_summaries WHERE transactions > 0 ORDER BY 1, 2',
    ),
  ).toEqual(
    await rows(
      c,
      `SELECT network, chain_id, count(*) AS transactions, max(block_timestamp) AS newest_block_timestamp
       FROM transactions GROUP BY network, chain_id ORDER BY 1, 2`,
    ),
  );
  expect(
    await rows(
      c,
      'SELECT source, scope, time_interval, group_by, latest_bucket_timestamp FROM usage_summaries ORDER BY 1, 2, 3, 4',
    ),
  ).toEqual(
    await rows(
      c,
      `SELECT source, scope, time_interval, group_by, max(bucket_timestamp) AS latest_bucket_timestamp
       FROM usage_metrics GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
    ),
  );
  // job_summaries: the latest finished run and the latest success, per job, and that run's status.
  expect(
    await rows(c, 'SELECT job, last_finished_at, last_success_at FROM job_summaries ORDER BY job'),
  ).toEqual(
    await rows(
      c,
      `SELECT job, max(finished_at) AS last_finished_at,
         max(CASE WHEN status = 'succeeded' THEN finished_at END) AS last_success_at
       FROM job_runs WHERE status IN ('succeeded', 'failed') AND finished_at IS NOT NULL GROUP BY job ORDER BY job`,
    ),
  );
  expect(
    await count(
      c,
      `SELECT count(*) AS n FROM job_summaries s WHERE NOT EXISTS (SELECT 1 FROM job_runs r WHERE r.job = s.job
         AND r.status = s.last_status AND r.started_at = s.last_started_at AND r.finished_at = s.last_finished_at)`,
    ),
  ).toBe(0);
}

describe('maintenance job', () => {
  it('prunes each table by its own time in batches, keeps the summaries exact and counts what it removed', async () => {
    const c = await setup({ sim: { txPerMinute: 120 } });
    const config = configWith({
      transactions: '1d',
      jobRuns: '1d',
      supplySnapshots: '1d',
      usageMetrics: '2d',
    });
    // Three days of collection, a run of each job every 6 hours.
    for (let i = 0; i < 12; i++) {
      await run(c, transactionsJob, config);
      await run(c, supplyJob, config);
      await run(c, usageMetricsJob, config);
      c.clock.advance(6 * HOUR);
    }
    const now = c.clock.now();
    const before = {
      transactions: await count(c, 'SELECT count(*) AS n FROM transactions'),
      old: await count(
        c,
        'SELECT count(*) AS n FROM transactions WHERE block_timestamp < ?',
        (now - DAY) / 1000,
      ),
      usage: await count(
        c,
        'SELECT count(*) AS n FROM usage_metrics WHERE bucket_timestamp < ?',
        (now - 2 * DAY) / 1000,
      ),
      supply: await count(
        c,
        'SELECT count(*) AS n FROM supply_snapshots WHERE last_updated < ?',
        new Date(now - DAY).toISOString(),
      ),
      runs: await count(
        c,
        'SELECT count(*) AS n FROM job_runs WHERE started_at < ?',
        new Date(now - DAY).toISOString(),
      ),
    };
    // Enough old rows that the batches of 100 take several turns.
    expect(before.old).toBeGreaterThan(300);
    expect(before.usage).toBeGreaterThan(0);
    expect(before.supply).toBeGreaterThan(0);

    const summary = await run(c, maintenanceJob, config);

    expect(summary.rowsRemoved.transactions).toBe(before.old);
    expect(await count(c, 'SELECT count(*) AS n FROM transactions')).toBe(before.transactions - before.old);
    expect(
      await count(c, 'SELECT count(*) AS n FROM transactions WHERE block_timestamp < ?', (now - DAY) / 1000),
    ).toBe(0);
    expect(summary.rowsRemoved.usage_metrics).toBe(before.usage);
    expect(summary.rowsRemoved.supply_snapshots).toBe(before.supply);
    // Three runs of every job are older than a day, but each job's latest success stays.
    expect(summary.rowsRemoved.job_runs).toBe(before.runs);
    // Deleting is not writing: what it removed stays apart from rows_written.
    expect(summary.rowsWritten).toBe(0);
    // Its job_runs row: per table what it deleted in rows_removed; nothing in rows_written.
    expect(await recordedRun(c, summary.runId)).toEqual({
      status: 'succeeded',
      rowsWritten: summary.rowsWritten,
      rowsRemoved: {
        transactions: before.old,
        job_runs: before.runs,
        supply_snapshots: before.supply,
        usage_metrics: before.usage,
      },
    });
    // The other jobs' runs removed nothing: NULL.
    expect(
      await count(
        c,
        "SELECT count(*) AS n FROM job_runs WHERE job <> 'maintenance' AND rows_removed IS NOT NULL",
      ),
    ).toBe(0);
    await expectSummariesExact(c);

    // A second run has nothing left to do: NULL too.
    const again = await run(c, maintenanceJob, config);
    expect(again.rowsWritten).toBe(0);
    expect(await recordedRun(c, again.runId)).toEqual({
      status: 'succeeded',
      rowsWritten: 0,
      rowsRemoved: null,
    });
    await expectSummariesExact(c);
  });

  it('prunes while the transactions job writes: both finish, and the summaries stay exact', async () => {
    const c = await setup({ sim: { txPerMinute: 600 } });
    const config = configWith({ transactions: '1h' }, 100);
    await run(c, transactionsJob, config);
    c.clock.advance(2 * HOUR);
    const [maintenance, transactions] = await Promise.all([
      run(c, maintenanceJob, config),
      run(c, transactionsJob, config),
    ]);
    expect(maintenance.rowsRemoved.transactions).toBeGreaterThan(0);
    expect(transactions.rowsWritten).toBeGreaterThan(0);
    await expectSummariesExact(c);
  });

  it('leaves a pruned transaction pruned: the cursor is ahead, and re-read pages skip rows past the retention', async () => {
    // A quiet chain: the newest page read again on every run is older than the retention.
    const c = await setup({ sim: { txPerMinute: 1 } });
    const config = configWith({ transactions: '1h' });
    await run(c, transactionsJob, config);
    const first = await count(c, 'SELECT count(*) AS n FROM transactions');
    c.clock.advance(2 * HOUR);
    await run(c, maintenanceJob, config);
    const after = await count(c, 'SELECT count(*) AS n FROM transactions');
    expect(after).toBeLessThan(first);
    const cutoff = (c.clock.now() - HOUR) / 1000;
    for (let i = 0; i < 3; i++) {
      await run(c, transactionsJob, config);
      expect(await count(c, 'SELECT count(*) AS n FROM transactions WHERE block_timestamp < ?', cutoff)).toBe(
        0,
      );
    }
    // The next maintenance run has nothing to remove: nothing pruned came back.
    expect((await run(c, maintenanceJob, config)).rowsRemoved.transactions ?? 0).toBe(0);
    await expectSummariesExact(c);
  });

  it('removes an export file once every row it brought is pruned, and keeps its record', async () => {
    const c = await setup({ sim: { exports: { runningMs: 0 } } });
    const dir = tempDir('glacier-exports-');
    cleanups.push(dir.cleanup);
    const payload = evmExportPayload(dir.dir, 'previous-day');
    const exported = await runExportsPass(c, { ...payload, wait: true });
    expect(exported.errorMessage).toBeUndefined();
    const [file] = await rows(c, 'SELECT path, loaded_at FROM export_files');
    expect(file?.loaded_at).not.toBeNull();
    const loaded = await count(c, 'SELECT count(*) AS n FROM exported_transactions');
    expect(loaded).toBeGreaterThan(0);
    const summariesBefore = await rows(c, 'SELECT * FROM export_summaries');

    // A day on, a 2-day retention prunes the window's older rows only: the file stays.
    c.clock.advance(DAY);
    const config = configWith({ exportedTransactions: '2d' });
    const older = await count(
      c,
      'SELECT count(*) AS n FROM exported_transactions WHERE block_timestamp < ?',
      (c.clock.now() - 2 * DAY) / 1000,
    );
    expect(older).toBeLessThan(loaded);
    expect((await run(c, maintenanceJob, config)).rowsRemoved.exported_transactions ?? 0).toBe(older);
    expect(existsSync(String(file?.path))).toBe(true);

    c.clock.advance(2 * DAY);
    const pruned = await run(c, maintenanceJob, config);
    expect(pruned.rowsRemoved.exported_transactions).toBe(loaded - older);
    expect(await count(c, 'SELECT count(*) AS n FROM exported_transactions')).toBe(0);
    expect(existsSync(String(file?.path))).toBe(false);
    expect(await count(c, 'SELECT count(*) AS n FROM export_files')).toBe(1);
    expect(await rows(c, 'SELECT * FROM export_summaries')).toEqual(summariesBefore);
  });

  it('prunes nothing with the defaults but job runs (and records set aside) older than 90 days, and never rewards nor signatures', async () => {
    const c = await setup({ sim: { txPerMinute: 60 } });
    const config = configWith({});
    expect(config.retention).toEqual({
      transactions: 'forever',
      exportedTransactions: 'forever',
      jobRuns: 90 * DAY,
      supplySnapshots: 'forever',
      usageMetrics: 'forever',
      rejectedRecords: 90 * DAY,
    });
    await run(c, transactionsJob, config);
    await run(c, supplyJob, config);
    await run(c, transactionsJob, config);
    c.clock.advance(100 * DAY);
    await run(c, supplyJob, config);
    const summary = await run(c, maintenanceJob, config);
    // Of the transactions job's two runs the older goes (the newer is its latest success); supply's
    // older run goes too.
    expect(summary.rowsRemoved).toEqual({ job_runs: 2 });
    expect((await recordedRun(c, summary.runId)).rowsRemoved).toEqual({ job_runs: 2 });
    await expectSummariesExact(c);
  });

  it('a run cut short between two batches records, per table, what its committed batches removed', async () => {
    const c = await setup({ sim: { txPerMinute: 120 } });
    const config = configWith({ transactions: '1d', usageMetrics: '2d' });
    for (let i = 0; i < 5; i++) {
      await run(c, transactionsJob, config);
      await run(c, usageMetricsJob, config);
      c.clock.advance(6 * HOUR);
    }
    const tables = ['transactions', 'usage_metrics'] as const;
    const counts = async () =>
      Object.fromEntries(
        await Promise.all(tables.map(async (t) => [t, await count(c, `SELECT count(*) AS n FROM ${t}`)])),
      ) as Record<(typeof tables)[number], number>;
    const before = await counts();
    const oldUsage = await count(
      c,
      'SELECT count(*) AS n FROM usage_metrics WHERE bucket_timestamp < ?',
      (c.clock.now() - 2 * DAY) / 1000,
    );
    const batchSize = 10;
    expect(oldUsage).toBeGreaterThan(2 * batchSize);

    // The shutdown's abort, once the first batch of usage_metrics has committed (transactions are done).
    const shutdown = new AbortController();
    const payload = { retention: config.retention, batchSize };
    const cut = await runHandler(
      'maintenance',
      (p: typeof payload, ctx) =>
        maintenance(p, {
          ...ctx,
          countRemoved: (table, n) => {
            ctx.countRemoved(table, n);
            if (table === 'usage_metrics') shutdown.abort();
          },
        }),
      payload,
      c.deps,
      { signal: shutdown.signal },
    );
    expect(cut.status).toBe('failed');
    const after = await counts();
    const deleted = { transactions: before.transactions - after.transactions, usage_metrics: batchSize };
    expect(before.usage_metrics - after.usage_metrics).toBe(batchSize);
    expect(deleted.transactions).toBeGreaterThan(batchSize);
    expect(cut.rowsRemoved).toEqual(deleted);
    expect(await recordedRun(c, cut.runId)).toEqual({
      status: 'failed',
      rowsWritten: 0,
      rowsRemoved: deleted,
    });

    // The next run removes the rest, and says so.
    const rest = await runHandler('maintenance', maintenance, payload, c.deps);
    expect((await recordedRun(c, rest.runId)).rowsRemoved).toEqual({ usage_metrics: oldUsage - batchSize });
    await expectSummariesExact(c);
  });
});

describe('pruning and the other writers', () => {
  const stores: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (stores.length) await stores.pop()!();
  });

  async function storeWithTransactions(n: number) {
    const db = await testStore();
    stores.push(db.cleanup);
    for (let i = 0; i < n; i += 500) {
      const page = Array.from({ length: Math.min(500, n - i) }, (_, j) => evmTransaction(i + j));
      await db.store.transaction((tx) => upsertTransactions(tx, 'mainnet', page, '2025-06-15T00:00:00.000Z'));
    }
    return db;
  }

  it.skipIf(onPostgres)(
    'SQLite: another connection (another process) commits between two batches',
    async () => {
      const { store, location } = await storeWithTransactions(3_000);
      // A second connection, as another process would have: its writes wait for SQLite's write lock.
      const other = await openStore(storeLocation(location), { migrate: false });
      stores.push(() => other.close());
      let committed = 0;
      let pruning = true;
      const writer = (async () => {
        for (let i = 0; pruning; i++) {
          await startJobRun(other, 'writer', `w${i}`, '2025-06-15T00:00:00.000Z');
          committed++;
          await new Promise<void>((r) => setImmediate(r));
        }
      })();
      const seenAtBatch: number[] = [];
      const removed = await pruneTransactions(store, 1_000 + 3_000, {
        batchSize: 100,
        onBatch: () => seenAtBatch.push(committed),
      });
      pruning = false;
      await writer;
      expect(removed).toBe(3_000);
      // The writer's count moved while the batches went on: it committed between them.
      expect(seenAtBatch.at(-1)!).toBeGreaterThan(seenAtBatch[0]!);
    },
  );

  it.runIf(onPostgres)(
    'PostgreSQL: a row another transaction holds is skipped, not waited for, and pruned by the next run',
    async () => {
      const { store } = await storeWithTransactions(1_000);
      // Another writer's transaction holds one of the rows to prune (a page being upserted).
      let release!: () => void;
      const held = new Promise<void>((r) => {
        release = r;
      });
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => {
        locked = r;
      });
      const holder = store.transaction(async (tx) => {
        await tx.get("SELECT 1 FROM transactions WHERE tx_hash = '0x7' FOR UPDATE");
        locked();
        await held;
      });
      await isLocked;
      const first = await pruneTransactions(store, 1_000 + 1_000, { batchSize: 100 });
      expect(first).toBe(999);
      release();
      await holder;
      expect(await pruneTransactions(store, 1_000 + 1_000, { batchSize: 100 })).toBe(1);
    },
  );
});
