/**
 * Figure 2, rewards at scale: 1,000 addresses with a year of history each (the simulator's epoch a
 * year ahead of its frozen clock: histories start two years before the epoch). Requests and compute
 * units against the batching minimum (each batch's rewards in full pages: Σ ceil(rows / 100), at
 * least one page per batch), and time against a baseline that fetches the same batched pages with
 * plain `fetch` and inserts the same rows with raw prepared statements.
 */
import { rewardQueries, rewards } from '../../jobs/rewards.js';
import { demoAddress } from '../../src/commands/demo-config.js';
import { storeLocation } from '../../src/config/index.js';
import { runHandler } from '../../src/kernel/index.js';
import { openStore, tables } from '../../src/store/index.js';
import { stakingTypeOf } from '../../src/upstream/auto-renew.js';
import { bareAddress } from '../../src/upstream/endpoints.js';
import { endpoints, type HistoricalReward } from '../../src/upstream/index.js';
import { startSimulatorProcess } from '../../test/support/sim-process.js';
import {
  benchOptions,
  type Cost,
  cost,
  costFigures,
  type Figure,
  figure,
  medianCost,
  scaled,
} from '../lib.js';
import {
  benchApiKeys,
  benchFetchInit,
  collectorDeps,
  columnNames,
  rawPageWriter,
  rawSqlite,
  removeDatabase,
  scratch,
} from '../support.js';

const T0 = Date.UTC(2025, 5, 15, 12);
const YEAR_MS = 365 * 86_400_000;
const PAGE = 100;

/** In the schema's order, which the raw rows below follow. */
const rewardColumns = columnNames(tables.rewards);

