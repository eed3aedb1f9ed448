/**
 * Where the time of the PostgreSQL ingest goes (not a figure: `npm run bench` does not run it).
 * `npx tsx bench/profile-postgres.ts [pages=500] [rounds=3]`, on the bench's PostgreSQL:
 *
 * 1. the collector's page transactions (the transactions job's walk, pages from memory) on fresh rows,
 *    then on the same rows again, with the client-side time of each kind of statement per page;
 * 2. whole walks, each on a fresh schema, interleaved over `rounds`: wall ms per page and CPU ms per
 *    page of the server's backends, of the collector and of figure ingest-postgres's raw INSERTs
 *    (unnamed, as the figure sends them, and named), and of the collector's upsert statement alone.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { storeLocation } from '../src/config/index.js';
import { openStore } from '../src/store/index.js';
import type { Page, Transaction } from '../src/upstream/index.js';
import { processCpuMs, startSimulatorProcess } from '../test/support/sim-process.js';
import {
  benchApiKeys,
  benchSchema,
  collectorDeps,
  rawTransactionRow,
  walkFromMemory,
  withPostgres,
} from './support.js';

const pageCount = Number(process.argv[2] ?? 500);
const sim = await startSimulatorProcess(
  { seed: 3, initialTransactions: pageCount * 100, apiKeys: benchApiKeys },
  Date.UTC(2025, 5, 15, 12),
);
const deps = await collectorDeps(sim.url, ':memory:');
const pages: Page<Transaction>[] = [];
let pageToken: string | undefined;
for (let i = 0; i < pageCount; i++) {
  const page = await deps.client.listLatestTransactions({ network: 'mainnet', pageSize: 100, pageToken });
  pages.push(page);
  pageToken = page.nextPageToken;
}
await deps.close();
await sim.close();
const chains = new Set(pages.flatMap((p) => p.items.map((t) => t.chainId)));
console.log(`${pages.length} pages, chains ${[...chains].join(',')}`);

const kinds = new Map<string, { n: number; ms: number }>();
/** The first text of each kind, as the collector sent it. */
const texts = new Map<string, string>();
let enabled = false;
const kindOf = (text: string) => {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.startsWith('INSERT INTO "transactions"')) return 'INSERT transactions ON CONFLICT';
  if (t.startsWith('UPDATE "transactions"')) return 'UPDATE touch last_seen_at';
  if (t.startsWith('BEGIN')) return 'BEGIN and the advisory lock';
  if (t.startsWith('UPDATE sync_state') || t.startsWith('INSERT INTO sync_state'))
    return 'cursor compare-and-swap';
  return t.slice(0, 30);
};
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const text = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string })?.text ?? '?');
  const t = performance.now();
  const result = (original as (...a: unknown[]) => unknown).apply(this, args);
  if (enabled && result && typeof (result as Promise<unknown>).then === 'function') {
    void (result as Promise<unknown>).then(
      () => {
        const k = kindOf(text);
        if (!texts.has(k)) texts.set(k, text);
        const e = kinds.get(k) ?? { n: 0, ms: 0 };
        e.n++;
        e.ms += performance.now() - t;
        kinds.set(k, e);
      },
      () => undefined,
    );
  }
  return result;
} as never;

async function walk(label: string, store: Awaited<ReturnType<typeof openStore>>, quiet = false) {
  kinds.clear();
  enabled = true;
  const t = performance.now();
  await walkFromMemory(store, pages, 100);
  const total = performance.now() - t;
  enabled = false;
  if (quiet) return;
  console.log(`\n${label}: ${total.toFixed(0)} ms, ${(total / pages.length).toFixed(2)} ms/page`);
  let sum = 0;
  for (const [k, v] of [...kinds].sort((a, b) => b[1].ms - a[1].ms)) {
    sum += v.ms;
    console.log(
      `  ${k.padEnd(34)} ${String(v.n).padStart(6)}  ${(v.ms / pages.length).toFixed(3)} ms/page  ${(v.ms / v.n).toFixed(3)} ms each`,
    );
  }
  console.log(
    `  ${'(outside statements)'.padEnd(34)}         ${((total - sum) / pages.length).toFixed(3)} ms/page`,
  );
}

const schema = await benchSchema('profile');
try {
  const store = await openStore(storeLocation(schema.url));
  await walk('fresh rows', store);
  // The same pages again: a new walk from the top (the cursor reset), every row only touched.
  await store.run('DELETE FROM sync_state');
  await walk('rows seen again (touched)', store);
  await store.close();
} finally {
  await schema.drop();
}

// ---- Alternatives, each on a fresh schema, timed per page (ms/page, whole walk / pages).
const template = await benchSchema('template');
await (await openStore(storeLocation(template.url))).close();
const columns = (
  await withPostgres(
    (c) =>
      c.query<{ name: string }>(
        "SELECT attname AS name FROM pg_attribute WHERE attrelid = 'transactions'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
      ),
    template.url,
  )
).rows.map((r) => r.name);
const upsertText = texts.get('INSERT transactions ON CONFLICT')!;
const perPageParams = (page: Page<Transaction>, seenAt: string) =>
  page.items.flatMap((tx) => rawTransactionRow(tx, seenAt));
