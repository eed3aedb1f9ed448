/**
 * Ingest into PostgreSQL (issue 10): the rows of figure 1 (200,000 transactions of the same
 * simulator, in pages of 100, as the collector's client parses them; fetched once before the
 * measurements, so that only the writes are timed) written on the same server in the same run:
 *
 * - by the collector: the transactions job's own walk (`syncNewestFirst` over `transactionStream`),
 *   one transaction per page holding the stream's lock, the cursor compared and moved, the page
 *   written by `upsertTransactions` (its summary count, its change detection), into a migrated schema;
 * - by the baseline: a raw `pg` multi-row INSERT of the same rows (`rawTransactionRow`, as figure 1's
 *   baseline) per page, one transaction per page, into a plain table of the same columns and primary
 *   key. Goal ≤ 1.2;
 * - by COPY … FROM STDIN of all the rows at once into such a table (the floor; informative);
 * - and, to tell the schema's cost from the collector's, by the same raw INSERT into a table with the
 *   collector table's indexes too (informative).
 *
 * Wall time, CPU time of this process, and bytes of WAL the server wrote (pg_current_wal_lsn before
 * and after: server-wide, so another client of the server writing meanwhile counts in; the least of
 * the runs is reported). Beside them, the CPU time of the server's backends that served each side
 * (/proc of the pids pg_stat_activity lists under the schema's application_name: the server runs on
 * this machine), the steadiest of the measures on a shared machine. Every measurement gets a schema
 * of its own in database `test`, dropped after it, and starts after a CHECKPOINT.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { storeLocation } from '../../src/config/index.js';
import { openStore, tables } from '../../src/store/index.js';
import type { Page, Transaction } from '../../src/upstream/index.js';
import { processCpuMs, startSimulatorProcess } from '../../test/support/sim-process.js';
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
  type BenchSchema,
  benchApiKeys,
  benchSchema,
  collectorDeps,
  columnNames,
  rawTransactionRow,
  walkFromMemory,
  withPostgres,
} from '../support.js';

const T0 = Date.UTC(2025, 5, 15, 12);
const PAGE = 100;

/** In the schema's order, which `rawTransactionRow` follows. */
const columns = columnNames(tables.transactions);
const columnList = columns.map((c) => `"${c}"`).join(',');

interface Measured extends Cost {
  rows: number;
  /** CPU time of the server's backends of this side's connections, ms. */
  serverCpuMs: number;
  /** pg_total_relation_size of the table written (its indexes included). */
  tableBytes: number;
}

