/**
 * Where the time of the PostgreSQL ingest goes (not a figure: `npm run bench` does not run it).
 * `npx tsx bench/profile-postgres.ts [pages=500] [rounds=3]`, on the bench's PostgreSQL:
 *
 * 1. the collector's page transactions (the transactions job's walk, pages from memory) on fresh rows,
 *    then on the same rows again, with the client-side time of each kind of statement per page;
 * 2. whole walks of alternatives, each on a fresh schema, interleaved over `rounds`: wall ms per page
 *    and CPU ms per page of the server's backends. The raw INSERTs are figure ingest-postgres's
 *    baselines; "suggested" is a sketch of a leaner page transaction (BEGIN and the stream's lock in
 *    one message, the cursor compare-and-swapped by one UPDATE, the upsert RETURNING which rows it
 *    inserted so that neither the summary's lookup nor the touch UPDATE is needed on new rows, one
 *    summary statement for every chain of the page), with the upsert unnamed and as a named
 *    (prepared once per connection) statement.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { openStore } from '../src/store/index.js';
import type { Page, Transaction } from '../src/upstream/index.js';
import { processCpuMs, startSimulatorProcess } from '../test/support/sim-process.js';
import { benchApiKeys, benchSchema, collectorDeps, rawTransactionRow, walkFromMemory } from './support.js';

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
  if (t.startsWith('SELECT chain_id AS')) return 'SELECT stored keys (summary)';
  if (t.startsWith('INSERT INTO transaction_summaries')) return 'INSERT transaction_summaries';
  if (t.startsWith('SELECT pg_advisory_xact_lock')) return 'advisory lock';
  if (t.startsWith('SELECT cursor')) return 'SELECT cursor';
  if (t.startsWith('INSERT INTO "sync_state"')) return 'INSERT sync_state';
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
  const store = await openStore(schema.url);
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
await (await openStore(template.url)).close();
const columns = (
  await withPg(template.url, (c) =>
    c.query<{ name: string }>(
      "SELECT attname AS name FROM pg_attribute WHERE attrelid = 'transactions'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
    ),
  )
).rows.map((r) => r.name);
const upsertText = texts.get('INSERT transactions ON CONFLICT')!;
const perPageParams = (page: Page<Transaction>, seenAt: string) =>
  page.items.flatMap((tx) => rawTransactionRow(tx, seenAt));
const insertText = `INSERT INTO transactions (${columns.map((c) => `"${c}"`).join(',')}) VALUES ${Array.from(
  { length: 100 },
  (_, r) => `(${columns.map((_c, i) => `$${r * columns.length + i + 1}`).join(',')})`,
).join(',')}`;

async function withPg<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

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
    if (setup === 'migrated') await (await openStore(s.url)).close();
    return await withPg(s.url, async (c) => {
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
    });
  } finally {
    await s.drop();
  }
}

const cursorKey = 'cursor:transactions/mainnet/all';
const summaryText = (n: number) =>
  `INSERT INTO transaction_summaries (network, chain_id, transactions, newest_block_timestamp) VALUES ${Array.from(
    { length: n },
    (_, i) => `($${i * 4 + 1}, $${i * 4 + 2}, $${i * 4 + 3}, $${i * 4 + 4})`,
  ).join(
    ',',
  )} ON CONFLICT (network, chain_id) DO UPDATE SET transactions = transaction_summaries.transactions + excluded.transactions, newest_block_timestamp = greatest(transaction_summaries.newest_block_timestamp, excluded.newest_block_timestamp)`;

/** The suggested page transaction: 5 round trips for a page of new rows. */
const lean =
  (prepared: boolean) => async (c: pg.Client, page: Page<Transaction>, i: number, seenAt: string) => {
    // BEGIN and the stream's lock in one simple-protocol message (no parameters: the key is a literal).
    await c.query(`BEGIN; SELECT pg_advisory_xact_lock(hashtextextended('${cursorKey}', 0))`);
    const next = JSON.stringify({ highWater: { ts: i, id: 'x' } });
    if (i === 0) {
      await c.query(
        'INSERT INTO sync_state (job, scope, cursor, updated_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
        ['transactions', 'mainnet/all', next, seenAt],
      );
    } else {
      const moved = await c.query(
        'UPDATE sync_state SET cursor = $1, updated_at = $2 WHERE job = $3 AND scope = $4 AND cursor = $5::jsonb',
        [next, seenAt, 'transactions', 'mainnet/all', JSON.stringify({ highWater: { ts: i - 1, id: 'x' } })],
      );
      if (moved.rowCount !== 1) throw new Error('cursor moved');
    }
    const returned = await c.query<{ chain_id: string; tx_hash: string; inserted: boolean }>({
      ...(prepared && { name: 'upsert-transactions-100' }),
      text: `${upsertText} RETURNING chain_id, tx_hash, (xmax = 0) AS inserted`,
      values: perPageParams(page, seenAt),
    });
    const fresh = new Map<string, { n: number; newest: number }>();
    for (const tx of page.items) {
      const chain = fresh.get(tx.chainId) ?? { n: 0, newest: 0 };
      chain.newest = Math.max(chain.newest, tx.blockTimestamp);
      fresh.set(tx.chainId, chain);
    }
    for (const r of returned.rows) if (r.inserted) fresh.get(r.chain_id)!.n++;
    const touched = page.items.length - returned.rows.length;
    if (touched > 0) throw new Error('not measured here: a page of new rows');
    const chains = [...fresh].sort((a, b) => a[0].localeCompare(b[0]));
    await c.query(
      summaryText(chains.length),
      chains.flatMap(([chain, f]) => ['mainnet', chain, f.n, f.newest]),
    );
    await c.query('COMMIT');
  };

