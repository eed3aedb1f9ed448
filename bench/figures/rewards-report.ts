/**
 * The rewards report with auto-renewed staking (issue 33): `report rewards` on 100,000 rewards plus
 * 10,000 settled cycles (`--summary year`, `koinly`, `cointracking`: the income views, which add the
 * compounded rows and split the final rewards), each against the same report on the same 100,000
 * rewards without cycles (today's time for the same rows), in the same run; goal 1.2×. And the
 * cycles read's steady state: a rewards run with nothing settled since asks the cycles endpoint once
 * per node with auto-renewed staking, one cycle on the page (the minimum: the current cycle is
 * re-read, no settled one again in bulk); goal 1.00.
 */
import { copyFileSync } from 'node:fs';
import { Agent } from 'undici';
import { rewards } from '../../jobs/rewards.js';
import { demoNodeId } from '../../src/commands/demo-config.js';
import { loadConfig, storeLocation } from '../../src/config/index.js';
import { runHandler } from '../../src/kernel/index.js';
import { buildRewardsReport } from '../../src/report/rewards.js';
import { rewardsFormats } from '../../src/report/rewards-formats.js';
import { formatSummaryCsv, summarizeRewards } from '../../src/report/rewards-summary.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { createLogger } from '../../src/runtime/logger.js';
import { hasAutoRenewed } from '../../src/simulator/data/auto-renewed.js';
import { startSimulator } from '../../src/simulator/index.js';
import { openStore, type Store, upsertCycles, upsertRewards } from '../../src/store/index.js';
import type { AutoRenewedCycle, HistoricalReward } from '../../src/upstream/index.js';
import { createDataApiClient } from '../../src/upstream/index.js';
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
import { removeDatabase, scratch } from '../support.js';

const YEAR_START = Date.UTC(2025, 0, 1) / 1000;
const DAY = 86_400;
const NODES = 20;

/** The report's subjects: node ids whose operator rewards are income. */
const nodeIds = Array.from({ length: NODES }, (_, i) => demoNodeId(`report-bench-${i}`));

/**
 * `count` rewards over 2025 for the nodes (VALIDATOR, VALIDATOR_FEE, DELEGATOR), priced in usd; the
 * first `autoRenewed` of them the withdrawn parts of auto-renewed cycles (`rtx-<k>` their reward tx).
 */
function syntheticRewards(count: number, autoRenewed: number): HistoricalReward[] {
  const types = ['VALIDATOR', 'VALIDATOR_FEE', 'DELEGATOR'] as const;
  return Array.from({ length: count }, (_, i) => {
    const auto = i < autoRenewed;
    const end = YEAR_START + Math.floor((i * 360 * DAY) / count) + DAY;
    return {
      addresses: [`avax1benchowner${String(i % 500).padStart(4, '0')}`],
      txHash: auto ? `stake-${i % 100}` : `tx-${i}`,
      amountStaked: '2000000000000',
      nodeId: nodeIds[i % NODES]!,
      startTimestamp: end - 14 * DAY,
      endTimestamp: end,
      rewardType: auto ? 'VALIDATOR' : types[i % 3]!,
      utxoId: `utxo-${i}`,
      outputIndex: 0,
      rewardTxHash: auto ? `rtx-${i}` : `rtx-plain-${i}`,
      ...(auto && { stakingType: 'autoRenewed' }),
      reward: {
        assetId: 'FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z',
        name: 'Avalanche',
        symbol: 'AVAX',
        denomination: 9,
        type: 'secp256k1',
        amount: String(1_000_000_000 + i * 7),
        historicalPrice: {
          currencyCode: 'usd',
          value: `${20 + (i % 10)}.${String(i % 97).padStart(2, '0')}`,
        },
      },
    } as HistoricalReward;
  });
}

/** One settled cycle per auto-renewed reward: 100 positions of `perPosition` cycles, the last an exit. */
function syntheticCycles(rows: readonly HistoricalReward[], perPosition: number): AutoRenewedCycle[] {
  return rows.map((r, i) => {
    const index = Math.floor(i / 100) + 1;
    const final = index === perPosition;
    return {
      cycleIndex: index,
      rewardTxHash: r.rewardTxHash,
      stakingTxHash: r.txHash,
      startTimestamp: r.startTimestamp,
      endTimestamp: r.endTimestamp,
      weightAtCycleStart: '2000000000000',
      grossValidationReward: String(BigInt(r.reward.amount) * (final ? 1n : 2n)),
      withdrawnValidationReward: r.reward.amount,
      compoundedValidationReward: final ? '0' : r.reward.amount,
      grossDelegateeReward: '0',
      withdrawnDelegateeReward: '0',
      compoundedDelegateeReward: '0',
      autoCompoundSharePercent: 50,
      outcome: final ? 'exited' : 'renewed',
      delegatorCount: 0,
      amountDelegated: '0',
    };
  });
}

async function fill(store: Store, items: readonly HistoricalReward[]): Promise<void> {
  const at = new Date().toISOString();
  for (let i = 0; i < items.length; i += 1000) {
    await store.transaction((tx) => upsertRewards(tx, 'mainnet', items.slice(i, i + 1000), at));
  }
}