export async function run(): Promise<Figure[]> {
  const pageCount = Math.max(2, Math.round(scaled(200_000) / PAGE));
  const total = pageCount * PAGE;
  const pages = await fetchPages(pageCount);
  if (pages.reduce((n, p) => n + p.items.length, 0) !== total) throw new Error(`expected ${total} rows`);

  // The collector's migrated table, the template of the baselines' tables.
  const template = await benchSchema('template');
  try {
    await (await openStore(storeLocation(template.url))).close();

    const sides = {
      collector: (slice: Page<Transaction>[]) => collector(slice),
      insert: (slice: Page<Transaction>[]) => rawInsert(slice, template.name, 'plain'),
      indexed: (slice: Page<Transaction>[]) => rawInsert(slice, template.name, 'indexed'),
      copy: (slice: Page<Transaction>[]) => copyAll(slice, template.name),
    };
    type Side = keyof typeof sides;
    const names = Object.keys(sides) as Side[];
    // Warm-up: JIT, the server's caches, on a tenth of the pages.
    for (const side of names) await sides[side](pages.slice(0, Math.max(1, pageCount / 10)));
    const results: Record<Side, Measured[]> = { collector: [], insert: [], indexed: [], copy: [] };
    for (let i = 0; i < benchOptions().runs; i++) {
      // Rotate the order, so that a noisy moment (another client of the server) hits every side.
      for (let j = 0; j < names.length; j++) {
        const side = names[(i + j) % names.length]!;
        const r = await sides[side](pages);
        if (r.rows !== total) throw new Error(`${side}: expected ${total} rows, got ${r.rows}`);
        results[side].push(r);
      }
    }
    // WAL is counted server-wide: another client of the server only adds to it, so the least of the
    // runs is the closest to this side's own.
    const of = (side: Side): Cost => ({
      ...medianCost(results[side]),
      bytesWritten: Math.min(...results[side].map((r) => r.bytesWritten)),
    });
    const serverCpu = (side: Side) => median(results[side].map((r) => r.serverCpuMs));
    const labels: Record<Side, string> = {
      collector: 'collector',
      insert: 'raw INSERT',
      indexed: 'raw INSERT, indexed table',
      copy: 'COPY',
    };
    const sideNote = (side: Side) =>
      `${labels[side]} ${Math.round(total / (of(side).wallMs / 1000)).toLocaleString('en')} rows/s, server CPU ${Math.round(
        serverCpu(side),
      )} ms, table ${(median(results[side].map((r) => r.tableBytes)) / 2 ** 20).toFixed(1)} MiB`;
    const c = of('collector');
    return [
      ...costFigures({
        id: 'ingest-postgres.transactions',
        title: `PostgreSQL: transactions, ${total} rows in pages of ${PAGE}, a page with its cursor per transaction`,
        value: c,
        baseline: of('insert'),
        baselineLabel: 'raw pg multi-row INSERT per page, a transaction per page, plain table',
        goal: { max: 1.2 },
        note: `bytes: WAL the server wrote (server-wide, the least of the runs); server CPU: the side's backends; ${names.map(sideNote).join('; ')}`,
      }),
      figure({
        id: 'ingest-postgres.transactions.server-cpu',
        title: 'PostgreSQL: the same: CPU time of the server backends that served each side',
        unit: 'ms',
        value: serverCpu('collector'),
        baseline: serverCpu('insert'),
        baselineLabel: 'raw pg multi-row INSERT per page, a transaction per page, plain table',
      }),
      ...costFigures({
        id: 'ingest-postgres.transactions.vs-indexed-insert',
        title: 'PostgreSQL: the same, against a raw INSERT into a table with the same indexes',
        value: c,
        baseline: of('indexed'),
        baselineLabel:
          'raw pg multi-row INSERT per page into a table with the collector table’s 4 secondary indexes',
      }),
      ...costFigures({
        id: 'ingest-postgres.transactions.vs-copy',
        title: 'PostgreSQL: the same, against COPY of all the rows',
        value: c,
        baseline: of('copy'),
        baselineLabel: 'COPY … FROM STDIN of all rows, one statement, plain table',
      }),
    ];
  } finally {
    await template.drop();
  }
}

/** The simulator's pages as the collector's client reads them (as figure 1's job does). */
async function fetchPages(pageCount: number): Promise<Page<Transaction>[]> {
  const sim = await startSimulatorProcess(
    { seed: 3, initialTransactions: pageCount * PAGE, apiKeys: benchApiKeys },
    T0,
  );
  const deps = await collectorDeps(sim.url, ':memory:');
  try {
    const pages: Page<Transaction>[] = [];
    let pageToken: string | undefined;
    for (let i = 0; i < pageCount; i++) {
      const page = await deps.client.listLatestTransactions({
        network: 'mainnet',
        pageSize: PAGE,
        pageToken,
      });
      pages.push(page);
      pageToken = page.nextPageToken;
      if (!pageToken) break;
    }
    return pages;
  } finally {
    await deps.close();
    await sim.close();
  }
}

/**
 * Wall time, CPU time of this process, WAL bytes of the server and CPU time of `schema`'s backends
 * (its URL names them) while `fn` runs, after a checkpoint.
 */
async function measure(
  schema: BenchSchema,
  fn: () => Promise<void>,
): Promise<Cost & { serverCpuMs: number }> {
  return withPostgres(async (admin) => {
    await admin.query('CHECKPOINT');
    const backends = async () => {
      const { rows } = await admin.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
        [schema.name],
      );
      return new Map(rows.map((r) => [r.pid, processCpuMs(r.pid)]));
    };
    const lsn = async () =>
      (await admin.query<{ lsn: string }>('SELECT pg_current_wal_lsn() AS lsn')).rows[0]!.lsn;
    const cpuBefore = await backends();
    const walBefore = await lsn();
    const c = await cost(fn);
    const walAfter = await lsn();
    const cpuAfter = await backends();
    const wal = await admin.query<{ bytes: string }>('SELECT pg_wal_lsn_diff($1, $2) AS bytes', [
      walAfter,
      walBefore,
    ]);
    let serverCpuMs = 0;
    for (const [pid, ms] of cpuAfter) serverCpuMs += ms - (cpuBefore.get(pid) ?? 0);
    return { ...c, bytesWritten: Number(wal.rows[0]!.bytes), serverCpuMs };
  });
}

