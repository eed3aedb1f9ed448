/**
 * Bytes a row takes in each table of src/store/row-sizes.ts, measured: the jobs themselves (`runJob`,
 * as `run <job>` runs them) write about `rows` rows of each table from the simulator's data (real
 * hash, address and amount lengths) into `store`, a fresh migrated database; the store's own
 * `Sql.tableSizes` (SQLite `dbstat`, PostgreSQL `pg_total_relation_size`) gives each table's bytes
 * with its indexes before and after. Shared by test/integration/row-sizes.test.ts, which keeps the
 * constants true, and bench/figures/storage.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'undici';
import { parse } from 'yaml';
import { jobs } from '../../jobs/index.js';
import { demoAddress } from '../../src/commands/demo-config.js';
import { type Config, loadConfig } from '../../src/config/index.js';
import { type Continuation, findJob, type RunDeps, runJob } from '../../src/kernel/index.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { createLogger } from '../../src/runtime/logger.js';
import { startSimulator } from '../../src/simulator/index.js';
import { countRowsPerTable, SIZED_TABLES, type SizedTable, type Store } from '../../src/store/index.js';
import { createDataApiClient } from '../../src/upstream/index.js';
import { tempDir } from './tmp.js';

/**
 * The retention docs/operations.md ("Sizing a disk") and `npm run bench -- storage` size the example
 * config with: the two tables that grow with the chain's traffic and the runs (its default); supply
 * and usage metrics, a few hundred rows a day, are kept.
 */
export const SIZING_RETENTION = { transactions: '7d', exportedTransactions: '30d', jobRuns: '90d' } as const;

/** glacier-collector.example.yaml as `plan -c` reads it, with `retention` added. */
export function exampleConfig(retention: Record<string, string> = {}): Config {
  const file = parse(readFileSync(new URL('../../glacier-collector.example.yaml', import.meta.url), 'utf8'));
  return loadConfig({ env: {}, cwd: '/nonexistent', file: { ...file, retention } });
}

export interface MeasuredRows {
  table: SizedTable;
  rows: number;
  /** What the rows added to the table and its indexes (`rewards`: with reward_addresses and reward_prices). */
  bytes: number;
  bytesPerRow: number;
}

const T0 = Date.UTC(2025, 5, 15, 12, 34, 56);
const DAY_MS = 86_400_000;
const API_KEY = 'glacier-row-sizes';
/** Rewards the simulator pays an address over its two years of history (a period ends every 2 to 9 days). */
const REWARDS_PER_ADDRESS = 130;
/** Export rows the simulator writes per exported day and definition (its default). */
const EXPORT_ROWS_PER_DAY = 500;
/** The group values of the usage sources below (the simulator's): a row each per hourly bucket. */
const USAGE_GROUP_VALUES = 5 + 7 + 4;
/** The simulator serves at most 2,000 buckets a request (83 days of hours). */
const USAGE_MAX_DAYS = 80;
/** `VACUUM job_runs` on PostgreSQL over the supply runs, as autovacuum would. */
const VACUUMS = 10;

/** A sized table's bytes: `rewards` with the tables that hold a reward's addresses and prices. */
const parts: Partial<Record<SizedTable, readonly string[]>> = {
  rewards: ['rewards', 'reward_addresses', 'reward_prices'],
};
const bytesOf = (sizes: Map<string, number>, table: SizedTable) =>
  (parts[table] ?? [table]).reduce((n, t) => n + (sizes.get(t) ?? Number.NaN), 0);

