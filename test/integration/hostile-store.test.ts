/**
 * Every reader survives whatever is stored (issue 22): a database seeded with the values a past
 * version or a hostile upstream left (times no date holds, odd denominations, sums past int64, text
 * that is no number, escape sequences in keys and names, a cursor with no usable time), then each
 * reader in turn over it, on both stores: `status`, `status --json`, `plan`, every `report rewards`
 * format and its summary, every `report validations` format, and every metrics collector. The
 * validator tables (validations, observations, pending rewards, summaries), cycles and signature
 * attempts hold numbers out of range or no number at all, and text full of escapes, 5,000 to 20,000
 * characters long.
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
import {
  buildValidationsReport,
  formatValidationsCsv,
  formatValidationsJson,
  formatValidationsTable,
} from '../../src/report/validations.js';
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
const NODE_2 = demoNodeId('hostile-node-2');
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

/** One row of `table` from its column → value pairs (the hostile rows below: one shape, many tables). */
function insert(store: Store, table: string, row: Record<string, string | number | null>) {
  const columns = Object.keys(row);
  return store.run(
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
    Object.values(row),
  );
}

const ESCAPES = '\u001b]0;owned\u0007\u001b[2J\u009b31m';
/** Text no number is: where the store allows it (PostgreSQL's numeric takes NaN, not words). */
const NOT_A_NUMBER = onPostgres ? 'NaN' : '12.5abc';

/** Validations, observations, pending rewards, summaries, cycles and signature attempts no reader expects. */
async function seedValidators(store: Store): Promise<void> {
  const validation = (txHash: string, fields: Record<string, string | number | null>) =>
    insert(store, 'validations', {
      network: 'mainnet',
      node_id: NODE,
      tx_hash: txHash,
      subnet_id: '11111111111111111111111111111111LpoYY',
      primary_network: 1,
      status: 'completed',
      staking_type: 'fixed',
      auto_renew: null,
      auto_renew_state: null,
      start_timestamp: 1_740_000_000,
      end_timestamp: 1_741_209_600,
      amount_staked: '2000000000000',
      first_seen_at: AT,
      last_seen_at: AT,
      ...fields,
    });
  // A period no date holds, a stake of 78 digits, an uptime past any percentage, a reward no number.
  await validation(demoCb58('v-huge'), {
    end_timestamp: 1e14,
    amount_staked: '9'.repeat(78),
    uptime_performance: 1e308,
    validation_reward: NOT_A_NUMBER,
    delegation_reward: '-5',
    potential_validation_reward: '9'.repeat(78),
  });
  // Ends before it starts; a status and a hash full of escapes, 10,000 characters long.
  await validation(`${ESCAPES}${'t'.repeat(10_000)}`, {
    status: `${ESCAPES}ended`,
    start_timestamp: 1_741_209_600,
    end_timestamp: 1_740_000_000,
    amount_staked: '0',
    validation_reward: '0',
    uptime_performance: -1,
  });
  // An active auto-renewing one whose autoRenew says nothing a reader can use.
  await validation(demoCb58('v-auto'), {
    status: 'active',
    staking_type: 'autoRenewed',
    auto_renew: JSON.stringify({
      accruedValidationRewards: ESCAPES,
      accruedDelegateeRewards: 1e308,
      state: 7,
    }),
    auto_renew_state: ESCAPES,
    end_timestamp: 1_760_000_000,
    potential_validation_reward: NOT_A_NUMBER,
    delegator_count: -3,
    amount_delegated: NOT_A_NUMBER,
  });
  // Another node id's, its id escape-laden and long (the report lists every stored node id).
  await validation(demoCb58('v-other'), { node_id: `NodeID-${ESCAPES}${'n'.repeat(5_000)}` });
  await insert(store, 'validation_observations', {
    network: 'mainnet',
    node_id: NODE,
    tx_hash: demoCb58('v-auto'),
    observed_at: AT,
    uptime_performance: 1e308,
    reachability_percent: -50,
    delegator_count: -1,
    amount_delegated: NOT_A_NUMBER,
    delegation_capacity: '-1',
    potential_validation_reward: '9'.repeat(78),
    potential_delegation_reward: NOT_A_NUMBER,
  });
  await insert(store, 'pending_rewards', {
    network: 'mainnet',
    tx_hash: `${ESCAPES}${'p'.repeat(5_000)}`,
    reward_type: ESCAPES,
    node_id: NODE,
    addresses: JSON.stringify([ESCAPES]),
    amount_staked: NOT_A_NUMBER,
    start_timestamp: -1e14,
    end_timestamp: 1e14,
    progress: 1e308,
    estimated_amount: NOT_A_NUMBER,
    asset_id: ESCAPES,
    staking_type: ESCAPES,
    first_seen_at: AT,
    last_seen_at: AT,
  });
  const summary = (nodeId: string, fields: Record<string, string | number | null>) =>
    insert(store, 'validator_summaries', {
      network: 'mainnet',
      node_id: nodeId,
      known: 1,
      active: 1,
      auto_renewing: 0,
      unrewarded: 0,
      updated_at: AT,
      ...fields,
    });
  // Every figure out of range or no number; the sums past int64.
  await summary(NODE, {
    auto_renewing: 7,
    end_timestamp: 1e14,
    period_seconds: -5,
    uptime_ratio: 1e308,
    reachability_ratio: -1,
    potential_validation_reward: '9'.repeat(78),
    potential_delegation_reward: NOT_A_NUMBER,
    delegators: -3,
    amount_delegated: NOT_A_NUMBER,
    delegation_capacity: '-1',
    unrewarded: 2 ** 40,
    newest_unrewarded_end: -1e14,
    pending_reward: NOT_A_NUMBER,
  });
  // A configured node id past the first, over the metrics' cap or not, with flags no boolean is.
  await summary(NODE_2, { known: 5, active: -1, end_timestamp: -1e14, uptime_ratio: -1e308 });
  // A node id nobody configured, its id escape-laden: no reader shows it.
  await summary(`NodeID-${ESCAPES}`, { uptime_ratio: 0.5 });
  await insert(store, 'cycles', {
    network: 'mainnet',
    staking_tx_hash: demoCb58('v-auto'),
    cycle_index: 1,
    node_id: NODE,
    reward_tx_hash: `${ESCAPES}${'r'.repeat(5_000)}`,
    start_timestamp: 1e14,
    end_timestamp: 1e14 + 1,
    weight_at_cycle_start: NOT_A_NUMBER,
    gross_validation_reward: '9'.repeat(78),
    withdrawn_validation_reward: '-1',
    compounded_validation_reward: NOT_A_NUMBER,
    gross_delegatee_reward: '0',
    withdrawn_delegatee_reward: '0',
    compounded_delegatee_reward: '9'.repeat(78),
    auto_compound_share_percent: 1e308,
    outcome: ESCAPES,
    delegator_count: -1,
    amount_delegated: NOT_A_NUMBER,
    first_seen_at: AT,
    last_seen_at: AT,
  });
  await insert(store, 'signature_attempts', {
    network: 'mainnet',
    tx_hash: demoCb58('sig'),
    outcome: ESCAPES,
    status: 999,
    message: `${ESCAPES}${'m'.repeat(20_000)}`,
    failures: -1,
    first_failed_at: AT,
    last_attempt_at: AT,
    next_attempt_at: AT,
    config_digest: ESCAPES,
  });
}

