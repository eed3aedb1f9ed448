/**
 * Figure 1, ingest at scale: the transactions job collecting 200,000 transactions (2,000 pages of
 * 100) from the simulator over loopback, against a baseline that fetches and parses the same pages
 * with plain `fetch` and inserts the same rows with one raw prepared statement per page. The
 * simulator runs in a process of its own, so each side's CPU is its own; its share is the time it
 * takes to serve the pages alone (raw GETs, nothing parsed) over the collector's wall time.
 */
import { transactionStream, transactions } from '../../jobs/transactions.js';
import { storeLocation } from '../../src/config/index.js';
import { type JobHandler, runHandler } from '../../src/kernel/index.js';
import { openStore, tables } from '../../src/store/index.js';
import { syncNewestFirst } from '../../src/sync/newest-first.js';
import type { Transaction } from '../../src/upstream/index.js';
import { startSimulatorProcess } from '../../test/support/sim-process.js';
import {
  benchOptions,
  type Cost,
  cost,
  costFigures,
  type Figure,
  figure,
  median,
  medianCost,
  scaled,
} from '../lib.js';
import {
  benchApiKeys,
  benchFetchInit,
  collectorDeps,
  columnNames,
  rawPageWriter,
  rawTransactionRow,
  removeDatabase,
  scratch,
} from '../support.js';

const T0 = Date.UTC(2025, 5, 15, 12);
const PAGE = 100;
/** Pages per commit in the commit-batching measurement. */
const COMMIT_BATCH = 10;

/** In the schema's order, which `rawTransactionRow` follows. */
const columns = columnNames(tables.transactions);

