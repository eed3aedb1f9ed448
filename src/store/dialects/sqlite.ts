/**
 * SQLite's statements (better-sqlite3 under the store's async seam): the hot paths run prepared
 * single-row statements on the connection directly, inside the caller's transaction. A multi-row
 * `INSERT … VALUES (…),(…) ON CONFLICT` needs a statement journal (it may have to undo part of
 * itself), which spills to a temporary file and writes about half as much again as the rows; a
 * single-row statement needs none, and the per-call cost of better-sqlite3 (about a microsecond) is
 * far below the write itself.
 */
import { accessSync, constants } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import type { Sql } from '../sql.js';
import { sqliteConnection } from '../sqlite.js';
import type { UpsertPlan } from '../upsert.js';
import type { DialectStatements } from './index.js';

interface CompiledUpsert {
  upsert: Database.Statement;
  touch: Database.Statement | undefined;
  /** Reused for every row: better-sqlite3 copies the values when it binds them. */
  params: unknown[];
  touchParams: unknown[];
  touchProps: string[];
}

/** Prepared once per connection and plan. */
const compiled = new WeakMap<Database.Database, WeakMap<UpsertPlan, CompiledUpsert>>();

function compile(db: Database.Database, plan: UpsertPlan): CompiledUpsert {
  let perDb = compiled.get(db);
  if (!perDb) {
    perDb = new WeakMap();
    compiled.set(db, perDb);
  }
  let found = perDb.get(plan);
  if (!found) {
    const row = `(${plan.props.map(() => '?').join(',')})`;
    const touchProps = plan.touch ? [plan.touch.prop, ...plan.key] : [];
    found = {
      upsert: db.prepare(`INSERT INTO ${plan.tableName} (${plan.columnList}) VALUES ${row} ${plan.conflict}`),
      touch: plan.touch
        ? db.prepare(
            `UPDATE ${plan.tableName} SET ${plan.touch.name} = ? WHERE ${plan.keyNames.map((k) => `${k} = ?`).join(' AND ')}`,
          )
        : undefined,
      params: new Array(plan.props.length),
      touchParams: new Array(touchProps.length),
      touchProps,
    };
    perDb.set(plan, found);
  }
  return found;
}

function connectionOf(sql: Sql): Database.Database {
  const db = sqliteConnection(sql);
  if (!db) throw new Error('a SQLite statement was given a store of another dialect');
  return db;
}

const insertStatements = new WeakMap<Database.Database, Map<string, Database.Statement>>();

export const sqliteStatements: DialectStatements = {
  async upsert(sql, plan, rows) {
    const { upsert, touch, params, touchParams, touchProps } = compile(connectionOf(sql), plan);
    let changes = 0;
    for (const record of rows) {
      for (let i = 0; i < plan.props.length; i++) params[i] = record[plan.props[i]!] ?? null;
      const written = upsert.run(params).changes;
      changes += written;
      if (written === 0 && touch) {
        for (let i = 0; i < touchProps.length; i++) touchParams[i] = record[touchProps[i]!] ?? null;
        touch.run(touchParams);
      }
    }
    return changes;
  },

  async insertIgnoringConflicts(sql, table, columns, rows) {
    const db = connectionOf(sql);
    let perDb = insertStatements.get(db);
    if (!perDb) {
      perDb = new Map();
      insertStatements.set(db, perDb);
    }
    const text = `INSERT INTO ${table} (${columns.join(',')}) VALUES (${columns.map(() => '?').join(',')}) ON CONFLICT DO NOTHING`;
    let insert = perDb.get(text);
    if (!insert) {
      insert = db.prepare(text);
      perDb.set(text, insert);
    }
    let added = 0;
    for (const r of rows) added += insert.run(r).changes;
    return added;
  },

  inList: (expr, values) => ({
    clause: `${expr} IN (SELECT value FROM json_each(?))`,
    param: JSON.stringify(values),
  }),

  // BEGIN IMMEDIATE serializes every writer: the stored cursor cannot move between read and write.
  compareAndSwapCursor: undefined,

  triggersKeepTransactionSummaries: false,

  async checkWritable(store) {
    if (store.location === ':memory:') return;
    // The file, and its folder for the WAL and journal files.
    accessSync(store.location, constants.R_OK | constants.W_OK);
    accessSync(dirname(store.location), constants.W_OK);
  },

  async hasTable(sql, name) {
    return (
      (await sql.get("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name])) !== undefined
    );
  },

  // The dbstat table reads every page: `status` only, never a scrape; empty without it.
  async tableSizes(sql) {
    const sizes = new Map<string, number>();
    try {
      const rows = await sql.all<{ name: string; bytes: number }>(
        `SELECT coalesce(m.tbl_name, d.name) AS name, sum(d.pgsize) AS bytes
         FROM dbstat d LEFT JOIN sqlite_master m ON m.name = d.name GROUP BY 1`,
      );
      for (const r of rows) sizes.set(r.name, Number(r.bytes));
    } catch {
      // The SQLite library was built without dbstat.
    }
    return sizes;
  },

  // json_each of NULL is no row.
  sumRowsRemoved: (where) =>
    `SELECT e.key AS "table", sum(e.value) AS rows FROM job_runs, json_each(job_runs.rows_removed) e
     WHERE ${where} GROUP BY e.key`,

  deleteBatch: (table, where) =>
    `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${where} LIMIT ?)`,

  // `PRAGMA optimize`, then an incremental vacuum (returns free pages to the file system when the
  // database was created with auto_vacuum = INCREMENTAL, as the collector creates it; older files
  // reuse their free pages, and shrink only with `VACUUM`, see docs/operations.md), then a WAL
  // checkpoint.
  async reclaimSpace(store) {
    await store.exec('PRAGMA optimize');
    // At most this many pages (4 KiB each) per statement; a few statements free a large prune.
    for (let i = 0; i < 64; i++) {
      const before = await store.get<{ freelist_count: number }>('PRAGMA freelist_count');
      if (!before || before.freelist_count === 0) break;
      await store.exec('PRAGMA incremental_vacuum(2000)');
      const after = await store.get<{ freelist_count: number }>('PRAGMA freelist_count');
      if (!after || after.freelist_count >= before.freelist_count) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await store.exec('PRAGMA wal_checkpoint(PASSIVE)');
  },

  // An INTEGER PRIMARY KEY continues from its largest value by itself.
  async afterCopyWithIds() {},
};
