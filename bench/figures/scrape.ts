import { storeLocation } from '../../src/config/index.js';
/**
 * Scrape cost against the size of the database: `/metrics` over HTTP (keep-alive, as Prometheus
 * scrapes) on a database holding 1,000,000 transactions, 100,000 rewards and 500 validators with
 * their history and a month of observations, against the same config on a database holding one row
 * per exposed series (10 chains; 50 addresses and 10 node ids × 3 reward types; one validation and
 * one summary per validator): the same series, so the ratio isolates the number of stored rows. Goals: p50
 * and p99 ratios ≤ 1.2 (a scrape reads summaries, never the big tables) and p99 ≤ 10 ms. A scrape of
 * an empty database (no data series at all: a smaller exposition) is reported beside it, without a
 * goal. Rows are inserted with raw prepared statements (the reward triggers fire as for the
 * collector's own writes; transactions are recounted once), so setup takes a minute, not the hours a
 * collection would.
 */

import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { jobs } from '../../jobs/index.js';
import { demoAddress, demoCb58, demoNodeId } from '../../src/commands/demo-config.js';
import { loadConfig } from '../../src/config/index.js';
import { createMetrics } from '../../src/metrics/index.js';
import { startHttpServer } from '../../src/metrics/server.js';
import { systemClock } from '../../src/runtime/clock.js';
import { createLogger } from '../../src/runtime/logger.js';
import { createValidatorSource } from '../../src/simulator/data/validators.js';
import {
  openStore,
  rebuildTransactionSummaries,
  refreshValidatorSummary,
  type Store,
  upsertValidations,
} from '../../src/store/index.js';
import { bareAddress } from '../../src/upstream/endpoints.js';
import type { Validator } from '../../src/upstream/staking-schemas.js';
import { tempDir } from '../../test/support/tmp.js';
import { cost, type Figure, figure, median, percentile, scaled } from '../lib.js';
import { rawSqlite } from '../support.js';

const TRANSACTIONS = scaled(1_000_000, 1000);
const REWARDS = scaled(100_000, 100);
const CHAINS = ['43114', '1', '8453', '10', '42161', '137', '56', '250', '100', '324'];
const ADDRESSES = Array.from({ length: 50 }, (_, i) => demoAddress(`bench-${i}`));
const NODE_IDS = Array.from({ length: 10 }, (_, i) => demoNodeId(`bench-${i}`));
const SCRAPES = scaled(600, 5);
/** jobs.validators: 500 node ids (the cap exposes the first 249), a month of observations each. */
const VALIDATOR_NODE_IDS = Array.from({ length: scaled(500, 5) }, (_, i) =>
  demoNodeId(`bench-validator-${i}`),
);
/** A validators run every 15 minutes for 30 days: an observation of the active validation each. */
const OBSERVATIONS_PER_NODE = scaled(30 * 96, 10);
const WARMUP = scaled(50, 1);

const config = loadConfig({
  env: {},
  cwd: '/nonexistent',
  file: {
    jobs: {
      supply: { schedule: '*/5 * * * *' },
      transactions: { schedule: '* * * * *' },
      rewards: { schedule: '0 * * * *', addresses: ADDRESSES, nodeIds: NODE_IDS },
      usageMetrics: {
        schedule: '0 * * * *',
        sources: [{ source: 'dataApi', timeInterval: 'hourly', groupBy: 'requestPath' }],
      },
      signatures: {
        schedule: '0 * * * *',
        txHashes: Array.from({ length: 20 }, (_, i) => demoCb58(`sig-${i}`)),
      },
      validators: { nodeIds: VALIDATOR_NODE_IDS, addresses: [] },
    },
  },
});