const insertText = `INSERT INTO transactions (${columns.map((c) => `"${c}"`).join(',')}) VALUES ${Array.from(
  { length: 100 },
  (_, r) => `(${columns.map((_c, i) => `$${r * columns.length + i + 1}`).join(',')})`,
).join(',')}`;

type Setup = 'plain' | 'indexed' | 'migrated';
type PerPage = (c: pg.Client, page: Page<Transaction>, i: number, seenAt: string) => Promise<void>;
/** ms per page of a whole walk, on a fresh schema: `perPage` on one client, or `whole` given the URL. */
async function variant(
  label: string,
  setup: Setup,
  perPage: PerPage | { whole: (url: string) => Promise<() => Promise<void>> },
) {
  const s = await benchSchema('alt');
  try {
    if (setup === 'migrated') await (await openStore(storeLocation(s.url))).close();
    return await withPostgres(async (c) => {
      if (setup === 'plain') {
        await c.query(
          `CREATE TABLE transactions (LIKE ${template.name}.transactions INCLUDING DEFAULTS INCLUDING CONSTRAINTS, PRIMARY KEY (chain_id, tx_hash))`,
        );
      } else if (setup === 'indexed') {
        await c.query(`CREATE TABLE transactions (LIKE ${template.name}.transactions INCLUDING ALL)`);
      }
      await c.query('CHECKPOINT');
      const seenAt = new Date().toISOString();
      const backends = async () => {
        const { rows } = await c.query<{ pid: number }>(
          'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
          [s.name],
        );
        return new Map(rows.map((r) => [r.pid, processCpuMs(r.pid)]));
      };
      const cpuBefore = await backends();
      const t = performance.now();
      let close: () => Promise<void> = async () => undefined;
      if (typeof perPage === 'function') {
        for (let i = 0; i < pages.length; i++) await perPage(c, pages[i]!, i, seenAt);
      } else {
        close = await perPage.whole(s.url);
      }
      const ms = (performance.now() - t) / pages.length;
      let serverMs = 0;
      for (const [pid, cpu] of await backends()) serverMs += cpu - (cpuBefore.get(pid) ?? 0);
      await close();
      const n = (await c.query<{ n: string }>('SELECT count(*) AS n FROM transactions')).rows[0]!.n;
      if (Number(n) !== pages.length * 100) throw new Error(`${label}: ${n} rows`);
      return { label, ms, serverMs: serverMs / pages.length };
    }, s.url);
  } finally {
    await s.drop();
  }
}

const results = new Map<string, number[]>();
/** CPU of the variant's server backends, ms per page. */
const server = new Map<string, number[]>();
const rounds = Number(process.argv[3] ?? 3);
for (let round = 0; round < rounds; round++) {
  const runs = [
    () =>
      variant('collector page transaction (syncNewestFirst)', 'migrated', {
        whole: async (url) => {
          const store = await openStore(storeLocation(url));
          await walk('', store, true);
          return () => store.close();
        },
      }),
    () =>
      variant('raw INSERT, plain table', 'plain', async (c, page, _i, seenAt) => {
        await c.query('BEGIN');
        await c.query(insertText, perPageParams(page, seenAt));
        await c.query('COMMIT');
      }),
    () =>
      variant('raw INSERT, indexed table', 'indexed', async (c, page, _i, seenAt) => {
        await c.query('BEGIN');
        await c.query(insertText, perPageParams(page, seenAt));
        await c.query('COMMIT');
      }),
    () =>
      variant('raw INSERT, indexed, named statement', 'indexed', async (c, page, _i, seenAt) => {
        await c.query('BEGIN');
        await c.query({ name: 'raw-insert-100', text: insertText, values: perPageParams(page, seenAt) });
        await c.query('COMMIT');
      }),
    () =>
      variant('collector upsert statement alone', 'migrated', async (c, page, _i, seenAt) => {
        await c.query('BEGIN');
        // One array per column, as the collector sends them.
        const rows = page.items.map((tx) => rawTransactionRow(tx, seenAt));
        await c.query({
          name: 'upsert',
          text: upsertText,
          values: columns.map((_c, i) => rows.map((r) => r[i])),
        });
        await c.query('COMMIT');
      }),
  ];
  for (const r of runs) {
    const { label, ms, serverMs } = await r();
    results.set(label, [...(results.get(label) ?? []), ms]);
    server.set(label, [...(server.get(label) ?? []), serverMs]);
  }
}
console.log('\nalternatives (wall ms/page: median, then each round; server CPU ms/page, median):');
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [label, ms] of results) {
  console.log(
    `  ${label.padEnd(46)} ${med(ms).toFixed(2).padStart(6)}   ${ms.map((m) => m.toFixed(2)).join('  ')}   server ${med(server.get(label)!).toFixed(2)}`,
  );
}
await template.drop();
