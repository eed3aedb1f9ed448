/**
 * `npm run bench`: each figure is a ratio against a baseline measured in the same run, on the same
 * machine, so the numbers compare across machines. Prints a table; writes bench/results.json.
 *
 * 1. Simulator vs collector, per 100-item page of /v1/transactions: the simulator must serve a page
 *    in well under the time the collector spends on it (parse, validate, write), so it never
 *    dominates what the other figures measure.
 * 2. Ingest: the collector's page upsert (prepared multi-row upsert with its cursor, in one
 *    transaction) against a raw better-sqlite3 insert of the same rows.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { createManualClock } from '../src/clock.js';
import { startSimulator } from '../src/simulator/index.js';
import { openStore, transactionRow, upsertTransactions, writeCursor } from '../src/store/index.js';
import { createDataApiClient, type Transaction } from '../src/upstream/index.js';
import { tempDir } from '../test/support/tmp.js';

const PAGES = 200;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function time(fn: () => Promise<unknown> | unknown): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

const clock = createManualClock(Date.UTC(2025, 5, 15, 12));
const sim = await startSimulator({ port: 0, seed: 3, clock, txPerMinute: 60_000 });
const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
const client = createDataApiClient({ baseUrl: sim.url, clock, dispatcher });
const { dir, cleanup } = tempDir('glacier-bench-');

try {
  // Warm up both sides (JIT, connections, prepared statements).
  const url = `${sim.url}/v1/transactions?network=mainnet&pageSize=100`;
  for (let i = 0; i < 20; i++) await (await request(url, { dispatcher })).body.text();

  // 1. Serving a page: a raw GET of the body, nothing parsed.
  const serve: number[] = [];
  for (let i = 0; i < PAGES; i++)
    serve.push(await time(async () => (await request(url, { dispatcher })).body.text()));

  // The collector's share of a page: the typed call (parse + validation) and the write with its cursor.
  const store = openStore(join(dir, 'collector.db'));
  const fetchAndWrite: number[] = [];
  const writeOnly: number[] = [];
  const pages: Transaction[][] = [];
  let token: string | undefined;
  for (let i = 0; i < PAGES; i++) {
    let page: Awaited<ReturnType<typeof client.listLatestTransactions>> | undefined;
    const total = await time(async () => {
      page = await client.listLatestTransactions({ network: 'mainnet', pageSize: 100, pageToken: token });
      const items = page.items;
      writeOnly.push(
        await time(() =>
          store.transaction(() => {
            upsertTransactions(store, 'mainnet', items, '2025-06-15T12:00:00.000Z');
            writeCursor(
              store,
              'bench',
              'mainnet',
              { pageToken: page?.nextPageToken },
              '2025-06-15T12:00:00.000Z',
            );
          }),
        ),
      );
    });
    fetchAndWrite.push(total);
    pages.push(page!.items);
    token = page!.nextPageToken;
    if (!token) break;
  }
  store.close();

  // 2. Ingest against raw better-sqlite3: the same rows, one prepared single-row INSERT per row in
  // one transaction per page, into a fresh database with the same schema.
  const rawStore = openStore(join(dir, 'raw.db'));
  const cols = Object.keys(transactionRow(pages[0]![0]!, 'mainnet', ''));
  const snake = (k: string) => k.replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`).replace('_ms', '_ms');
  const names = cols.map((k) => (k === 'blockTimestampMs' ? 'block_timestamp_ms' : snake(k)));
  const insert = rawStore.sqlite.prepare(
    `INSERT OR IGNORE INTO transactions (${names.join(',')}) VALUES (${names.map(() => '?').join(',')})`,
  );
  const rawPage = rawStore.sqlite.transaction((rows: Record<string, unknown>[]) => {
    for (const r of rows) insert.run(cols.map((k) => r[k] ?? null));
  });
  const raw: number[] = [];
  for (const items of pages) {
    raw.push(
      await time(() => rawPage(items.map((t) => transactionRow(t, 'mainnet', '2025-06-15T12:00:00.000Z')))),
    );
  }
  rawStore.close();
  const ours: number[] = [];
  const oursStore = openStore(join(dir, 'ours.db'));
  for (const items of pages) {
    ours.push(
      await time(() =>
        oursStore.transaction(() => {
          upsertTransactions(oursStore, 'mainnet', items, '2025-06-15T12:00:00.000Z');
          writeCursor(oursStore, 'bench', 'mainnet', { n: 1 }, '2025-06-15T12:00:00.000Z');
        }),
      ),
    );
  }
  const reread: number[] = [];
  for (const items of pages) {
    reread.push(
      await time(() =>
        oursStore.transaction(() =>
          upsertTransactions(oursStore, 'mainnet', items, '2025-06-15T12:00:01.000Z'),
        ),
      ),
    );
  }
  oursStore.close();

  const simMs = median(serve);
  const collectorMs = median(fetchAndWrite) - simMs;
  const results = [
    {
      figure: 'simulator: serve a 100-item page (raw GET)',
      value: `${simMs.toFixed(3)} ms`,
      baseline: `collector's own work on that page ${collectorMs.toFixed(3)} ms`,
      ratio: simMs / median(fetchAndWrite),
      reads: 'share of a collected page spent in the simulator (goal: well under 1)',
    },
    {
      figure: 'ingest: page upsert + cursor, new rows',
      value: `${median(ours).toFixed(3)} ms/page`,
      baseline: `raw better-sqlite3 insert ${median(raw).toFixed(3)} ms/page`,
      ratio: median(ours) / median(raw),
      reads: 'collector / raw (1 = as fast as a plain insert)',
    },
    {
      figure: 'ingest: re-reading known rows',
      value: `${median(reread).toFixed(3)} ms/page`,
      baseline: `raw better-sqlite3 insert ${median(raw).toFixed(3)} ms/page`,
      ratio: median(reread) / median(raw),
      reads: 'collector / raw',
    },
  ];
  console.log(`\nglacier-collector bench: ${pages.length} pages of 100 transactions, medians\n`);
  console.table(results.map((r) => ({ ...r, ratio: r.ratio.toFixed(3) })));
  writeFileSync(
    new URL('./results.json', import.meta.url),
    `${JSON.stringify({ at: new Date().toISOString(), pages: pages.length, results }, null, 2)}\n`,
  );
} finally {
  await dispatcher.destroy();
  await sim.close();
  cleanup();
}