export async function run(): Promise<Figure[]> {
  const pages = Math.max(2, Math.round(scaled(200_000) / PAGE));
  const total = pages * PAGE;
  const sim = await startSimulatorProcess({ seed: 3, initialTransactions: total, apiKeys: benchApiKeys }, T0);
  const dirs = scratch('ingest');
  const firstPage = `${sim.url}/v1/transactions?network=mainnet&pageSize=${PAGE}`;
  const payload = {
    networks: ['mainnet' as const],
    statuses: ['all' as const],
    pageSize: PAGE,
    maxPages: pages,
  };
  let n = 0;

  /** Fetch and parse every page with plain fetch; `write` gets each page's items. */
  async function baselineWalk(write: (items: Transaction[]) => void): Promise<number> {
    let token: string | undefined;
    let rows = 0;
    for (let i = 0; i < pages; i++) {
      const res = await fetch(token ? `${firstPage}&pageToken=${token}` : firstPage, benchFetchInit);
      if (!res.ok) throw new Error(`baseline fetch: ${res.status} ${await res.text()}`);
      const body = (await res.json()) as { transactions: Transaction[]; nextPageToken?: string };
      write(body.transactions);
      rows += body.transactions.length;
      token = body.nextPageToken;
      if (!token) break;
    }
    return rows;
  }

  /** The baseline; `pagesPerCommit` > 1 measures the commit-batching trade-off on the same writer. */
  const baseline = async (pagesPerCommit = 1): Promise<Cost & { rows: number }> => {
    const path = dirs.path(`baseline-${n++}.db`);
    const store = await openStore(storeLocation(path));
    const writePage = rawPageWriter(store, 'transactions', columns);
    const seenAt = new Date().toISOString();
    let rows = 0;
    let batch: unknown[][] = [];
    let inBatch = 0;
    const c = await cost(async () => {
      rows = await baselineWalk((items) => {
        for (const tx of items) batch.push(rawTransactionRow(tx, seenAt));
        if (++inBatch < pagesPerCommit) return;
        writePage(batch);
        batch = [];
        inBatch = 0;
      });
      if (batch.length) writePage(batch);
    });
    await store.close();
    removeDatabase(path);
    return { ...c, rows };
  };

  /** The real job (prefetching), or the same stream walked without prefetch. */
  const collector = async (prefetch = true): Promise<Cost & { rows: number; simCpuMs: number }> => {
    const path = dirs.path(`collector-${n++}.db`);
    const deps = await collectorDeps(sim.url, path);
    const handler: JobHandler<typeof payload> = prefetch
      ? transactions
      : async (p, ctx) => {
          await syncNewestFirst(ctx, { ...transactionStream(p, ctx, 'mainnet', 'all'), prefetch: false });
        };
    let rows = 0;
    const simBefore = sim.cpuMs();
    const c = await cost(async () => {
      const summary = await runHandler('transactions', handler, payload, deps);
      if (summary.status !== 'succeeded') throw summary.error;
      rows = summary.rowsWritten;
    });
    const simCpuMs = sim.cpuMs() - simBefore;
    await deps.close();
    removeDatabase(path);
    return { ...c, rows, simCpuMs };
  };

  /** The simulator alone: every page fetched, its body read as text, nothing parsed or written. */
  const serveOnly = async (): Promise<number> => {
    const t = performance.now();
    let token: string | undefined;
    for (let i = 0; i < pages; i++) {
      const res = await fetch(token ? `${firstPage}&pageToken=${token}` : firstPage, benchFetchInit);
      const text = await res.text();
      if (!res.ok) throw new Error(`serve: ${res.status} ${text}`);
      token = /"nextPageToken":"([^"]+)"/.exec(text)?.[1];
      if (!token) break;
    }
    return performance.now() - t;
  };

  try {
    // Warm-up: JIT, connections, the simulator's caches.
    await baselineWalk(() => undefined).catch(() => undefined);
    const base: (Cost & { rows: number })[] = [];
    const batched: (Cost & { rows: number })[] = [];
    const ours: (Cost & { rows: number; simCpuMs: number })[] = [];
    const sequential: (Cost & { rows: number; simCpuMs: number })[] = [];
    const serve: number[] = [];
    for (let i = 0; i < benchOptions().runs; i++) {
      // Interleave the sides so that a noisy moment hits all of them.
      base.push(await baseline());
      ours.push(await collector());
      sequential.push(await collector(false));
      batched.push(await baseline(COMMIT_BATCH));
      serve.push(await serveOnly());
    }
    for (const r of [...base, ...ours, ...sequential, ...batched]) {
      if (r.rows !== total) throw new Error(`expected ${total} rows, got ${r.rows}`);
    }
    const b = medianCost(base);
    const o = medianCost(ours);
    const seq = medianCost(sequential);
    const batch = medianCost(batched);
    const servedMs = median(serve);
    const label = 'plain fetch + JSON.parse + raw prepared insert, sequential';
    return [
      ...costFigures({
        id: 'ingest.transactions',
        title: `transactions job, ${total} rows in pages of ${PAGE}`,
        value: o,
        baseline: b,
        baselineLabel: label,
        goal: { max: 1.0 },
        note: `collector ${Math.round(total / (o.wallMs / 1000))} rows/s, baseline ${Math.round(total / (b.wallMs / 1000))} rows/s; goals: ≤ 1.2 × the sequential baseline, ≤ 1.0 with the next page fetched during the write`,
      }),
      ...costFigures({
        id: 'ingest.transactions.sequential',
        title: 'transactions job without prefetch',
        value: seq,
        baseline: b,
        baselineLabel: label,
        goal: { max: 1.2 },
      }),
      ...costFigures({
        id: 'ingest.commit-batching',
        title: `baseline committing every ${COMMIT_BATCH} pages instead of every page (a trade-off, not adopted)`,
        value: batch,
        baseline: b,
        baselineLabel: 'the same baseline, a commit per page',
      }),
      figure({
        id: 'ingest.transactions.rows-per-second',
        title: 'transactions job: rows per second',
        unit: 'rows/s',
        value: total / (o.wallMs / 1000),
        baseline: total / (b.wallMs / 1000),
        baselineLabel: label,
        goal: { min: 1.0 },
      }),
      figure({
        id: 'ingest.simulator.share',
        title: 'simulator: serving the same pages alone (raw GET, nothing parsed)',
        unit: 'ms',
        value: servedMs,
        baseline: o.wallMs,
        baselineLabel: 'collector wall time',
        note: `simulator CPU during a collector run: ${Math.round(median(ours.map((r) => r.simCpuMs)))} ms`,
      }),
    ];
  } finally {
    await sim.close();
    dirs.cleanup();
  }
}
