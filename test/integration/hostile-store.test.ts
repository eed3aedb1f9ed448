/**
 * Every reader survives whatever is stored (issue 22): a database seeded with the values a past
 * version or a hostile upstream left (times no date holds, odd denominations, sums past int64, text
 * that is no number, escape sequences in keys and names, a cursor with no usable time), then each
 * reader in turn over it, on both stores: `status`, `status --json`, `plan`, every `report rewards`
 * format and its summary, and every metrics collector.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs as allJobs } from '../../jobs/index.js';
import { demoAddress, demoCb58, demoNodeId } from '../../src/commands/demo-config.js';
import type { Config } from '../../src/config/index.js';
import { createMetrics } from '../../src/metrics/index.js';
import { buildRewardsReport, describeInvalid, type RewardsReport } from '../../src/report/rewards.js';
import { rewardsFormats } from '../../src/report/rewards-formats.js';
import { formatSummaryCsv, formatSummaryTable, summarizeRewards } from '../../src/report/rewards-summary.js';
import { collectStatus, formatStatus } from '../../src/report/status.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { recordFindings, type Store } from '../../src/store/index.js';
import { runCli } from '../support/cli.js';
import { configOf, T0 } from '../support/collector.js';
import { captureLog } from '../support/log.js';
import { onPostgres, type TestStore, testStore } from '../support/store.js';

let db: TestStore;
let config: Config;
let configPath: string;
const NODE = demoNodeId('hostile-node');
const ADDRESS = demoAddress('hostile-address');
const AT = new Date(T0 - 86_400_000).toISOString();
// biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

async function reward(
  store: Store,
  i: number,
  fields: { amount?: string; denomination?: number; end?: number },
) {
  const utxo = demoCb58(`hostile-${i}`);
  await store.run(
    `INSERT INTO rewards (network, utxo_id, tx_hash, reward_tx_hash, output_index, node_id, reward_type, amount_staked,
       start_timestamp, end_timestamp, asset_id, asset_name, asset_symbol, asset_denomination, asset_type, amount,
       addresses, first_seen_at, last_seen_at)
     VALUES ('mainnet', ?, ?, ?, 0, ?, 'VALIDATOR', '2000000000000', ?, ?, ?, 'Avalanche', 'AVAX', ?, 'secp256k1', ?, ?, ?, ?)`,
    [
      utxo,
      demoCb58('tx'),
      demoCb58('reward-tx'),
      NODE,
      (fields.end ?? 1_750_000_000) - 1_209_600,
      fields.end ?? 1_750_000_000,
      demoCb58('asset'),
      fields.denomination ?? 9,
      fields.amount ?? '5001000',
      JSON.stringify([ADDRESS]),
      AT,
      AT,
    ],
  );
  await store.run("INSERT INTO reward_addresses (network, utxo_id, address) VALUES ('mainnet', ?, ?)", [
    utxo,
    ADDRESS,
  ]);
  await store.run(
    "INSERT INTO reward_prices (network, utxo_id, currency, value, fetched_at) VALUES ('mainnet', ?, 'usd', '12.5', ?)",
    [utxo, AT],
  );
}

async function seed(store: Store): Promise<void> {
  const tx = (hash: string, blockTimestamp: number) =>
    store.run(
      `INSERT INTO transactions (chain_id, tx_hash, network, block_number, block_timestamp, block_hash, block_index,
         tx_status, tx_type, gas_limit, gas_used, gas_price, nonce, value, from_address, to_address, first_seen_at, last_seen_at)
       VALUES ('43114', ?, 'mainnet', '1', ?, ?, 0, '1', 0, '1', '1', '1', '1', ?, '0x1', NULL, ?, ?)`,
      [hash, blockTimestamp, `0x${'b'.repeat(64)}`, '9'.repeat(78), AT, AT],
    );
  await tx(`0x${'1'.repeat(64)}`, -1e15);
  await tx(`0x${'2'.repeat(64)}`, 1e14);
  await tx(`0x${'3'.repeat(64)}`, 1_750_000_000);
  // SQLite's writer keeps this summary (PostgreSQL's triggers did already): as it would have.
  await store.run(
    `INSERT INTO transaction_summaries (network, chain_id, transactions, newest_block_timestamp) VALUES ('mainnet', '43114', 3, ?)
     ON CONFLICT (network, chain_id) DO UPDATE SET newest_block_timestamp = excluded.newest_block_timestamp`,
    [1e14],
  );
  // Rewards a report can use, and ones it cannot (PostgreSQL's integer column holds no 1.5 nor 1e300).
  await reward(store, 0, {});
  await reward(store, 1, { amount: '99999999999999999999999' });
  await reward(store, 2, { amount: '99999999999999999999999' });
  await reward(store, 3, { denomination: -3 });
  await reward(store, 4, { denomination: onPostgres ? 400 : 1.5 });
  if (!onPostgres) {
    await reward(store, 5, { denomination: 1e300 });
    await reward(store, 6, { amount: '12.5abc' });
  }
  await reward(store, 7, { end: 1e14 });
  await store.run(
    `INSERT INTO supply_snapshots (last_updated, circulating_supply, total_supply, total_p_burned, total_c_burned,
       total_x_burned, total_staked, total_locked, total_rewards, genesis_unlock, l1_validator_fees, fetched_at)
     VALUES ('2025-06-14T00:00:00.000Z', 'NaN', '1', '1', '1', '1', '1', '1', '1', '1', '1', ?)`,
    [AT],
  );
  await store.run(
    `INSERT INTO usage_metrics (source, scope, time_interval, group_by, bucket_timestamp, group_value, aggregate_duration,
       total_requests, api_credits_used, requests_per_second, success_rate_percent, median_response_time_msecs,
       invalid_requests, api_credits_wasted, fetched_at)
     VALUES ('dataApi', 'all', 'hourly', 'requestPath', ?, ?, '1h', 1e308, -5, 0, 1000, -1, 0, 0, ?)`,
    [1e14, '\u001b]0;owned\u0007/v1/x', AT],
  );
  // A rewards cursor whose backfill holds no usable time.
  await store.run("INSERT INTO sync_state (job, scope, cursor, updated_at) VALUES ('rewards', ?, ?, ?)", [
    `addresses:${ADDRESS}`,
    JSON.stringify({
      pending: { pageToken: 'x' },
      backfill: { pages: 1, items: 5, oldest: { ts: 'soon', id: 'x' } },
    }),
    AT,
  ]);
  await store.transaction((tx) =>
    recordFindings(
      tx,
      {
        endpoint: 'transactions',
        rejected: [
          {
            raw: { '\u001b[2J': 'x'.repeat(40_000) },
            reason: 'schema',
            fields: ['\u001b[2Jfield'],
            problems: '\u001b]0;owned\u0007: bad',
            key: '43114:\u001b[31mred',
          },
        ],
        drift: [{ kind: 'field', name: 'transactions[].\u001b[2Jx', count: 1 }],
      },
      { job: 'transactions', scope: 'mainnet/all', context: {}, at: AT },
    ),
  );
}

beforeAll(async () => {
  db = await testStore();
  await seed(db.store);
  const file = {
    jobs: {
      supply: { schedule: '*/5 * * * *' },
      transactions: { schedule: '* * * * *', networks: ['mainnet'] },
      rewards: {
        schedule: '0 * * * *',
        network: 'mainnet',
        addresses: [ADDRESS],
        nodeIds: [NODE],
        currency: 'usd',
      },
      usageMetrics: {
        schedule: '0 * * * *',
        sources: [{ source: 'dataApi', timeInterval: 'hourly', groupBy: 'requestPath' }],
      },
      signatures: { schedule: '0 * * * *', network: 'mainnet', txHashes: [demoCb58('sig')] },
    },
  };
  config = configOf(file);
  configPath = join(db.dir, 'hostile.json');
  writeFileSync(configPath, JSON.stringify(file));
}, 60_000);