/** Fills a database the size the figure is about. */
export async function fill(store: Store, transactions: number, rewards: number): Promise<void> {
  const db = rawSqlite(store);
  const tx = db.prepare(
    `INSERT INTO transactions (chain_id, tx_hash, network, block_number, block_timestamp, block_hash, block_index,
      tx_status, tx_type, gas_limit, gas_used, gas_price, nonce, value, from_address, to_address, first_seen_at, last_seen_at)
     VALUES (?, ?, 'mainnet', ?, ?, '0xblock', 0, '1', 2, '21000', '21000', '25000000000', '7', '1000000000000000000',
      '0x00000000000000000000000000000000000000aa', '0x00000000000000000000000000000000000000bb', 'x', 'x')`,
  );
  const reward = db.prepare(
    `INSERT INTO rewards (network, utxo_id, tx_hash, reward_tx_hash, output_index, node_id, reward_type, amount_staked,
      start_timestamp, end_timestamp, asset_id, asset_name, asset_symbol, asset_denomination, asset_type, amount,
      addresses, first_seen_at, last_seen_at)
     VALUES ('mainnet', ?, 'tx', 'rtx', 0, ?, ?, '2000000000000', 0, ?, 'FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z',
      'Avalanche', 'AVAX', 9, 'secp256k1', ?, '[]', 'x', 'x')`,
  );
  const price = db.prepare("INSERT INTO reward_prices VALUES ('mainnet', ?, 'usd', '21.5', 'x')");
  const link = db.prepare("INSERT INTO reward_addresses VALUES ('mainnet', ?, ?)");
  const BATCH = 20_000;
  for (let start = 0; start < transactions; start += BATCH) {
    db.transaction(() => {
      for (let i = start; i < Math.min(transactions, start + BATCH); i++) {
        tx.run(
          CHAINS[i % CHAINS.length],
          `0x${i.toString(16).padStart(64, '0')}`,
          String(i),
          1_700_000_000 + i,
        );
      }
    })();
  }
  // Raw inserts bypass upsertTransactions, which keeps the count: recount once.
  await rebuildTransactionSummaries(store);
  const types = ['VALIDATOR', 'DELEGATOR', 'VALIDATOR_FEE'];
  for (let start = 0; start < rewards; start += BATCH) {
    db.transaction(() => {
      for (let i = start; i < Math.min(rewards, start + BATCH); i++) {
        const utxo = `utxo-${i}`;
        reward.run(
          utxo,
          NODE_IDS[i % NODE_IDS.length],
          types[i % 3],
          1_700_000_000 + i,
          String(1_000_000 + i),
        );
        link.run(utxo, bareAddress(ADDRESSES[i % ADDRESSES.length]!));
        price.run(utxo);
      }
    })();
  }
}

/**
 * The validators' rows: each node's validations as the simulator has them (`history`: all of them and
 * a month of observations of the active one; else the active one alone: one row per series), and the
 * summary the metrics read, written by the store's own functions (raw inserts for the observations).
 */
export async function fillValidators(store: Store, history: boolean): Promise<void> {
  const source = createValidatorSource({
    seed: 4,
    now: () => Date.UTC(2025, 5, 15),
    epochMs: Date.UTC(2025, 5, 15),
  });
  const at = new Date(Date.UTC(2025, 5, 15)).toISOString();
  const db = rawSqlite(store);
  const observe = db.prepare(
    `INSERT OR IGNORE INTO validation_observations (network, node_id, tx_hash, observed_at, uptime_performance,
       reachability_percent, delegator_count, amount_delegated, delegation_capacity, potential_validation_reward,
       potential_delegation_reward)
     VALUES ('mainnet', ?, ?, ?, ?, 100, 3, '5000000000000', '1000000000000', '2000000000', '100000000')`,
  );
  for (const nodeId of VALIDATOR_NODE_IDS) {
    const all = (source.validations('mainnet', nodeId) ?? []) as unknown as Validator[];
    const active = all.filter((v) => v.validationStatus === 'active');
    await store.transaction(async (tx) => {
      await upsertValidations(tx, 'mainnet', history ? all : active, at);
      await refreshValidatorSummary(tx, 'mainnet', nodeId, at, { known: true, pendingRewards: false });
    });
    const txHash = active[0]?.txHash;
    if (!history || !txHash) continue;
    db.transaction(() => {
      for (let i = 1; i <= OBSERVATIONS_PER_NODE; i++) {
        observe.run(
          nodeId,
          txHash,
          new Date(Date.UTC(2025, 5, 15) - i * 900_000).toISOString(),
          95 + (i % 5),
        );
      }
    })();
  }
}

interface Side {
  ms: number[];
  /** CPU of this process per scrape (server and client), ms. */
  cpuMs: number[];
  bytesWritten: number;
}

/** A scrape target: the metrics of one database behind its own server. */
async function serve(store: Store) {
  const log = createLogger({ level: 'silent', pretty: false });
  const metrics = createMetrics({ store, config, jobs, log, clock: systemClock });
  const server = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    log,
    metrics,
    readiness: async () => ({ ready: true, checks: {} }),
  });
  const dispatcher = new Agent({ keepAliveTimeout: 60_000 });
  const side: Side = { ms: [], cpuMs: [], bytesWritten: 0 };
  const once = async () => {
    const res = await request(`${server.url}/metrics`, { dispatcher });
    const body = await res.body.text();
    if (res.statusCode !== 200 || body.length < 1000) throw new Error(`scrape answered ${res.statusCode}`);
  };
  return {
    side,
    once,
    async measured() {
      const used = await cost(async () => {
        const t = performance.now();
        await once();
        side.ms.push(performance.now() - t);
      });
      side.cpuMs.push(used.cpuMs);
      side.bytesWritten += used.bytesWritten;
    },
    async close() {
      await dispatcher.close();
      await server.close();
    },
  };
}