async function seed(store: Store): Promise<void> {
  await seedValidators(store);
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
      validators: { schedule: '*/15 * * * *', network: 'mainnet', nodeIds: [NODE, NODE_2] },
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
    // The validators: an end no date holds shown as such, the node id nobody configured not at all.
    expect(text).toMatch(/validators on mainnet: 2 known, 0 unknown to the API, 0 not read yet/);
    expect(text).toMatch(new RegExp(`${NODE}\\s+active\\s+invalid: 100000000000000`));
    expect(text).toContain('signatures not stored yet: 1');
    expect(text).not.toContain('NodeID-\\x1b');
    expect(text).not.toMatch(CONTROL);
    expect(text.split('\n').every((l) => l.length < 2_000)).toBe(true);
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

  it('report validations: every format over the hostile validations, text escaped, a bad amount left empty', async () => {
    const report = await buildValidationsReport(db.store, { network: 'mainnet', nodeIds: [] });
    expect(report.rows).toHaveLength(4);
    const huge = report.rows.find((r) => r.stakingTx === demoCb58('v-huge'))!;
    expect(huge.amountStaked).toBe(`${'9'.repeat(69)}.${'9'.repeat(9)}`);
    expect(huge.rewardPaid).toBeNull();
    const table = formatValidationsTable(report);
    expect(table).toContain('invalid: 100000000000000');
    expect(table).not.toMatch(CONTROL);
    const csv = formatValidationsCsv(report);
    expect(csv).not.toMatch(CONTROL);
    expect(csv).toContain('invalid: 100000000000000');
    expect(JSON.parse(formatValidationsJson(report)).validations).toHaveLength(4);
  });

  it('report validations, as a command', async () => {
    for (const format of ['csv', 'table', 'json']) {
      const r = await runCli(['report', 'validations', '--format', format], cliEnv());
      expect(r.code, r.stderr).toBe(0);
      if (format !== 'json') expect(r.stdout, format).not.toMatch(CONTROL);
    }
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
      'validators',
    ]) {
      expect(body, collector).toContain(`glacier_scrape_collector_success{collector="${collector}"} 1`);
    }
    // A figure stored as no number has no series; the others do.
    expect(body).not.toMatch(/^glacier_supply_circulating_avax /m);
    expect(body).toMatch(/^glacier_supply_total_avax 1$/m);
    expect(body).not.toMatch(CONTROL);
    expect(text()).not.toContain('"level":50');
    // The validators: only the configured node ids; a figure no number is has no series.
    expect(body).toMatch(
      new RegExp(
        `^glacier_validator_end_timestamp_seconds\\{network="mainnet",node_id="${NODE}"\\} 100000000000000$`,
        'm',
      ),
    );
    expect(body).not.toMatch(/^glacier_validator_[a-z_]+\{[^}]*\} nan$/im);
    expect(body).toMatch(/^glacier_validator_uptime_ratio\{[^}]*\} 1e\+308$/m);
    expect(body).not.toContain('NodeID-\\u001b');
    expect(body).not.toMatch(/^glacier_validator_[a-z_]+\{[^}]*node_id="NodeID-\\/m);
    // The rewards of the node: the two huge ones summed past int64 (a float on SQLite), never clamped.
    const node = body
      .split('\n')
      .find((l) => l.startsWith('glacier_rewards_received_avax{') && l.includes('kind="node_id"'))!;
    expect(Number(node.split(' ').at(-1))).toBeGreaterThan(1.9e14);
  });
});
