/**
 * The overlap of the next page's fetch with the current page's write, where it matters: an upstream
 * with a real round trip (the simulator adds 20 ms to every answer, a fast internet path to the
 * API). 30,000 transactions; the transactions job against the same stream walked without prefetch.
 * Over loopback without latency (figure 1) the simulator's share is too small for the overlap to
 * show through the disk's noise.
 */
import { transactionStream, transactions } from '../../jobs/transactions.js';
import { type JobHandler, runHandler } from '../../src/kernel/index.js';
import { syncNewestFirst } from '../../src/sync/newest-first.js';
import { startSimulatorProcess } from '../../test/support/sim-process.js';
import { benchOptions, type Cost, cost, costFigures, type Figure, medianCost, scaled } from '../lib.js';
import { benchApiKeys, collectorDeps, removeDatabase, scratch } from '../support.js';

const T0 = Date.UTC(2025, 5, 15, 12);
const LATENCY_MS = 20;

export async function run(): Promise<Figure[]> {
  const pages = Math.max(2, Math.round(scaled(30_000) / 100));
  const sim = await startSimulatorProcess(
    {
      seed: 4,
      initialTransactions: pages * 100,
      apiKeys: benchApiKeys,
      faults: { all: { latencyMs: LATENCY_MS } },
    },
    T0,
  );
  const dirs = scratch('prefetch');
  const payload = {
    networks: ['mainnet' as const],
    statuses: ['all' as const],
    pageSize: 100,
    maxPages: pages,
  };
  let n = 0;
  const collect = async (prefetch: boolean): Promise<Cost> => {
    const path = dirs.path(`c-${n++}.db`);
    const deps = await collectorDeps(sim.url, path);
    const handler: JobHandler<typeof payload> = prefetch
      ? transactions
      : async (p, ctx) => {
          await syncNewestFirst(ctx, { ...transactionStream(p, ctx, 'mainnet', 'all'), prefetch: false });
        };
    const c = await cost(async () => {
      const summary = await runHandler('transactions', handler, payload, deps);
      if (summary.status !== 'succeeded' || summary.rowsWritten !== pages * 100) {
        throw summary.error ?? new Error(`wrote ${summary.rowsWritten} rows`);
      }
    });
    await deps.close();
    removeDatabase(path);
    return c;
  };
  try {
    await collect(true); // warm-up
    const withPrefetch: Cost[] = [];
    const without: Cost[] = [];
    for (let i = 0; i < benchOptions().runs; i++) {
      without.push(await collect(false));
      withPrefetch.push(await collect(true));
    }
    return costFigures({
      id: 'ingest.prefetch-with-latency',
      title: `transactions job, ${pages * 100} rows, upstream answering in ${LATENCY_MS} ms`,
      value: medianCost(withPrefetch),
      baseline: medianCost(without),
      baselineLabel: 'the same stream without prefetch',
      goal: { max: 1.0 },
    });
  } finally {
    await sim.close();
    dirs.cleanup();
  }
}
