/**
 * Copies one store into another (`migrate-store`: SQLite into PostgreSQL when a user outgrows one
 * host, or back). The caller opens both stores (`openStore` migrates them to the current schema),
 * so their tables and columns are the same; values cross over as they come back (sql.ts: exact
 * decimals and ISO times as text, JSON as its text), which either database accepts for its types.
 *
 * Every data table is read in batches in primary-key order (keyset pagination: each batch starts
 * after the last key of the one before, one index range, never OFFSET), and each batch is written
 * in one target transaction with `INSERT … ON CONFLICT (primary key) DO NOTHING`: a rerun, or a run
 * after an interrupted one, inserts only what is missing and never writes a row twice. A row the
 * target already holds is kept as it is (not updated from the source).
 *
 * The cursors (`sync_state`) are copied last, and the target is marked a copy of the source,
 * unfinished (store-meta.ts), before its first row and until its summaries are rebuilt: a copy
 * killed half way leaves a target whose cursors are not ahead of its rows, and that `start`, `run`
 * and `status` name as unfinished. A target that holds data already and is not an earlier copy of
 * the same source is refused (`merge` says to copy into it anyway): its rows would win every key
 * they share with the source's (job_runs ids, cursors), silently.
 *
 * Summaries are not copied (drizzle/<dialect>/*_metrics_summaries.sql): the target's AFTER INSERT
 * triggers count rewards, reward prices and addresses and usage buckets as they arrive (and only
 * the rows really inserted: a row skipped by ON CONFLICT DO NOTHING fires no row trigger); the
 * others are recomputed from the copied rows once every table is done.
 */