/**
 * Further: the cursor's compare-and-swap, the upsert and the summaries in one statement (data-modifying
 * CTEs), so that a page costs the raw INSERT's three round trips. A cursor another walk moved leaves
 * `moved` 0: the caller rolls back.
 */
const upsertParams = columns.length * 100;
const oneStatementText = (first: boolean) => {
  const n = (k: number) => `$${upsertParams + k}`;
  const cur = first
    ? `INSERT INTO sync_state (job, scope, cursor, updated_at) VALUES (${n(3)}, ${n(4)}, ${n(1)}, ${n(2)}) ON CONFLICT DO NOTHING RETURNING 1`
    : `UPDATE sync_state SET cursor = ${n(1)}, updated_at = ${n(2)} WHERE job = ${n(3)} AND scope = ${n(4)} AND cursor = ${n(5)}::jsonb RETURNING 1`;
  return `WITH cur AS (${cur}),
    ins AS (${upsertText} RETURNING chain_id, (xmax = 0) AS inserted),
    counted AS (SELECT chain_id, count(*) FILTER (WHERE inserted) AS fresh FROM ins GROUP BY chain_id),
    summ AS (
      INSERT INTO transaction_summaries (network, chain_id, transactions, newest_block_timestamp)
      SELECT 'mainnet', p.chain_id, coalesce(c.fresh, 0), p.newest
      FROM unnest(${n(6)}::text[], ${n(7)}::bigint[]) AS p(chain_id, newest) LEFT JOIN counted c USING (chain_id)
      ORDER BY p.chain_id
      ON CONFLICT (network, chain_id) DO UPDATE SET
        transactions = transaction_summaries.transactions + excluded.transactions,
        newest_block_timestamp = greatest(transaction_summaries.newest_block_timestamp, excluded.newest_block_timestamp))
    SELECT (SELECT count(*) FROM cur) AS moved, (SELECT count(*) FROM ins) AS written, ${n(5)}::jsonb IS NULL AS first`;
};
const oneStatement = async (c: pg.Client, page: Page<Transaction>, i: number, seenAt: string) => {
  await c.query(`BEGIN; SELECT pg_advisory_xact_lock(hashtextextended('${cursorKey}', 0))`);
  const newest = new Map<string, number>();
  for (const tx of page.items)
    newest.set(tx.chainId, Math.max(newest.get(tx.chainId) ?? 0, tx.blockTimestamp));
  const chains = [...newest].sort((a, b) => a[0].localeCompare(b[0]));
  const r = await c.query<{ moved: string }>({
    name: i === 0 ? 'page-first' : 'page',
    text: oneStatementText(i === 0),
    values: [
      ...perPageParams(page, seenAt),
      JSON.stringify({ highWater: { ts: i, id: 'x' } }),
      seenAt,
      'transactions',
      'mainnet/all',
      i === 0 ? null : JSON.stringify({ highWater: { ts: i - 1, id: 'x' } }),
      chains.map(([chain]) => chain),
      chains.map(([, ts]) => ts),
    ],
  });
  if (Number(r.rows[0]!.moved) !== 1) {
    await c.query('ROLLBACK');
    throw new Error('cursor moved');
  }
  await c.query('COMMIT');
};

const results = new Map<string, number[]>();
/** CPU of the variant's server backends, ms per page. */
const server = new Map<string, number[]>();
const rounds = Number(process.argv[3] ?? 3);
for (let round = 0; round < rounds; round++) {
  const runs = [
    () =>
      variant('collector page transaction (syncNewestFirst)', 'migrated', {
        whole: async (url) => {
          const store = await openStore(url);
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
        await c.query(upsertText, perPageParams(page, seenAt));
        await c.query('COMMIT');
      }),
    () => variant('suggested page transaction', 'migrated', lean(false)),
    () => variant('suggested, upsert as named statement', 'migrated', lean(true)),
    () => variant('further: one statement (CTEs), named', 'migrated', oneStatement),
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