afterAll(async () => {
  await db?.cleanup();
});

const cliEnv = () => ({
  ...db.env,
  GLACIER_CONFIG: configPath,
  REDIS_URL: 'redis://127.0.0.1:1',
  LOG_LEVEL: 'warn',
});

describe('every reader over a database holding hostile values', () => {
  it('status: times no date holds shown as invalid, stored text escaped', async () => {
    const text = formatStatus(await collectStatus(allJobs, config, db.store, new Date(T0)));
    expect(text).toMatch(/transactions\s+3\s.*invalid: -1000000000000000/);
    expect(text).toContain('records set aside: 1');
    expect(text).toContain('\\x1b[31mred');
    expect(text).toContain('upstream drift');
    expect(text).toContain('rewards backfill (mainnet, usd)');
    expect(text).not.toMatch(CONTROL);
  });

  it('status --json, as a command', async () => {
    const r = await runCli(['status', '--json'], cliEnv());
    expect(r.code, r.stderr).toBe(0);
    const status = JSON.parse(r.stdout);
    expect(status.database.tables.find((t: { table: string }) => t.table === 'transactions').oldestKept).toBe(
      'invalid: -1000000000000000',
    );
    expect(status.recordsSetAside[0].newest.naturalKey).toBe('43114:\u001b[31mred');
    expect(status.recordsSetAside[0].newest.rawCut).toBe(1);
  });

  it('plan, as a command', async () => {
    const r = await runCli(['plan'], cliEnv());
    expect(r.code, r.stderr).toBe(0);
  });

  it('report rewards: every format and the summary report the good rewards, the others named apart', async () => {
    const report: RewardsReport = await buildRewardsReport(db.store, config.jobs.rewards, {
      from: '2025-01-01',
      to: '2025-12-31',
    });
    expect(report.rows.map((r) => r.amount).sort()).toEqual(
      ['0.005001000', '99999999999999.999999999', '99999999999999.999999999'].sort(),
    );
    expect(report.invalid.map((r) => r.reason).sort()).toEqual(
      (onPostgres
        ? ['denomination -3 is not an integer 0..30', 'denomination 400 is not an integer 0..30']
        : [
            'amount 12.5abc is not a decimal integer of at most 78 digits',
            'denomination -3 is not an integer 0..30',
            'denomination 1.5 is not an integer 0..30',
            'denomination 1e+300 is not an integer 0..30',
          ]
      ).sort(),
    );
    for (const [name, format] of Object.entries(rewardsFormats)) {
      expect(() => format.write(report), name).not.toThrow();
    }
    const lines = summarizeRewards(report, 'year');
    expect(formatSummaryCsv(report, lines)).toContain('2025');
    expect(formatSummaryTable(report, lines)).toContain('total');
    expect(describeInvalid(report)).toMatch(/^warning: \d reward\(s\) of the range left out/);
  });

  it('report rewards, as a command: the warning on stderr, the rows on stdout', async () => {
    const r = await runCli(
      ['report', 'rewards', '--from', '2025-01-01', '--to', '2025-12-31', '--format', 'csv'],
      cliEnv(),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(4);
    expect(r.stderr).toContain('left out of this report and its totals');
  });

  it('every metrics collector reads its data, no scrape failing on a stored value', async () => {
    const { log, text } = captureLog('info');
    const metrics = createMetrics({
      store: db.store,
      config,
      log,
      clock: createManualClock(T0),
      jobs: allJobs,
    });
    const body = (await metrics.expose()).body;
    for (const collector of [
      'supply',
      'rewards',
      'transactions',
      'usage',
      'signatures',
      'exports',
      'jobs',
      'records',
    ]) {
      expect(body, collector).toContain(`glacier_scrape_collector_success{collector="${collector}"} 1`);
    }
    // A figure stored as no number has no series; the others do.
    expect(body).not.toMatch(/^glacier_supply_circulating_avax /m);
    expect(body).toMatch(/^glacier_supply_total_avax 1$/m);
    expect(body).not.toMatch(CONTROL);
    expect(text()).not.toContain('"level":50');
    // The rewards of the node: the two huge ones summed past int64 (a float on SQLite), never clamped.
    const node = body
      .split('\n')
      .find((l) => l.startsWith('glacier_rewards_received_avax{') && l.includes('kind="node_id"'))!;
    expect(Number(node.split(' ').at(-1))).toBeGreaterThan(1.9e14);
  });
});