/** The transactions job's walk of the stream, its pages served from memory, into a fresh schema. */
async function collector(pages: Page<Transaction>[]): Promise<Measured> {
  const schema = await benchSchema('collector');
  try {
    const store = await openStore(storeLocation(schema.url));
    try {
      const c = await measure(schema, async () => {
        const result = await walkFromMemory(store, pages, PAGE);
        if (result.superseded || result.pages !== pages.length)
          throw new Error(`walk: ${JSON.stringify(result)}`);
      });
      const { rows, tableBytes } = (await store.get<{ rows: number; tableBytes: number }>(
        `SELECT count(*) AS rows, pg_total_relation_size('transactions') AS "tableBytes" FROM transactions`,
      ))!;
      return { ...c, rows, tableBytes };
    } finally {
      await store.close();
    }
  } finally {
    await schema.drop();
  }
}

/**
 * A fresh schema with a transactions table like the template's: `plain` has its columns and
 * primary key only; `indexed` its indexes too.
 */
async function baselineTable(kind: 'plain' | 'indexed', template: string) {
  const schema = await benchSchema(kind === 'plain' ? 'insert' : 'indexed');
  const client = new pg.Client({ connectionString: schema.url });
  await client.connect();
  await client.query(
    kind === 'plain'
      ? `CREATE TABLE transactions (LIKE ${template}.transactions INCLUDING DEFAULTS INCLUDING CONSTRAINTS, PRIMARY KEY (chain_id, tx_hash))`
      : `CREATE TABLE transactions (LIKE ${template}.transactions INCLUDING ALL)`,
  );
  return {
    schema,
    client,
    /** Rows and size of the table. */
    written: async () => {
      const { rows, bytes } = (
        await client.query<{ rows: string; bytes: string }>(
          `SELECT count(*) AS rows, pg_total_relation_size('transactions') AS bytes FROM transactions`,
        )
      ).rows[0]!;
      return { rows: Number(rows), tableBytes: Number(bytes) };
    },
    close: async () => {
      await client.end();
      await schema.drop();
    },
  };
}

/** One multi-row INSERT per page, in a transaction of its own. */
async function rawInsert(
  pages: Page<Transaction>[],
  template: string,
  kind: 'plain' | 'indexed',
): Promise<Measured> {
  const table = await baselineTable(kind, template);
  try {
    const texts = new Map<number, string>();
    const insertText = (n: number) => {
      let text = texts.get(n);
      if (!text) {
        const rows = Array.from(
          { length: n },
          (_, r) => `(${columns.map((_c, i) => `$${r * columns.length + i + 1}`).join(',')})`,
        );
        text = `INSERT INTO transactions (${columnList}) VALUES ${rows.join(',')}`;
        texts.set(n, text);
      }
      return text;
    };
    const seenAt = new Date().toISOString();
    const c = await measure(table.schema, async () => {
      for (const page of pages) {
        const values: unknown[] = [];
        for (const tx of page.items) values.push(...rawTransactionRow(tx, seenAt));
        await table.client.query('BEGIN');
        await table.client.query(insertText(page.items.length), values);
        await table.client.query('COMMIT');
      }
    });
    return { ...c, ...(await table.written()) };
  } finally {
    await table.close();
  }
}

/** All rows in one COPY … FROM STDIN (text format), one statement. */
async function copyAll(pages: Page<Transaction>[], template: string): Promise<Measured> {
  const table = await baselineTable('plain', template);
  try {
    const seenAt = new Date().toISOString();
    const c = await measure(table.schema, async () => {
      const stream = table.client.query(copyFrom(`COPY transactions (${columnList}) FROM STDIN`));
      await pipeline(
        Readable.from(
          (function* () {
            for (const page of pages) {
              let chunk = '';
              for (const tx of page.items)
                chunk += `${rawTransactionRow(tx, seenAt).map(copyText).join('\t')}\n`;
              yield chunk;
            }
          })(),
        ),
        stream,
      );
    });
    return { ...c, ...(await table.written()) };
  } finally {
    await table.close();
  }
}

/** A value in COPY's text format. */
function copyText(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  return String(value).replace(/[\\\t\n\r]/g, (ch) =>
    ch === '\\' ? '\\\\' : ch === '\t' ? '\\t' : ch === '\n' ? '\\n' : '\\r',
  );
}
