import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { getTableColumns, getTableName, is } from 'drizzle-orm';
import { PgJsonb, PgTable } from 'drizzle-orm/pg-core';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maintenance } from '../../jobs/maintenance.js';
import { rewards } from '../../jobs/rewards.js';
import { signatures } from '../../jobs/signatures.js';
import { supply } from '../../jobs/supply.js';
import { transactions } from '../../jobs/transactions.js';
import { usageMetrics } from '../../jobs/usage-metrics.js';
import { validators } from '../../jobs/validators.js';
import { demoAddress, demoCb58, demoNodeId } from '../../src/commands/demo-config.js';
import { migrateStore } from '../../src/commands/migrate-store.js';
import { storeLocation } from '../../src/config/index.js';
import { runHandler } from '../../src/kernel/index.js';
import { hasAutoRenewed } from '../../src/simulator/data/auto-renewed.js';
import { type CopyStoreResult, copiedTables, copyStore } from '../../src/store/copy.js';
import {
  openStore,
  readExportSummaries,
  readJobSummaries,
  readLatestSupply,
  readLatestUsageBuckets,
  readRewardTotals,
  readTransactionSummaries,
  refreshExportSummaries,
  type Store,
  schemaTables,
  selectList,
  startJobRun,
} from '../../src/store/index.js';
import * as pgSchema from '../../src/store/schema.pg.js';
import { type Collector, evmExportPayload, retentionOnly, startCollector } from '../support/collector.js';
import { runExports } from '../support/exports.js';
import { schemaUrl, withPostgres } from '../support/store.js';
import { tempDir } from '../support/tmp.js';

/*
 * A store filled by the real jobs against the simulator, copied SQLite → PostgreSQL → SQLite. The
 * stores are chosen here, not by STORE: the test is the same in both projects of the matrix.
 */

const cleanups: (() => unknown)[] = [];
let c: Collector;
let source: Store;
let sourcePath: string;
let dir: string;

/** A PostgreSQL schema of this test's own (dropped after), as the matrix's tests name theirs. */
async function postgresSchema(): Promise<string> {
  const schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withPostgres((client) => client.query(`CREATE SCHEMA ${schema}`));
  cleanups.push(() => withPostgres((client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)));
  return schema;
}

async function open(location: string): Promise<Store> {
  const store = await openStore(storeLocation(location));
  cleanups.push(() => store.close());
  return store;
}

const rewardsPayload = {
  network: 'mainnet' as const,
  addresses: [demoAddress('validator-1'), demoAddress('delegator-1')],
  nodeIds: [demoNodeId('node-1')],
  currency: 'eur' as const,
  pageSize: 100,
  maxPages: 50,
};

const usagePayload = {
  sources: [
    {
      source: 'dataApi' as const,
      timeInterval: 'hourly' as const,
      groupBy: 'requestPath' as const,
      lookback: 2 * 86_400_000,
    },
    {
      source: 'subnetRpc' as const,
      chainIds: ['432204'],
      timeInterval: 'daily' as const,
      lookback: 7 * 86_400_000,
    },
  ],
};

/** The first of the simulator's node ids (labels v-0, v-1…) with an active validation. */
function activeNode(collector: Collector): string {
  for (let i = 0; i < 400; i++) {
    const id = demoNodeId(`v-${i}`);
    if (collector.sim.truth.validations('mainnet', id)?.some((v) => v.validationStatus === 'active'))
      return id;
  }
  throw new Error('no node with an active validation in 400 labels');
}

/** The first Fuji node id (labels cycles-0, cycles-1…) with auto-renewed validations (seed 7). */
function autoRenewedNode(): string {
  for (let i = 0; i < 400; i++) {
    const id = demoNodeId(`cycles-${i}`);
    if (hasAutoRenewed(7, 'testnet', id)) return id;
  }
  throw new Error('no auto-renewed node in 400 labels');
}