export async function run(): Promise<Figure[]> {
  const dirs = scratch('rewards-report');
  const rewardCount = scaled(100_000, 1000);
  const cycleCount = scaled(10_000, 100);
  const perPosition = Math.ceil(cycleCount / 100);
  const rows = syntheticRewards(rewardCount, cycleCount);
  const plainPath = dirs.path('plain.db');
  const plain = await openStore(storeLocation(plainPath));
  await fill(plain, rows);
  await plain.close();
  const cyclesPath = dirs.path('cycles.db');
  copyFileSync(plainPath, cyclesPath);
  const withCycles = await openStore(storeLocation(cyclesPath));
  const cycles = syntheticCycles(rows.slice(0, cycleCount), perPosition);
  const at = new Date().toISOString();
  for (let i = 0; i < cycles.length; i += 1000) {
    const page = cycles.slice(i, i + 1000);
    await withCycles.transaction(async (tx) => {
      for (const node of nodeIds) {
        const mine = page.filter((c) => rows[Number(c.rewardTxHash.slice(4))]?.nodeId === node);
        await upsertCycles(tx, 'mainnet', node, mine, at);
      }
      return 0;
    });
  }
  const stores = { plain: await openStore(storeLocation(plainPath)), withCycles };
  const config = loadConfig({
    env: {},
    cwd: '/nonexistent',
    file: { jobs: { rewards: { schedule: '0 * * * *', nodeIds } } },
  });
  const job = config.jobs.rewards!;
  const request = { from: '2025-01-01', to: '2025-12-31', view: 'income' as const };
  const outputs = {
    'summary year': async (store: Store) => {
      const report = await buildRewardsReport(store, job, request);
      return formatSummaryCsv(report, summarizeRewards(report, 'year'));
    },
    koinly: async (store: Store) =>
      rewardsFormats.koinly.write(await buildRewardsReport(store, job, request)),
    cointracking: async (store: Store) =>
      rewardsFormats.cointracking.write(await buildRewardsReport(store, job, request)),
  };
  const figures: Figure[] = [];
  try {
    for (const [name, write] of Object.entries(outputs)) {
      await write(stores.plain); // warm-up
      await write(stores.withCycles);
      const base: Cost[] = [];
      const ours: Cost[] = [];
      for (let i = 0; i < benchOptions().runs; i++) {
        base.push(await cost(() => write(stores.plain)));
        ours.push(await cost(() => write(stores.withCycles)));
      }
      figures.push(
        ...costFigures({
          id: `rewards-report.${name.replace(' ', '-')}`,
          title: `report rewards ${name === 'summary year' ? '--summary year' : `--format ${name}`}, ${rewardCount} rewards + ${cycleCount} cycles`,
          value: medianCost(ours),
          baseline: medianCost(base),
          baselineLabel: `the same report on the same ${rewardCount} rewards without cycles`,
          goal: { max: 1.2 },
        }),
      );
    }
  } finally {
    await stores.plain.close();
    await stores.withCycles.close();
    removeDatabase(plainPath);
    removeDatabase(cyclesPath);
  }
  figures.push(await cyclesSteadyState(dirs.path('steady.db')));
  dirs.cleanup();
  return figures;
}

/** A rewards run with nothing settled since: requests to the cycles endpoint against one per node. */
async function cyclesSteadyState(path: string): Promise<Figure> {
  const clock = createManualClock(Date.UTC(2025, 5, 15, 12));
  const sim = await startSimulator({ port: 0, seed: 7, clock });
  const store = await openStore(storeLocation(path));
  const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
  const client = createDataApiClient({ baseUrl: sim.url, dispatcher, clock });
  const deps = { client, store, clock, log: createLogger({ level: 'silent', pretty: false }) };
  const nodes = Array.from({ length: 400 }, (_, i) => demoNodeId(`cycles-${i}`))
    .filter((id) => hasAutoRenewed(7, 'testnet', id))
    .slice(0, scaled(20, 4));
  const payload = {
    network: 'fuji' as const,
    addresses: [],
    nodeIds: nodes,
    currency: 'usd' as const,
    pageSize: 100,
    maxPages: 50,
  };
  try {
    const first = await runHandler('rewards', rewards, payload, deps);
    if (first.status !== 'succeeded') throw first.error;
    clock.advance(60_000);
    const before = sim.requests.filter((r) => r.endpoint === 'validatorCycles').length;
    const idle = await runHandler('rewards', rewards, payload, deps);
    if (idle.status !== 'succeeded') throw idle.error;
    const asked = sim.requests.filter((r) => r.endpoint === 'validatorCycles').slice(before);
    const settledAgain = asked.reduce((sum, r) => sum + Number(r.query['pageSize'] ?? 10), 0);
    return figure({
      id: 'rewards-report.cycles-steady-requests',
      title: `rewards job's cycles read, ${nodes.length} auto-renewed nodes, nothing settled since: requests`,
      unit: 'requests',
      value: asked.length,
      baseline: nodes.length,
      baselineLabel: 'one request per node with auto-renewed staking (the current cycle re-read)',
      goal: { max: 1.0 },
      note: `${settledAgain} settled cycle(s) on those pages (one each, beside the current one); the first run read every settled cycle once`,
    });
  } finally {
    await store.close();
    await dispatcher.destroy();
    await sim.close();
  }
}