function configFor(rows: number, exportsDirectory: string): Config {
  const days = Math.ceil(rows / (2 * EXPORT_ROWS_PER_DAY));
  const lastDate = new Date(T0 - 2 * DAY_MS).toISOString().slice(0, 10);
  const firstDate = new Date(T0 - (days + 1) * DAY_MS).toISOString().slice(0, 10);
  const window = { firstDate, lastDate };
  const lookback = `${Math.min(USAGE_MAX_DAYS, Math.ceil(rows / (24 * USAGE_GROUP_VALUES)))}d`;
  return loadConfig({
    env: {},
    cwd: '/nonexistent',
    file: {
      jobs: {
        // A run every 5 minutes, as the example config's: a new figure each time.
        supply: { schedule: '*/5 * * * *' },
        transactions: { schedule: '* * * * *', pageSize: 100, maxPages: Math.ceil(rows / 100) },
        rewards: {
          schedule: '0 * * * *',
          addresses: Array.from({ length: Math.ceil(rows / REWARDS_PER_ADDRESS) }, (_, i) =>
            demoAddress(`row-sizes-${i}`),
          ),
          maxPages: 10_000,
        },
        // The example config's three sources, hourly: 16 group values, a row each per hour.
        usageMetrics: {
          schedule: '15 * * * *',
          sources: [
            { source: 'dataApi', groupBy: 'requestPath', lookback },
            { source: 'primaryNetworkRpc', network: 'mainnet', groupBy: 'rpcMethod', lookback },
            { source: 'subnetRpc', groupBy: 'responseCode', lookback },
          ].map((s) => ({ ...s, timeInterval: 'hourly' })),
        },
        // The example config's two kinds of export, half the rows each.
        exports: {
          schedule: '0 2 * * *',
          directory: exportsDirectory,
          definitions: [
            {
              name: 'treasury-c-chain',
              type: 'TRANSACTION_EXPORT_EVM',
              addresses: ['0x71C7656EC7ab88b098defB751B7401B5f6d8976F'],
              includeChains: ['43114'],
              window,
            },
            {
              name: 'staking-primary-network',
              type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING',
              addresses: [demoAddress('row-sizes-staking')],
              includeChains: ['p-chain'],
              window,
            },
          ],
        },
      },
    },
  });
}

export async function measureRowBytes(store: Store, o: { rows: number }): Promise<MeasuredRows[]> {
  const clock = createManualClock(T0);
  const sim = await startSimulator({
    port: 0,
    seed: 16,
    clock,
    initialTransactions: o.rows + 1_000,
    exports: { runningMs: 0 },
    apiKeys: { [API_KEY]: { tier: 'Pro', computeUnitsPerMinute: 1e12 } },
  });
  const files = tempDir('glacier-row-sizes-');
  const dispatcher = new Agent({ keepAliveTimeout: 1_000 });
  const deps: RunDeps = {
    client: createDataApiClient({ baseUrl: sim.url, apiKey: API_KEY, clock, dispatcher }),
    store,
    log: createLogger({ level: 'silent', pretty: false }),
    clock,
    secrets: [API_KEY],
  };
  const config = configFor(o.rows, join(files.dir, 'exports'));
  /** A run as the queue makes it (its slot as scope), then its continuations, their delays skipped. */
  const run = async (name: string) => {
    const queue: Continuation[] = [{ id: name, job: name, args: {}, delayMs: 0 }];
    for (let n = 0; queue.length > 0; n++) {
      const next = queue.shift()!;
      if (n > 1_000) throw new Error(`${name}: continuations without end`);
      const summary = await runJob(findJob(jobs, next.job)!, deps, {
        config,
        args: next.args,
        scope: `slot ${new Date(clock.now()).toISOString()}`,
      });
      if (summary.status !== 'succeeded') throw new Error(`${next.job}: ${summary.errorMessage}`);
      queue.push(...summary.continuations);
    }
  };
  try {
    const before = await store.tableSizes();
    await run('transactions');
    await run('rewards');
    await run('usage-metrics');
    await run('exports');
    // A supply snapshot and a job_runs row per run; autovacuum's part on PostgreSQL (a run's row is
    // written at its start and rewritten at its end) is a VACUUM every few runs.
    for (let i = 0; i < o.rows; i++) {
      clock.advance(5 * 60_000);
      await run('supply');
      if (store.dialect === 'postgres' && i % Math.ceil(o.rows / VACUUMS) === 0) {
        await store.exec('VACUUM job_runs');
      }
    }
    const after = await store.tableSizes();
    const counts = new Map((await countRowsPerTable(store)).map((r) => [r.table, r.rows]));
    return SIZED_TABLES.map((table) => {
      const rows = counts.get(table) ?? 0;
      const bytes = bytesOf(after, table) - bytesOf(before, table);
      return { table, rows, bytes, bytesPerRow: rows > 0 ? bytes / rows : Number.NaN };
    });
  } finally {
    await dispatcher.destroy();
    await sim.close();
    files.cleanup();
  }
}