const validatorsPayload = (nodeId: string) => ({
  network: 'mainnet' as const,
  nodeIds: [nodeId],
  addresses: [],
  pageSize: 100,
  maxPages: 10,
  pendingRewards: true,
  pendingRewardsEvery: 0,
  observationRetention: 35 * 86_400_000,
});

beforeAll(async () => {
  // The export file has a column the collector does not know: exported_transactions.extra (jsonb) is copied too.
  c = await startCollector({
    sim: {
      exports: { runningMs: 0 },
      faults: {
        endpoints: { download: { plan: [{ kind: 'extraFields' }] } },
        // A hash the aggregator refuses: its outcome kept in signature_attempts, copied too.
        signatures: { [demoCb58('refused')]: [{ status: 400, message: 'no warp message' }] },
      },
    },
  });
  cleanups.push(() => c.close());
  const tmp = tempDir('glacier-copy-');
  cleanups.push(tmp.cleanup);
  dir = tmp.dir;
  sourcePath = join(dir, 'source.db');
  source = await open(sourcePath);
  const deps = { ...c.deps, store: source };
  const txPayload = {
    networks: ['mainnet' as const, 'fuji' as const],
    statuses: ['all' as const],
    pageSize: 100,
    maxPages: 3,
  };
  const runs = [
    await runHandler('supply', supply, {}, deps),
    await runHandler('transactions', transactions, txPayload, deps),
    await runHandler('rewards', rewards, rewardsPayload, deps),
    await runHandler('usage-metrics', usageMetrics, usagePayload, deps),
    await runHandler(
      'signatures',
      signatures,
      {
        network: 'mainnet',
        txHashes: [demoCb58('a'), demoCb58('b'), demoCb58('refused')],
        belowQuorumPauses: [],
      },
      deps,
    ),
    await runExports(deps, evmExportPayload(join(dir, 'exports'))),
    // A node with an active validation: its validations, an observation, its pending reward, its summary.
    await runHandler('validators', validators, validatorsPayload(activeNode(c)), deps),
    // A Fuji node with auto-renewed validations: its settled cycles (income's small edit, issue 33).
    await runHandler(
      'rewards',
      rewards,
      { ...rewardsPayload, network: 'fuji', addresses: [], nodeIds: [autoRenewedNode()] },
      deps,
    ),
  ];
  expect(runs.map((r) => r.status)).toEqual(runs.map(() => 'succeeded'));
  // A day later: more transactions and usage buckets, and the prices of the rewards now older than 24 h.
  c.clock.advance(26 * 3_600_000);
  // A record set aside and drift seen: rejected_records (its context jsonb) and upstream_drift are copied too.
  c.sim.setFaults({ endpoints: { transactions: { plan: [{ kind: 'badRecord' }, { kind: 'drift' }] } } });
  await runHandler('transactions', transactions, txPayload, deps);
  await runHandler('rewards', rewards, rewardsPayload, deps);
  await runHandler('usage-metrics', usageMetrics, usagePayload, deps);
  c.sim.setFaults({ endpoints: { supply: { plan: [{ status: 401 }] } } });
  expect((await runHandler('supply', supply, {}, deps)).status).toBe('failed');
  // A maintenance run: its job_runs row holds rows_removed (JSON), the other runs NULL there.
  const pruned = await runHandler(
    'maintenance',
    maintenance,
    { retention: retentionOnly({ usageMetrics: 86_400_000 }), batchSize: 100 },
    deps,
  );
  expect(pruned.rowsRemoved.usage_metrics).toBeGreaterThan(0);
  // As the service does after an exports run (src/metrics): runHandler alone leaves them to it.
  await refreshExportSummaries(source);
}, 60_000);

afterAll(async () => {
  // Every one, in reverse, even when one fails.
  let failure: unknown;
  while (cleanups.length) {
    try {
      await cleanups.pop()!();
    } catch (err) {
      failure ??= err;
    }
  }
  if (failure) throw failure;
});