/**
 * Scrapes the targets in turn, one scrape each per round (the order rotating), so a change of the
 * machine's load hits every side alike: this machine is shared.
 */
async function scrapeInTurn(
  stores: Record<'empty' | 'small' | 'full', Store>,
): Promise<Record<keyof typeof stores, Side>> {
  const targets = {
    empty: await serve(stores.empty),
    small: await serve(stores.small),
    full: await serve(stores.full),
  };
  const order = Object.values(targets);
  try {
    for (let i = 0; i < WARMUP; i++) for (const t of order) await t.once();
    for (let i = 0; i < SCRAPES; i++) {
      for (let j = 0; j < order.length; j++) await order[(i + j) % order.length]!.measured();
    }
    return { empty: targets.empty.side, small: targets.small.side, full: targets.full.side };
  } finally {
    for (const t of order) await t.close();
  }
}

export async function run(): Promise<Figure[]> {
  const { dir, cleanup } = tempDir('glacier-bench-scrape-');
  const empty = await openStore(storeLocation(join(dir, 'empty.db')));
  const small = await openStore(storeLocation(join(dir, 'small.db')));
  const full = await openStore(storeLocation(join(dir, 'full.db')));
  try {
    await fill(full, TRANSACTIONS, REWARDS);
    await fillValidators(full, true);
    // 150 rewards cover every (address, type) and (node id, type): lcm(50, 3) and lcm(10, 3) ≤ 150.
    await fill(small, CHAINS.length, 150);
    await fillValidators(small, false);
    // Alternate, so drift of the machine's load hits every side alike.
    const sides = await scrapeInTurn({ empty, small, full });
    const [emptyMs, smallMs, fullMs] = [sides.empty.ms, sides.small.ms, sides.full.ms];
    const cpuOf = (side: Side) => median(side.cpuMs);
    const label = 'the same series from a database of one row per series';
    const note = `${TRANSACTIONS.toLocaleString('en')} transactions, ${REWARDS.toLocaleString('en')} rewards, ${VALIDATOR_NODE_IDS.length} validators with ${OBSERVATIONS_PER_NODE} observations each; ${SCRAPES} scrapes each, in turn`;
    return [
      figure({
        id: 'scrape.p50',
        title: '/metrics latency p50, full database',
        unit: 'ms',
        value: median(fullMs),
        baseline: median(smallMs),
        baselineLabel: label,
        goal: { max: 1.2 },
        note,
      }),
      figure({
        id: 'scrape.p99',
        title: '/metrics latency p99, full database',
        unit: 'ms',
        value: percentile(fullMs, 99),
        baseline: percentile(smallMs, 99),
        baselineLabel: label,
        goal: { max: 1.2 },
        note,
      }),
      figure({
        id: 'scrape.p99.absolute',
        title: '/metrics latency p99, full database (goal on the value: ≤ 10 ms)',
        unit: 'ms',
        value: percentile(fullMs, 99),
        baseline: percentile(smallMs, 99),
        baselineLabel: label,
        goal: { on: 'value', max: 10 },
        note,
      }),
      figure({
        id: 'scrape.cpu',
        title: '/metrics CPU per scrape (server and client in this process), full database',
        unit: 'ms',
        value: cpuOf(sides.full),
        baseline: cpuOf(sides.small),
        baselineLabel: label,
        goal: { max: 1.2 },
        note: `median; bytes written by the process during the scrapes: ${sides.full.bytesWritten} (full), ${sides.small.bytesWritten} (one row per series)`,
      }),
      figure({
        id: 'scrape.p50.vs-empty',
        title:
          '/metrics latency p50, full database against an empty one (no data series: a smaller exposition)',
        unit: 'ms',
        value: median(fullMs),
        baseline: median(emptyMs),
        baselineLabel: 'the same config on an empty database',
        note: `p99 ${percentile(fullMs, 99).toFixed(2)} ms against ${percentile(emptyMs, 99).toFixed(2)} ms`,
      }),
    ];
  } finally {
    await empty.close();
    await small.close();
    await full.close();
    cleanup();
  }
}
