/**
 * Figure, validators at scale: the validators job for 500 node ids (each node's history of
 * validations fits one page of 100), its first run and a run with nothing new. Requests and compute
 * units against the job's declared minimum (one page per node id, plus `pendingPages` of each
 * pending-rewards batch for the pending rewards it holds: one page per 100, delegations included),
 * and the first run's time against a baseline that fetches the same pages with plain `fetch` and
 * inserts the same rows with raw prepared statements (no cursor, no summary, no record checks).
 */
import { getTableColumns } from 'drizzle-orm';
import {
  pendingBatches,
  pendingPages,
  validatorsJob,
  validatorsPayload,
} from '../../jobs/validators.definition.js';
import { validators } from '../../jobs/validators.js';
import { demoNodeId } from '../../src/commands/demo-config.js';
import { loadConfig, storeLocation } from '../../src/config/index.js';
import { runHandler } from '../../src/kernel/index.js';
import { openStore, tables, validationRow } from '../../src/store/index.js';
import { endpoints } from '../../src/upstream/index.js';
import type { PendingReward, Validator } from '../../src/upstream/staking-schemas.js';
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
  rawSqlite,
  removeDatabase,
  scratch,
} from '../support.js';

const T0 = Date.UTC(2025, 5, 15, 12);
const PAGE = 100;

/** A table's (property, column) pairs in schema order: raw rows follow it. */
const columnsOf = (table: (typeof tables)[keyof typeof tables]) =>
  Object.entries(getTableColumns(table)).map(([key, c]) => [key, c.name] as const);