/** The JSON columns (jsonb in PostgreSQL: read back as equivalent JSON, not the same text), per table. */
const jsonColumns = new Map<string, string[]>(
  (Object.values(pgSchema) as unknown[])
    .filter((t): t is PgTable => is(t, PgTable))
    .flatMap((t) => {
      const props = Object.entries(getTableColumns(t))
        .filter(([, column]) => is(column, PgJsonb))
        .map(([prop]) => prop);
      return props.length ? [[getTableName(t), props] as [string, string[]]] : [];
    }),
);

/** Every row of a table, JSON parsed, in one order whatever the database's collation. */
async function rowsOf(store: Store, table: SQLiteTable): Promise<unknown[]> {
  const name = getTableName(table);
  const rows = await store.all<Record<string, unknown>>(`SELECT ${selectList(table)} FROM "${name}"`);
  const json = jsonColumns.get(name) ?? [];
  return rows
    .map((row) => {
      const out: Record<string, unknown> = { ...row };
      for (const prop of json) if (typeof out[prop] === 'string') out[prop] = JSON.parse(out[prop] as string);
      return out;
    })
    .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
}

/** Rows per table; store_meta is each store's own (its id, what it was copied from), never copied. */
async function counts(store: Store): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of schemaTables()) {
    const name = getTableName(table);
    if (name === 'store_meta') continue;
    out[name] = Number((await store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM "${name}"`))!.n);
  }
  return out;
}

const sorted = <T>(rows: T[]) => [...rows].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

/** What the metrics and reports read from the summaries; reward values apart (float sums, whose order differs). */
async function summaries(store: Store) {
  const subjects = await store.all<{ kind: 'address' | 'node_id'; subject: string }>(
    'SELECT DISTINCT subject_kind AS kind, subject FROM reward_summaries',
  );
  const totals = sorted(await readRewardTotals(store, 'mainnet', 'eur', subjects));
  return {
    rewards: totals.map(({ value: _, ...rest }) => rest),
    values: totals.map((t) => t.value),
    transactions: sorted(await readTransactionSummaries(store)),
    jobs: await readJobSummaries(store),
    exports: await readExportSummaries(store),
    usage: sorted(await readLatestUsageBuckets(store)),
    supply: await readLatestSupply(store),
  };
}

async function expectSameData(a: Store, b: Store): Promise<void> {
  expect(await counts(b)).toEqual(await counts(a));
  for (const table of copiedTables())
    expect(await rowsOf(b, table), getTableName(table)).toEqual(await rowsOf(a, table));
  const [x, y] = [await summaries(a), await summaries(b)];
  expect({ ...y, values: undefined }).toEqual({ ...x, values: undefined });
  expect(y.values).toHaveLength(x.values.length);
  y.values.forEach((v, i) => {
    expect(Math.abs(v - x.values[i]!)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(x.values[i]!)));
  });
}

const insertedOf = (result: CopyStoreResult) =>
  Object.fromEntries(result.tables.map((t) => [t.table, t.inserted]));

describe('copyStore', () => {
  it('copies a SQLite store into PostgreSQL and back: same rows, same summaries, and a rerun writes nothing', async () => {
    const sourceCounts = await counts(source);
    // Every data table holds rows, so that every one is really copied.
    for (const table of copiedTables())
      expect(sourceCounts[getTableName(table)], getTableName(table)).toBeGreaterThan(0);
    expect(sourceCounts.rewards).toBeGreaterThan(20);
    expect(sourceCounts.reward_prices).toBeGreaterThan(0);
    // A run with rows_removed and runs without: both are copied as they are (compared parsed: jsonb).
    expect(
      await source.all<{ job: string }>('SELECT job FROM job_runs WHERE rows_removed IS NOT NULL'),
    ).toEqual([{ job: 'maintenance' }]);

    const pg = await open(schemaUrl(await postgresSchema()));
    // Interrupted after two batches of rewards: what it committed stays, with its summaries.
    const interrupted = copyStore(source, pg, {
      batchSize: 10,
      onProgress: (p) => {
        if (p.table === 'rewards' && p.read === 20 && !p.done) throw new Error('interrupted');
      },
    });
    await expect(interrupted).rejects.toThrow('interrupted');
    expect(Number((await pg.get<{ n: number }>('SELECT COUNT(*) AS n FROM rewards'))!.n)).toBe(20);

    const resumed = await copyStore(source, pg, { batchSize: 50 });
    for (const t of resumed.tables) expect(t.read, t.table).toBe(sourceCounts[t.table]);
    expect(insertedOf(resumed).rewards).toBe(sourceCounts.rewards! - 20);
    expect(resumed.summaries.map((s) => `${s.table}:${s.by}`).sort()).toEqual([
      'export_file_counts:rebuilt',
      'export_status_counts:rebuilt',
      'export_summaries:rebuilt',
      'job_summaries:rebuilt',
      'reward_summaries:triggers',
      'reward_value_summaries:triggers',
      'transaction_summaries:rebuilt',
      'usage_summaries:triggers',
    ]);
    await expectSameData(source, pg);

    // Again: every row is there, nothing is inserted, no trigger fires, the summaries stay exactly as they were.
    const before = await summaries(pg);
    const again = await copyStore(source, pg);
    expect(Object.values(insertedOf(again)).every((n) => n === 0)).toBe(true);
    expect(await summaries(pg)).toEqual(before);
    expect(await counts(pg)).toEqual(sourceCounts);

    // Back into a new SQLite file, twice.
    const back = await open(join(dir, 'back.db'));
    const first = await copyStore(pg, back, { batchSize: 100 });
    expect(insertedOf(first)).toEqual(
      Object.fromEntries(first.tables.map((t) => [t.table, sourceCounts[t.table]])),
    );
    await expectSameData(source, back);
    const backBefore = await summaries(back);
    const backAgain = await copyStore(pg, back);
    expect(Object.values(insertedOf(backAgain)).every((n) => n === 0)).toBe(true);
    expect(await summaries(back)).toEqual(backBefore);

    // The ids of job_runs came as they were; new runs number on after them, on both.
    const maxId = Number((await source.get<{ id: number }>('SELECT max(id) AS id FROM job_runs'))!.id);
    expect(await startJobRun(pg, 'probe', 'all', new Date(c.clock.now()).toISOString())).toBe(maxId + 1);
    expect(await startJobRun(back, 'probe', 'all', new Date(c.clock.now()).toISOString())).toBe(maxId + 1);
  }, 60_000);
});

describe('migrate-store command', () => {
  it('prints both stores (password masked), a line per table and the totals', async () => {
    const schema = await postgresSchema();
    const url = schemaUrl(schema).replace('postgres@', 'postgres:s3cret@');
    const lines: string[] = [];
    await migrateStore({ from: sourcePath, to: url, batchSize: '500' }, { line: (text) => lines.push(text) });
    const out = lines.join('\n');
    expect(out).not.toContain('s3cret');
    expect(out).toContain(`copying ${sourcePath} (source) into postgres://postgres:***@127.0.0.1:5432/test`);
    const sourceCounts = await counts(source);
    for (const table of copiedTables()) {
      const name = getTableName(table);
      const n = sourceCounts[name];
      expect(lines).toContain(`${name}: ${n} rows read, ${n} inserted`);
      expect(out).toMatch(new RegExp(`^${name} +${n} +${n}$`, 'm'));
    }
    expect(out).toMatch(/^total +\d+ +\d+$/m);
    expect(out).toContain("summaries counted by the target's triggers: reward_summaries");
    expect(process.exitCode ?? 0).toBe(0);
  });

  it('names the side that failed', async () => {
    const unreachable = 'postgres://postgres:s3cret@127.0.0.1:1/test';
    const run = migrateStore({ from: sourcePath, to: unreachable }, { line: () => undefined });
    await expect(run).rejects.toThrow(/^target postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/test: /);
    await expect(run).rejects.not.toThrow(/s3cret/);
    const emptySchema = schemaUrl(await postgresSchema());
    await expect(
      migrateStore({ from: emptySchema, to: join(dir, 'never.db') }, { line: () => undefined }),
    ).rejects.toThrow(/^source postgres:.*: no glacier-collector tables there/);
  });
});