import { getTableColumns, getTableName, is } from 'drizzle-orm';
import { getTableConfig, SQLiteInteger, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import { DatabaseWriteError, databaseProblem } from './errors.js';
import {
  exportFileCounts,
  exportStatusCounts,
  exportSummaries,
  jobSummaries,
  rewardSummaries,
  rewardValueSummaries,
  transactionSummaries,
  usageSummaries,
} from './schema.js';
import { planUpsert, type Sql, type Store } from './sql.js';
import { beginCopy, ensureStoreId, finishCopy, readCopiedFrom } from './store-meta.js';
import { rebuildTransactionSummaries, refreshExportSummaries } from './summaries.js';
import { schemaTables, selectList } from './tables.js';

export interface CopyStoreOptions {
  /** Rows read per batch, and written per target transaction. @defaultValue 1000 */
  batchSize?: number;
  /** Told after each batch of a table (and once for an empty table). */
  onProgress?: (progress: TableCopyProgress) => void;
  /**
   * Copy into a target that holds data and is not an earlier copy of this source: its rows win
   * every key they share with the source's. @defaultValue false: refused (`TargetNotEmptyError`)
   */
  merge?: boolean;
  /** The time the copy began, ISO-8601 UTC, as the target's mark records it. @defaultValue now */
  startedAt?: string;
}

export interface TableCopyProgress {
  table: string;
  /** Rows in the source table when its copy began. */
  total: number;
  /** Rows read from the source so far. */
  read: number;
  /** Of those, rows the target did not hold yet. */
  inserted: number;
  /** The last batch of the table. */
  done: boolean;
}

export interface TableCopy {
  table: string;
  read: number;
  inserted: number;
}

export interface SummaryRefresh {
  table: string;
  /** `triggers`: counted by the target's triggers as rows arrived; `rebuilt`: recomputed after the copy. */
  by: 'triggers' | 'rebuilt';
}

export interface CopyStoreResult {
  /** The data tables, in schema order. */
  tables: TableCopy[];
  summaries: SummaryRefresh[];
}

/** The side of a copy that failed: the message names it, its location and what was being done. */
export class StoreCopyError extends Error {
  override readonly name = 'StoreCopyError';
  constructor(
    readonly side: 'source' | 'target',
    readonly location: string,
    what: string,
    cause: unknown,
  ) {
    // The store's own error says "cannot write the database …", even of a read: its cause says what.
    const problem =
      cause instanceof DatabaseWriteError ? databaseProblem(cause.cause) : databaseProblem(cause);
    super(`${side} ${location}: ${what}: ${problem}`, { cause });
  }
}

/** The target holds data and is not an earlier copy of the source: nothing was written to it. */
export class TargetNotEmptyError extends Error {
  override readonly name = 'TargetNotEmptyError';
  constructor(
    readonly location: string,
    /** The tables that hold rows, in copy order. */
    readonly tables: readonly string[],
    /** Whether the target is a copy of another store (else it was never copied into). */
    readonly copyOfAnother: boolean,
  ) {
    const shown = tables.length > 4 ? `${tables.slice(0, 4).join(', ')}, …` : tables.join(', ');
    super(
      `target ${location}: holds data already (${shown}) and is ${copyOfAnother ? 'a copy of another store' : 'not a copy of this source'}: copying into it would keep its rows wherever a key is in both (job_runs ids, the cursors of sync_state) and drop the source's without a word. Copy into an empty database, or pass --merge to copy into this one anyway`,
    );
  }
}

/** Summaries the target's AFTER INSERT triggers keep as the rows they count are inserted. */
const COUNTED_BY_TRIGGERS = [rewardSummaries, rewardValueSummaries, usageSummaries];

/**
 * Summaries recomputed from the copied rows: transactions are counted by their writer on SQLite (on
 * PostgreSQL by a trigger, which the recount agrees with), job summaries by a trigger on a run's
 * finish (an UPDATE: a copied run is inserted finished), export summaries after each exports run.
 */
const REBUILT: { tables: SQLiteTable[]; rebuild: (sql: Sql) => Promise<void> }[] = [
  { tables: [transactionSummaries], rebuild: rebuildTransactionSummaries },
  { tables: [jobSummaries], rebuild: rebuildJobSummaries },
  { tables: [exportSummaries, exportStatusCounts, exportFileCounts], rebuild: refreshExportSummaries },
];

const SUMMARIES = new Set([...COUNTED_BY_TRIGGERS, ...REBUILT.flatMap((r) => r.tables)].map(getTableName));

/** Not copied: the store's own facts (its id, its copy marks) are the target's. */
const OWN = new Set(['store_meta']);

/** The cursors, copied after every row they follow. */
const CURSORS = 'sync_state';

/**
 * The tables `copyStore` copies, in its order: every table of the schema but the summaries and
 * store_meta, the cursors (`sync_state`) last.
 */
export function copiedTables(): SQLiteTable[] {
  const tables = schemaTables().filter(
    (table) => !SUMMARIES.has(getTableName(table)) && !OWN.has(getTableName(table)),
  );
  return [
    ...tables.filter((t) => getTableName(t) !== CURSORS),
    ...tables.filter((t) => getTableName(t) === CURSORS),
  ];
}

/** Copies every data table of `from` into `to` (both open and migrated), then refreshes the summaries. */
export async function copyStore(
  from: Store,
  to: Store,
  options: CopyStoreOptions = {},
): Promise<CopyStoreResult> {
  const batchSize = options.batchSize ?? 1000;
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
  const sourceId = await on('source', from, 'reading its id', () => ensureStoreId(from));
  if (!options.merge) {
    const copiedFrom = await on('target', to, 'reading what it was copied from', () => readCopiedFrom(to));
    if (copiedFrom !== sourceId) {
      const held = await on('target', to, 'looking for rows', () => tablesWithRows(to));
      if (held.length > 0) throw new TargetNotEmptyError(to.location, held, copiedFrom !== undefined);
    }
  }
  const startedAt = options.startedAt ?? new Date().toISOString();
  await on('target', to, 'marking the copy unfinished', () =>
    beginCopy(to, sourceId, { source: from.location, startedAt }),
  );
  const tables: TableCopy[] = [];
  for (const table of copiedTables()) {
    tables.push(await copyTable(from, to, table, batchSize, options.onProgress));
  }
  const summaries: SummaryRefresh[] = COUNTED_BY_TRIGGERS.map((t) => ({
    table: getTableName(t),
    by: 'triggers',
  }));
  for (const { tables: rebuilt, rebuild } of REBUILT) {
    const names = rebuilt.map(getTableName);
    await on('target', to, `rebuilding ${names.join(', ')}`, () => rebuild(to));
    for (const table of names) summaries.push({ table, by: 'rebuilt' });
  }
  await on('target', to, 'marking the copy finished', () => finishCopy(to));
  return { tables, summaries };
}

/** The copied tables that hold a row, in copy order. */
async function tablesWithRows(store: Store): Promise<string[]> {
  const held: string[] = [];
  for (const table of copiedTables()) {
    const name = getTableName(table);
    if (await store.get(`SELECT 1 AS one FROM "${name}" LIMIT 1`)) held.push(name);
  }
  return held;
}

async function copyTable(
  from: Store,
  to: Store,
  table: SQLiteTable,
  batchSize: number,
  onProgress: CopyStoreOptions['onProgress'],
): Promise<TableCopy> {
  const name = getTableName(table);
  const key = primaryKey(table);
  const insert = planUpsert(table, { key: key.map((k) => k.prop) as never, update: [] });
  const select = `SELECT ${selectList(table)} FROM "${name}"`;
  const order = `ORDER BY ${key.map((k) => `"${k.name}"`).join(', ')} LIMIT ?`;
  // A row-value comparison: one range of the primary key's index on both databases.
  const after =
    key.length === 1
      ? `WHERE "${key[0]!.name}" > ?`
      : `WHERE (${key.map((k) => `"${k.name}"`).join(', ')}) > (${key.map(() => '?').join(', ')})`;

  const total = await on('source', from, `counting ${name}`, async () =>
    Number((await from.get<{ n: number }>(`SELECT COUNT(*) AS n FROM "${name}"`))?.n ?? 0),
  );
  let last: unknown[] | undefined;
  let read = 0;
  let inserted = 0;
  for (;;) {
    const params = last ? [...last, batchSize] : [batchSize];
    const rows = await on('source', from, `reading ${name}`, () =>
      from.all<Record<string, unknown>>(`${select} ${last ? after : ''} ${order}`, params),
    );
    if (rows.length > 0) {
      inserted += await on('target', to, `writing ${name}`, () =>
        to.transaction((tx) => tx.upsert(insert, rows as never)),
      );
      read += rows.length;
      const end = rows[rows.length - 1]!;
      last = key.map((k) => end[k.prop]);
    }
    const done = rows.length < batchSize;
    onProgress?.({ table: name, total, read, inserted, done });
    if (done) break;
  }
  if (key.length === 1 && key[0]!.autoIncrement) {
    // Every time, not only when rows were inserted: an interrupted run may have inserted them.
    await on('target', to, `moving the ${name} ids on`, () => to.afterCopyWithIds(name, key[0]!.name));
  }
  return { table: name, read, inserted };
}

/** The primary key's columns, in the key's order (its index's). */
function primaryKey(table: SQLiteTable): { prop: string; name: string; autoIncrement: boolean }[] {
  const propOf = new Map(Object.entries(getTableColumns(table)).map(([prop, column]) => [column.name, prop]));
  const config = getTableConfig(table);
  const columns = config.primaryKeys[0]?.columns ?? config.columns.filter((c) => c.primary);
  if (columns.length === 0) throw new Error(`${config.name} has no primary key to copy it by`);
  return columns.map((c) => ({
    prop: propOf.get(c.name)!,
    name: c.name,
    autoIncrement: is(c, SQLiteInteger) && c.autoIncrement,
  }));
}

/**
 * job_summaries recomputed from job_runs: per job, its newest finished run (the newest finish; of
 * runs finished at once, the last one recorded, as the finish trigger's `>=` keeps) and its newest
 * success. Portable SQL; one index range per job.
 */
async function rebuildJobSummaries(sql: Sql): Promise<void> {
  await sql.transaction(async (tx) => {
    await tx.exec(`
      DELETE FROM job_summaries;
      INSERT INTO job_summaries (job, last_status, last_started_at, last_finished_at, last_success_at)
      SELECT r.job, r.status, r.started_at, r.finished_at,
        (SELECT max(s.finished_at) FROM job_runs s WHERE s.job = r.job AND s.status = 'succeeded')
      FROM (SELECT DISTINCT job FROM job_runs) j
      JOIN job_runs r ON r.id = (
        SELECT l.id FROM job_runs l
        WHERE l.job = j.job AND l.status IN ('succeeded', 'failed') AND l.finished_at IS NOT NULL
        ORDER BY l.finished_at DESC, l.id DESC LIMIT 1);
    `);
  });
}

/** Runs `work` on one side of the copy; its failure names that side, its location and `what`. */
async function on<T>(
  side: StoreCopyError['side'],
  store: Store,
  what: string,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (cause) {
    throw new StoreCopyError(side, store.location, what, cause);
  }
}