export async function run(): Promise<Figure[]> {
  const nodeIds = Array.from({ length: scaled(500, 5) }, (_, i) => demoNodeId(`bench-validator-${i}`));
  // The config as an operator writes it; the payload and the declared cost both come from it.
  const config = loadConfig({
    env: {},
    cwd: '/nonexistent',
    file: { jobs: { validators: { nodeIds, addresses: [] } } },
  });
  const payload = validatorsPayload(config.jobs.validators!);
  const batches = pendingBatches(payload);
  const sim = await startSimulatorProcess({ seed: 9, apiKeys: benchApiKeys }, T0);
  const dirs = scratch('validators');
  let n = 0;

  /** Every node's pages and every pending batch with plain fetch. */
  async function baselineWalk(
    write: (v: Validator[], p: PendingReward[]) => void,
  ): Promise<{ nodePages: number; pendingPages: number; pendingCounts: number[] }> {
    let requests = 0;
    const walk = async <T>(first: string, key: string, onPage: (items: T[]) => void) => {
      let token: string | undefined;
      do {
        const res = await fetch(token ? `${first}&pageToken=${token}` : first, benchFetchInit);
        requests++;
        if (!res.ok) throw new Error(`baseline fetch: ${res.status} ${await res.text()}`);
        const body = (await res.json()) as Record<string, unknown> & { nextPageToken?: string };
        onPage(body[key] as T[]);
        token = body.nextPageToken;
      } while (token);
    };
    for (const nodeId of nodeIds) {
      await walk<Validator>(
        `${sim.url}/v1/networks/mainnet/validators/${nodeId}?pageSize=${PAGE}&sortOrder=desc`,
        'validators',
        (items) => write(items, []),
      );
    }
    const nodePages = requests;
    const pendingCounts: number[] = [];
    for (const { kind, ids } of batches) {
      let count = 0;
      await walk<PendingReward>(
        `${sim.url}/v1/networks/mainnet/rewards:listPending?${kind}=${ids.join(',')}&pageSize=100`,
        'pendingRewards',
        (items) => {
          count += items.length;
          write([], items);
        },
      );
      pendingCounts.push(count);
    }
    return { nodePages, pendingPages: requests - nodePages, pendingCounts };
  }

  const baseline = async (): Promise<Cost & { pages: Awaited<ReturnType<typeof baselineWalk>> }> => {
    const path = dirs.path(`baseline-${n++}.db`);
    const store = await openStore(storeLocation(path));
    const db = rawSqlite(store);
    const columns = columnsOf(tables.validations);
    const insert = db.prepare(
      `INSERT OR IGNORE INTO validations (${columns.map(([, c]) => c).join(',')}) VALUES (${columns.map(() => '?').join(',')})`,
    );
    const insertPending = db.prepare(
      `INSERT OR IGNORE INTO pending_rewards (network, tx_hash, reward_type, node_id, addresses, amount_staked,
         start_timestamp, end_timestamp, progress, estimated_amount, asset_id, staking_type, first_seen_at, last_seen_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const seenAt = new Date().toISOString();
    const writePage = db.transaction((vs: Validator[], ps: PendingReward[]) => {
      for (const v of vs) {
        const row = validationRow(v, 'mainnet', seenAt) as Record<string, unknown>;
        insert.run(columns.map(([key]) => row[key] ?? null));
      }
      for (const p of ps) {
        insertPending.run([
          'mainnet',
          p.txHash,
          p.rewardType,
          p.nodeId,
          JSON.stringify(p.addresses),
          p.amountStaked,
          p.startTimestamp,
          p.endTimestamp,
          p.progress,
          p.estimatedReward.amount,
          p.estimatedReward.assetId,
          'fixed',
          seenAt,
          seenAt,
        ]);
      }
    });
    let pages: Awaited<ReturnType<typeof baselineWalk>> = {
      nodePages: 0,
      pendingPages: 0,
      pendingCounts: [],
    };
    const c = await cost(async () => {
      pages = await baselineWalk(writePage);
    });
    await store.close();
    removeDatabase(path);
    return { ...c, pages };
  };

  const collector = async () => {
    const path = dirs.path(`collector-${n++}.db`);
    const deps = await collectorDeps(sim.url, path);
    let first: Awaited<ReturnType<typeof runHandler>> | undefined;
    const c = await cost(async () => {
      first = await runHandler('validators', validators, payload, deps);
    });
    if (first?.status !== 'succeeded') throw first?.error ?? new Error('validators run failed');
    const idle = await runHandler('validators', validators, payload, deps);
    if (idle.status !== 'succeeded') throw idle.error;
    await deps.close();
    removeDatabase(path);
    return { ...c, first, idle };
  };

  try {
    await baselineWalk(() => undefined); // warm-up
    const base: Awaited<ReturnType<typeof baseline>>[] = [];
    const ours: Awaited<ReturnType<typeof collector>>[] = [];
    for (let i = 0; i < benchOptions().runs; i++) {
      base.push(await baseline());
      ours.push(await collector());
    }
    // The declared minimum: the job's steady count of node pages (one per node id) and, for the
    // pending rewards, `pendingPages` of what each batch held (the declared steady count is one page
    // per batch, the fewest; a batch of 85 node ids with over 100 pending rewards takes more). It
    // must lie within the declared steady and worst counts, and be what the baseline walked.
    const declared = validatorsJob.cost(config)!;
    const { nodePages, pendingPages: walkedPending, pendingCounts } = base[0]!.pages;
    const pending = pendingCounts.reduce((sum, count) => sum + pendingPages(count, payload.maxPages), 0);
    const total = (calls: typeof declared.steady) => Object.values(calls).reduce((a, b) => a + (b ?? 0), 0);
    const minimum = {
      requests: (declared.steady.validatorDetails ?? 0) + pending,
      computeUnits:
        (declared.steady.validatorDetails ?? 0) * endpoints.validatorDetails.computeUnits +
        pending * endpoints.pendingRewards.computeUnits,
    };
    if (
      minimum.requests !== nodePages + walkedPending ||
      minimum.requests < total(declared.steady) ||
      minimum.requests > total(declared.worst)
    ) {
      throw new Error(
        `validators bench: declared minimum ${minimum.requests} (steady ${total(declared.steady)}, worst ${total(declared.worst)}) is not the ${nodePages + walkedPending} pages walked`,
      );
    }
    const o = ours[0]!;
    const label = `${nodeIds.length} node ids, ${batches.length} pending-rewards batches (${pending} pages)`;
    const note = `declared: steady ${total(declared.steady)}, worst ${total(declared.worst)} requests; ${pendingCounts.reduce((a, b) => a + b, 0)} pending rewards`;
    const counted = (id: string, what: string, run: 'first' | 'idle') => [
      figure({
        id: `validators.${id}.requests`,
        title: `validators job, ${label}: requests of ${what}`,
        unit: 'requests',
        value: o[run].requests,
        baseline: minimum.requests,
        baselineLabel: 'declared: one page per node id + one per 100 pending rewards of each batch',
        goal: { max: 1.0 },
        note,
      }),
      figure({
        id: `validators.${id}.compute-units`,
        title: `validators job: compute units of ${what}`,
        unit: 'CU',
        value: o[run].computeUnits,
        baseline: minimum.computeUnits,
        baselineLabel: 'those pages × their compute units',
        goal: { max: 1.0 },
      }),
    ];
    return [
      ...counted('first-run', 'the first run', 'first'),
      ...counted('idle', 'a run with nothing new', 'idle'),
      ...costFigures({
        id: 'validators.time',
        title: `validators job, first run of ${nodeIds.length} node ids`,
        value: medianCost(ours),
        baseline: medianCost(base),
        baselineLabel: 'plain fetch + JSON.parse + raw prepared inserts of the same pages, sequential',
        goal: { max: 1.2 },
      }),
    ];
  } finally {
    await sim.close();
    dirs.cleanup();
  }
}
