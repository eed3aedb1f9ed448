/**
 * Figure 8, SQL on the collected database: 200,000 transactions and 30,000 rewards (from the
 * simulator's data, written by the collector's own writers), then every documented example query and
 * the common ones, timed (median of many executions) against the same data with the indexes as they
 * were before this round (the baseline). Common queries: goal ≤ 10 ms each.
 */
import { copyFileSync } from 'node:fs';
import { demoAddress, demoNodeId } from '../../src/commands/demo-config.js';
import { storeLocation } from '../../src/config/index.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { startSimulator } from '../../src/simulator/index.js';
import { openStore, type Store, upsertRewards, upsertTransactions } from '../../src/store/index.js';
import type { HistoricalReward, Transaction } from '../../src/upstream/index.js';
import { commonQueries, documentedQueries } from '../../test/support/docs-sql.js';
import { type Figure, figure, median, scaled } from '../lib.js';
import { rawSqlite, scratch } from '../support.js';

const T0 = Date.UTC(2025, 5, 15, 12);

/** The indexes of the schema before this round (drizzle/0000), on a copy of the same data. */
const BEFORE = [
  'DROP INDEX transactions_chain_time_idx',
  'DROP INDEX IF EXISTS rewards_unpriced_idx', // since dropped from the schema (reward summaries)
  'DROP INDEX job_runs_unsucceeded_idx', // job_runs_status_idx until it became partial
  'DROP INDEX reward_addresses_address_idx',
  'CREATE INDEX reward_addresses_address_idx ON reward_addresses (address)',
  'DROP INDEX rewards_node_id_idx',
  'CREATE INDEX rewards_node_id_idx ON rewards (node_id)',
];

/** The query on the raw connection: the plan's cost, not the store's async seam. */
function timeQuery(store: Store, sql: string): number {
  const stmt = rawSqlite(store).prepare(sql);
  const times: number[] = [];
  const deadline = performance.now() + 2_000;
  for (let i = 0; i < 25 && (i < 3 || performance.now() < deadline); i++) {
    const t = performance.now();
    stmt.all();
    times.push(performance.now() - t);
  }
  return median(times);
}

export async function run(): Promise<Figure[]> {
  const dirs = scratch('sql');
  const clock = createManualClock(T0);
  const total = scaled(200_000, 1000);
  const sim = await startSimulator({ port: 0, seed: 9, clock, initialTransactions: total });
  const path = dirs.path('ours.db');
  const store = await openStore(storeLocation(path));
  const address = demoAddress('sql-holder-0');
  const node = demoNodeId('sql-node-0');
  try {
    const seenAt = new Date(T0).toISOString();
    const txs = sim.truth.transactions({ network: 'mainnet' }) as unknown as Transaction[];
    for (let i = 0; i < txs.length; i += 1000) {
      await store.transaction((tx) => upsertTransactions(tx, 'mainnet', txs.slice(i, i + 1000), seenAt));
    }
    const wanted = scaled(30_000, 300);
    let rewards = 0;
    for (let i = 0; rewards < wanted; i++) {
      const items = sim.truth.rewards('mainnet', {
        addresses: [demoAddress(`sql-holder-${i}`)],
        nodeIds: i % 10 === 0 ? [demoNodeId(`sql-node-${i / 10}`)] : [],
      }) as unknown as HistoricalReward[];
      await store.transaction((tx) => upsertRewards(tx, 'mainnet', items, seenAt));
      rewards += items.length;
    }
    // A year of runs of a job every minute, for the job-health queries.
    const runs = scaled(500_000, 1000);
    const db = rawSqlite(store);
    const insertRun = db.prepare(
      'INSERT INTO job_runs (job, scope, started_at, finished_at, status, rows_written) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const jobs = ['transactions', 'supply', 'rewards', 'usage-metrics', 'signatures', 'exports'];
    db.transaction(() => {
      for (let i = 0; i < runs; i++) {
        const at = new Date(T0 - (runs - i) * 60_000).toISOString();
        insertRun.run(jobs[i % jobs.length], 'all', at, at, i % 50 === 0 ? 'failed' : 'succeeded', i % 100);
      }
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
    await store.close();
    const beforePath = dirs.path('before.db');
    copyFileSync(path, beforePath);
    const before = await openStore(storeLocation(beforePath), { migrate: false });
    for (const stmt of BEFORE) await before.exec(stmt);
    const ours = await openStore(storeLocation(path), { migrate: false });

    const withOurData = (sql: string) =>
      sql
        .replace(/\bavax1[02-9ac-hj-np-z]{38}\b/g, address)
        .replace(/\bNodeID-[1-9A-HJ-NP-Za-km-z]+\b/g, node);
    const queries: [string, string, boolean][] = [
      ...Object.entries(commonQueries).map(([name, sql]): [string, string, boolean] => [name, sql, true]),
      ...documentedQueries().map((q): [string, string, boolean] => [q.name, q.sql, false]),
    ];
    const figures: Figure[] = [];
    for (const [name, sql, isCommon] of queries) {
      const text = withOurData(sql);
      const value = timeQuery(ours, text);
      const baseline = timeQuery(before, text);
      figures.push(
        figure({
          id: `sql.${isCommon ? 'common' : 'documented'}.${name
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, '-')
            .replace(/^-|-$/g, '')}`,
          title: `${isCommon ? 'common' : 'documented'} query: ${name}`,
          unit: 'ms',
          value,
          baseline,
          baselineLabel: 'the same query, indexes as before this round',
          goal: isCommon ? { on: 'value', max: 10 } : undefined,
        }),
      );
    }
    await before.close();
    await ours.close();
    figures[0] = { ...figures[0]!, note: `${total} transactions, ${rewards} rewards, ${runs} job runs` };
    return figures;
  } finally {
    await sim.close();
    dirs.cleanup();
  }
}
