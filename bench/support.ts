/**
 * What several figure modules share: a fresh database (a SQLite file, or a PostgreSQL schema of its
 * own), the collector's real parts wired to a simulator URL (as `run <job>` builds them), the raw
 * baseline writer and the raw rows it writes.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { getTableColumns } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import pg from 'pg';
import { Agent } from 'undici';
import { transactionStream } from '../jobs/transactions.js';
import { storeLocation } from '../src/config/index.js';
import { createJobContext, type RunDeps } from '../src/kernel/index.js';
import { systemClock } from '../src/runtime/clock.js';
import { createLogger } from '../src/runtime/logger.js';
import { openSqliteConnection, openStore, type Store } from '../src/store/index.js';
import { syncNewestFirst } from '../src/sync/newest-first.js';
import { createDataApiClient, type Page, type Transaction } from '../src/upstream/index.js';
import { tempDir } from '../test/support/tmp.js';

/**
 * The simulator's clock is frozen in the benchmarks (the data does not grow under a measurement), so
 * its per-minute window never resets: the bench's key has an unlimited minute budget.
 */
export const BENCH_API_KEY = 'glacier-bench-key';
export const benchApiKeys = { [BENCH_API_KEY]: { tier: 'Pro' as const, computeUnitsPerMinute: 1e12 } };
export const benchFetchInit: RequestInit = { headers: { 'x-glacier-api-key': BENCH_API_KEY } };

/** A scratch directory for the databases of one module, removed by `cleanup`. */
export function scratch(prefix: string): { path: (name: string) => string; cleanup: () => void } {
  const { dir, cleanup } = tempDir(`glacier-bench-${prefix}-`);
  return { path: (name) => join(dir, name), cleanup };
}

/**
 * The collector's parts against `baseUrl`, writing to a fresh migrated database at `location` (a
 * SQLite path or a PostgreSQL URL).
 */
export async function collectorDeps(
  baseUrl: string,
  location: string,
): Promise<RunDeps & { store: Store; close(): Promise<void> }> {
  const store = await openStore(storeLocation(location));
  const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
  const client = createDataApiClient({ baseUrl, apiKey: BENCH_API_KEY, dispatcher, clock: systemClock });
  const log = createLogger({ level: 'silent', pretty: false });
  return {
    client,
    store,
    log,
    clock: systemClock,
    close: async () => {
      await store.close();
      await dispatcher.destroy();
    },
  };
}

const rawConnections = new WeakMap<Store, Database.Database>();

/**
 * A better-sqlite3 connection of its own on a SQLite store's file, set up as the store's, for the raw
 * baselines (which are SQLite's); one per store, left to the process's exit.
 */
export function rawSqlite(store: Store): Database.Database {
  if (store.dialect !== 'sqlite' || store.location === ':memory:') {
    throw new Error('a raw better-sqlite3 baseline needs a SQLite file');
  }
  let db = rawConnections.get(store);
  if (!db) {
    db = openSqliteConnection(store.location);
    rawConnections.set(store, db);
  }
  return db;
}

/**
 * The baseline writer: one raw better-sqlite3 prepared INSERT, run once per row inside one
 * transaction per page, into the same schema (no cursor, no change detection).
 */
export function rawPageWriter(store: Store, table: string, columns: readonly string[]) {
  const db = rawSqlite(store);
  const insert = db.prepare(
    `INSERT INTO ${table} (${columns.join(',')}) VALUES (${columns.map(() => '?').join(',')})`,
  );
  return db.transaction((rows: readonly unknown[][]) => {
    for (const row of rows) insert.run(row);
  });
}

/** Removes a database file with its WAL and shared-memory files (the runs are large). */
export function removeDatabase(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}

/** A table's column names in its schema order (the order raw rows follow). */
export function columnNames(table: SQLiteTable): string[] {
  return Object.values(getTableColumns(table)).map((c) => c.name);
}

/**
 * A transaction as the raw baselines write it: its values in the order of the transactions table's
 * columns (`columnNames(tables.transactions)`), as the collector's `transactionRow` maps them.
 */
export function rawTransactionRow(tx: Transaction, seenAt: string): unknown[] {
  return [
    tx.chainId,
    tx.txHash,
    'mainnet',
    tx.blockNumber,
    tx.blockTimestamp,
    tx.blockTimestampMilliseconds ?? null,
    tx.blockMinDelayExcess ?? null,
    tx.blockHash,
    tx.blockIndex,
    tx.txStatus,
    tx.txType,
    tx.gasLimit,
    tx.gasUsed,
    tx.gasPrice,
    tx.nonce,
    tx.value,
    tx.from.address,
    tx.from.name ?? null,
    tx.from.symbol ?? null,
    tx.from.decimals ?? null,
    tx.from.logoUri ?? null,
    tx.to?.address ?? null,
    tx.to?.name ?? null,
    tx.to?.symbol ?? null,
    tx.to?.decimals ?? null,
    tx.to?.logoUri ?? null,
    tx.method?.callType ?? null,
    tx.method?.methodHash ?? null,
    tx.method?.methodName ?? null,
    seenAt,
    seenAt,
  ];
}

/** The bench's PostgreSQL (the one every development and CI machine runs; `.ci/run` starts it). */
export const BENCH_POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Runs `fn` with a client of its own on the bench's PostgreSQL database (or at `url`: a schema's). */
export async function withPostgres<T>(
  fn: (client: pg.Client) => Promise<T>,
  url = BENCH_POSTGRES_URL,
): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface BenchSchema {
  name: string;
  /** The bench's URL with its connections' search_path set to this schema (and `application_name`). */
  url: string;
  /** Drops the schema with everything in it. */
  drop(): Promise<void>;
}

/**
 * A fresh schema of its own in the bench's PostgreSQL database, for one measurement: its URL sets
 * the search_path (so `openStore(storeLocation(url))` migrates into it) and an `application_name` of its own (so
 * `postgresBackendsCpuMs` finds its connections).
 */
export async function benchSchema(prefix: string): Promise<BenchSchema> {
  const name = `bench_${prefix}_${process.pid}_${randomBytes(3).toString('hex')}`;
  await withPostgres((c) => c.query(`CREATE SCHEMA ${name}`));
  const url = new URL(BENCH_POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${name}`);
  url.searchParams.set('application_name', name);
  return {
    name,
    url: url.toString(),
    drop: () => withPostgres((c) => c.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`)).then(() => undefined),
  };
}

/**
 * The transactions job's walk of the stream (`syncNewestFirst` over `transactionStream`), its
 * pages served from memory: the client is never called.
 */
export function walkFromMemory(store: Store, pages: Page<Transaction>[], pageSize: number) {
  const byToken = new Map<string | undefined, Page<Transaction>>();
  let token: string | undefined;
  for (const page of pages) {
    byToken.set(token, page);
    token = page.nextPageToken;
  }
  const ctx = createJobContext('transactions', {
    client: undefined as never,
    store,
    log: createLogger({ level: 'silent', pretty: false }),
    clock: systemClock,
    signal: new AbortController().signal,
  });
  const payload = {
    networks: ['mainnet' as const],
    statuses: ['all' as const],
    pageSize,
    maxPages: pages.length,
  };
  return syncNewestFirst(ctx, {
    ...transactionStream(payload, ctx, 'mainnet', 'all'),
    fetchPage: async (pageToken) => byToken.get(pageToken)!,
  });
}