export async function run(): Promise<Figure[]> {
  const addresses = Array.from({ length: scaled(1000, 10) }, (_, i) => demoAddress(`holder-${i}`));
  const payload = {
    network: 'mainnet' as const,
    addresses,
    nodeIds: [],
    currency: 'usd' as const,
    pageSize: PAGE,
    maxPages: 10_000,
  };
  const batches = rewardQueries(payload);
  const sim = await startSimulatorProcess({ seed: 5, epochMs: T0 + YEAR_MS, apiKeys: benchApiKeys }, T0);
  const dirs = scratch('rewards');
  let n = 0;

  /** Every page of every batch with plain fetch; returns the rewards of each batch. */
  async function baselineWalk(write: (items: HistoricalReward[]) => void): Promise<number[]> {
    const counts: number[] = [];
    for (const { ids } of batches) {
      const first = `${sim.url}/v1/networks/mainnet/rewards?addresses=${ids.join(',')}&pageSize=${PAGE}&sortOrder=desc&currency=usd`;
      let token: string | undefined;
      let count = 0;
      do {
        const res = await fetch(token ? `${first}&pageToken=${token}` : first, benchFetchInit);
        if (!res.ok) throw new Error(`baseline fetch: ${res.status} ${await res.text()}`);
        // The baseline parses with JSON.parse: prices become floats, which is exactly what the
        // collector must not do, but the cost of the lossless parse is the collector's to carry.
        const body = (await res.json()) as { historicalRewards: HistoricalReward[]; nextPageToken?: string };
        write(body.historicalRewards);
        count += body.historicalRewards.length;
        token = body.nextPageToken;
      } while (token);
      counts.push(count);
    }
    return counts;
  }

  const baseline = async (): Promise<Cost & { counts: number[] }> => {
    const path = dirs.path(`baseline-${n++}.db`);
    const store = await openStore(storeLocation(path));
    const db = rawSqlite(store);
    const insertReward = db.prepare(
      `INSERT OR IGNORE INTO rewards (${rewardColumns.join(',')}) VALUES (${rewardColumns.map(() => '?').join(',')})`,
    );
    const insertLink = rawPageWriter(store, 'reward_addresses', ['network', 'utxo_id', 'address']);
    const insertPrice = db.prepare(
      'INSERT OR IGNORE INTO reward_prices (network, utxo_id, currency, value, fetched_at) VALUES (?, ?, ?, ?, ?)',
    );
    const writePage = db.transaction((items: HistoricalReward[], seenAt: string) => {
      for (const r of items) {
        const p = r.reward.historicalPrice;
        insertReward.run([
          'mainnet',
          r.utxoId,
          r.txHash,
          r.rewardTxHash,
          r.outputIndex,
          r.nodeId,
          r.rewardType,
          r.amountStaked,
          r.startTimestamp,
          r.endTimestamp,
          r.reward.assetId,
          r.reward.name,
          r.reward.symbol,
          r.reward.denomination,
          r.reward.type,
          r.reward.amount,
          JSON.stringify(r.addresses),
          stakingTypeOf(r),
          seenAt,
          seenAt,
        ]);
        if (p) insertPrice.run(['mainnet', r.utxoId, p.currencyCode, String(p.value), seenAt]);
      }
      insertLink(items.flatMap((r) => r.addresses.map((a) => ['mainnet', r.utxoId, bareAddress(a)])));
    });
    const seenAt = new Date().toISOString();
    let counts: number[] = [];
    const c = await cost(async () => {
      counts = await baselineWalk((items) => writePage(items, seenAt));
    });
    await store.close();
    removeDatabase(path);
    return { ...c, counts };
  };

  const collector = async () => {
    const path = dirs.path(`collector-${n++}.db`);
    const deps = await collectorDeps(sim.url, path);
    let summary: Awaited<ReturnType<typeof runHandler>> | undefined;
    const c = await cost(async () => {
      summary = await runHandler('rewards', rewards, payload, deps);
    });
    if (summary?.status !== 'succeeded') throw summary?.error ?? new Error('rewards run failed');
    const rows = (await deps.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM rewards'))!.n;
    await deps.close();
    removeDatabase(path);
    return { ...c, requests: summary.requests, computeUnits: summary.computeUnits, rows };
  };

  try {
    await baselineWalk(() => undefined); // warm-up
    const base: (Cost & { counts: number[] })[] = [];
    const ours: Awaited<ReturnType<typeof collector>>[] = [];
    for (let i = 0; i < benchOptions().runs; i++) {
      base.push(await baseline());
      ours.push(await collector());
    }
    const counts = base[0]!.counts;
    const rows = counts.reduce((a, b) => a + b, 0);
    const minimum = counts.reduce((sum, c) => sum + Math.max(1, Math.ceil(c / PAGE)), 0);
    const unbatched = addresses.length; // one request per address at the very least
    const requests = ours[0]!.requests;
    const cu = endpoints.rewards.computeUnits;
    if (ours.some((o) => o.rows !== rows))
      throw new Error(`collector stored ${ours[0]!.rows} of ${rows} rewards`);
    return [
      figure({
        id: 'rewards.requests',
        title: `rewards job, ${addresses.length} addresses with a year of history (${rows} rewards): requests`,
        unit: 'requests',
        value: requests,
        baseline: minimum,
        baselineLabel: `batching minimum: ${batches.length} batches, Σ ceil(rows / ${PAGE})`,
        goal: { max: 1.0 },
        note: `without batching at least ${unbatched} requests (${unbatched * cu} CU)`,
      }),
      figure({
        id: 'rewards.compute-units',
        title: 'rewards job: compute units',
        unit: 'CU',
        value: ours[0]!.computeUnits,
        baseline: minimum * cu,
        baselineLabel: `batching minimum × ${cu} CU`,
        goal: { max: 1.0 },
      }),
      ...costFigures({
        id: 'rewards.time',
        title: 'rewards job',
        value: medianCost(ours),
        baseline: medianCost(base),
        baselineLabel: 'plain fetch + JSON.parse + raw prepared inserts, sequential',
        goal: { max: 1.2 },
      }),
    ];
  } finally {
    await sim.close();
    dirs.cleanup();
  }
}
