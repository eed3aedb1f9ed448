import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { packageVersion } from '../runtime/version.js';
import { DatabaseOpenError, DatabaseWriteError } from './errors.js';
import {
  type AppliedState,
  CREATE_VERSIONS_TABLE,
  DatabaseNewerError,
  type MigrationListener,
  migrationsFolder,
  pendingMigrations,
  RECORD_VERSION,
  readShippedMigrations,
  SELECT_VERSIONS,
  VERSIONS_TABLE,
} from './migrations.js';
import {
  MAX_CACHED_STATEMENTS,
  type Sql,
  type Store,
  type TransactionOptions,
  type UpsertPlan,
} from './sql.js';

export interface OpenSqliteOptions {
  /** Apply pending migrations from drizzle/sqlite/ (start-up and `migrate`). @defaultValue true */
  migrate?: boolean;
  /** How long a writer waits for another process's lock. @defaultValue 5000 ms */
  busyTimeoutMs?: number;
  /** Told the migrations it is about to apply, before the first (`migrate` prints them, `start` logs them). */
  onMigrations?: MigrationListener | undefined;
}

/**
 * SQLite's page cache per connection, in KiB (`PRAGMA cache_size = -N`): SQLite's own default.
 * better-sqlite3 builds SQLite with 16,000 KiB instead, a cache that fills one page (4 KiB and its
 * header, malloc'd off the JS heap) at a time as the collector touches pages it has not read yet: a
 * database that grows with every run (job_runs, transactions) makes the process's RSS creep for hours
 * before it levels off at 16 MiB more (about 2.3 MiB per 10,000 runs for job_runs alone; see
 * docs/development.md, "The soak"). Pages past the cache come from the operating system's file cache.
 */
export const SQLITE_CACHE_KIB = 2_000;

/**
 * Opens (creating if needed) the SQLite database with WAL and a busy timeout, and migrates it.
 *
 * better-sqlite3 is synchronous and the store's seam is not: a transaction's callback may await
 * between its statements. So that no other work of this process slips into an open transaction
 * (or reads what it has not committed), statements and transactions take turns: while one is open,
 * everything else waits for it; with none open, a statement runs at once. Across processes,
 * SQLite's write lock (BEGIN IMMEDIATE, with the busy timeout) does the same.
 *
 * The hot paths (upserts, the CSV load) run prepared single-row statements on the connection, inside
 * the caller's transaction. A multi-row `INSERT … VALUES (…),(…) ON CONFLICT` needs a statement
 * journal (it may have to undo part of itself), which spills to a temporary file and writes about
 * half as much again as the rows; a single-row statement needs none, and the per-call cost of
 * better-sqlite3 (about a microsecond) is far below the write itself.
 */
/** What `tableSizes` maps of the file: SQLite's own ceiling (SQLITE_MAX_MMAP_SIZE of better-sqlite3's build). */
const DBSTAT_MMAP_BYTES = 0x7fff0000;

export function openSqliteStore(path: string, options: OpenSqliteOptions = {}): Store {
  let db: Database.Database;
  try {
    if (path !== ':memory:') makeFolder(dirname(path));
    db = openSqliteConnection(path, options.busyTimeoutMs);
  } catch (cause) {
    throw new DatabaseOpenError(path, cause);
  }
  if (options.migrate ?? true) {
    try {
      migrateOnce(db, path, options.onMigrations);
    } catch (cause) {
      db.close();
      if (cause instanceof DatabaseNewerError) throw cause;
      throw new DatabaseOpenError(path, cause);
    }
  }

  const statements = new Map<string, Database.Statement>();
  const prepare = (text: string) => {
    let stmt = statements.get(text);
    if (!stmt) {
      stmt = db.prepare(text);
      if (statements.size < MAX_CACHED_STATEMENTS) statements.set(text, stmt);
    }
    return stmt;
  };
  const wrap = <T>(work: () => T): T => {
    try {
      return work();
    } catch (err) {
      // SQLite's own messages ("database or disk is full") do not say which file.
      if (isSqliteError(err)) throw new DatabaseWriteError(path, err);
      throw err;
    }
  };
  const bind = (params: readonly unknown[] | undefined) =>
    params ? params.map((p) => (p === undefined ? null : typeof p === 'boolean' ? Number(p) : p)) : [];
  const compiled = new WeakMap<UpsertPlan, CompiledUpsert>();
  const direct = {
    all: <T>(text: string, params?: readonly unknown[]) => wrap(() => prepare(text).all(bind(params)) as T[]),
    get: <T>(text: string, params?: readonly unknown[]) =>
      wrap(() => prepare(text).get(bind(params)) as T | undefined),
    run: (text: string, params?: readonly unknown[]) => wrap(() => prepare(text).run(bind(params)).changes),
    exec: (script: string) => wrap(() => void db.exec(script)),
    upsert: (plan: UpsertPlan, rows: readonly Record<string, unknown>[]) => {
      let found = compiled.get(plan);
      if (!found) {
        found = compileUpsert(db, plan);
        compiled.set(plan, found);
      }
      const { upsert, touch, params, touchParams, touchProps } = found;
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
    insertIgnoringConflicts: (table: string, columns: readonly string[], rows: readonly unknown[][]) => {
      const insert = prepare(
        `INSERT INTO ${table} (${columns.join(',')}) VALUES (${columns.map(() => '?').join(',')}) ON CONFLICT DO NOTHING`,
      );
      let added = 0;
      for (const r of rows) added += insert.run(r).changes;
      return added;
    },
  };

  /** The tail of the queue: resolves when the open transaction (if any) and those waiting are done. */
  let turn: Promise<unknown> = Promise.resolve();
  let open = 0;
  /** Runs `work` when nothing else holds the connection. */
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const result = turn.then(work);
    turn = result.catch(() => undefined);
    return result;
  };
  const statement = <T>(work: () => T): Promise<T> =>
    open === 0 ? new Promise<T>((resolve) => resolve(work())) : inTurn(async () => work());

  /** The statements over the connection, each run by `when` (at once in a transaction, else in turn). */
  const executor = (when: <T>(work: () => T) => Promise<T>, transaction: Sql['transaction']): Sql => {
    const self: Sql = {
      dialect: 'sqlite',
      all: (text, params) => when(() => direct.all(text, params)),
      get: (text, params) => when(() => direct.get(text, params)),
      run: (text, params) => when(() => direct.run(text, params)),
      exec: (script) => when(() => direct.exec(script)),
      transaction,
      upsert: (plan, rows) =>
        rows.length === 0 ? Promise.resolve(0) : when(() => direct.upsert(plan, rows)),
      insertIgnoringConflicts: (table, columns, rows) =>
        when(() => direct.insertIgnoringConflicts(table, columns, rows)),
      inList: (expr, values) => ({
        clause: `${expr} IN (SELECT value FROM json_each(?))`,
        param: JSON.stringify(values),
      }),
      // No compareAndSwapCursor: BEGIN IMMEDIATE serializes every writer, so the stored cursor
      // cannot move between a read and a write.
      triggersKeepTransactionSummaries: false,
      hasTable: async (name) =>
        (await self.get("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name])) !==
        undefined,
      // The dbstat table reads every page: `status` only, never a scrape; empty without it. Its
      // aggregate form (`dbstat('main', 1)`: a row per table or index, the same sums) is a third of
      // the time of a row per page, and reading the pages through a memory map (for this statement
      // only) halves what is left: no read call and no copy per page.
      tableSizes: async () => {
        const sizes = new Map<string, number>();
        try {
          const rows = await when(() => {
            db.pragma(`mmap_size = ${DBSTAT_MMAP_BYTES}`);
            try {
              return direct.all<{ name: string; bytes: number }>(
                `SELECT coalesce(m.tbl_name, d.name) AS name, sum(d.pgsize) AS bytes
                 FROM dbstat('main', 1) d LEFT JOIN sqlite_master m ON m.name = d.name GROUP BY 1`,
              );
            } finally {
              db.pragma('mmap_size = 0');
            }
          });
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
      // An INTEGER PRIMARY KEY continues from its largest value by itself.
      afterCopyWithIds: async () => {},
    };
    return self;
  };

  const tx: Sql = executor(
    async (work) => work(),
    (fn) => fn(tx),
  );

  let closed = false;
  const own = executor(statement, <T>(fn: (tx: Sql) => Promise<T>, _options?: TransactionOptions) => {
    open++;
    return inTurn(async () => {
      wrap(() => db.exec('BEGIN IMMEDIATE'));
      try {
        const result = await fn(tx);
        wrap(() => db.exec('COMMIT'));
        return result;
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw err;
      }
    }).finally(() => {
      open--;
    });
  });
  return {
    ...own,
    location: path,
    close: async () => {
      if (closed) return;
      closed = true;
      await turn;
      db.close();
    },
    checkWritable: async () => {
      if (path === ':memory:') return;
      // The file, and its folder for the WAL and journal files.
      accessSync(path, constants.R_OK | constants.W_OK);
      accessSync(dirname(path), constants.W_OK);
    },
    // `PRAGMA optimize`, then an incremental vacuum (returns free pages to the file system when the
    // database was created with auto_vacuum = INCREMENTAL, as the collector creates it; older files
    // reuse their free pages, and shrink only with `VACUUM`, see docs/operations.md), then a WAL
    // checkpoint.
    reclaimSpace: async () => {
      await own.exec('PRAGMA optimize');
      // At most this many pages (4 KiB each) per statement; a few statements free a large prune.
      for (let i = 0; i < 64; i++) {
        const before = await own.get<{ freelist_count: number }>('PRAGMA freelist_count');
        if (!before || before.freelist_count === 0) break;
        await own.exec('PRAGMA incremental_vacuum(2000)');
        const after = await own.get<{ freelist_count: number }>('PRAGMA freelist_count');
        if (!after || after.freelist_count >= before.freelist_count) break;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      await own.exec('PRAGMA wal_checkpoint(PASSIVE)');
    },
  };
}

interface CompiledUpsert {
  upsert: Database.Statement;
  touch: Database.Statement | undefined;
  /** Reused for every row: better-sqlite3 copies the values when it binds them. */
  params: unknown[];
  touchParams: unknown[];
  touchProps: string[];
}

/** A plan's statements, prepared once per connection. */
function compileUpsert(db: Database.Database, plan: UpsertPlan): CompiledUpsert {
  const row = `(${plan.props.map(() => '?').join(',')})`;
  const touchProps = plan.touch ? [plan.touch.prop, ...plan.key] : [];
  return {
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
}

/**
 * A better-sqlite3 connection to `path`, set up as the store's own (also what the benchmark's raw
 * baselines write through, beside the store).
 */
export function openSqliteConnection(path: string, busyTimeoutMs = 5000): Database.Database {
  const sqlite = new Database(path);
  try {
    // Before any table exists (a new file), so the maintenance job's incremental vacuum can hand
    // pruned pages back to the file system; an older file takes it on its next `VACUUM`.
    sqlite.pragma('auto_vacuum = INCREMENTAL');
    // WAL lets readers (Grafana, ad-hoc SQL) query while the collector writes; NORMAL sync is durable
    // across application crashes in WAL mode, and loses at most the last commits on power loss.
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
  } catch (err) {
    sqlite.close();
    throw err;
  }
  return sqlite;
}

/**
 * Copies the SQLite database at `source` to `target` through SQLite's online backup API, while
 * another process keeps writing it; checks the copy (`PRAGMA quick_check`) and leaves it out of WAL
 * mode (a single file to carry away). Returns the pages copied.
 */
export async function copySqliteFile(source: string, target: string): Promise<number> {
  // No migrations, no pragmas that write: the service (another process) owns this file.
  const sqlite = new Database(source, { fileMustExist: true });
  try {
    sqlite.pragma('busy_timeout = 5000');
    // Every page in one step: SQLite restarts a backup whose source another connection changed
    // between steps, so a busy service could keep a stepwise backup from ever finishing. One step
    // reads one snapshot (WAL: the service's writers are not blocked meanwhile).
    const progress = await sqlite.backup(target, { progress: () => 0x7fffffff });
    const copy = new Database(target, { fileMustExist: true });
    try {
      const check = copy.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new Error(`the copy of ${source} failed its check: ${String(check)}`);
      // A single file to carry away: the copy leaves WAL mode (its readers need no -wal/-shm files).
      copy.pragma('journal_mode = DELETE');
    } finally {
      copy.close();
    }
    return progress.totalPages;
  } finally {
    sqlite.close();
  }
}

function isSqliteError(err: unknown): err is Error & { code: string } {
  const code: unknown = err instanceof Error ? (err as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('SQLITE_');
}

/**
 * Applies pending migrations. Drizzle reads the last applied migration before its transaction, so two
 * processes opening a new database at once (a worker and a `run`) can both try to apply the same
 * one; the loser fails on "already exists" after the winner committed, and a second pass, reading
 * the migrations table again, finds nothing left to do.
 */
function migrateOnce(sqlite: Database.Database, path: string, onMigrations?: MigrationListener): void {
  const db = drizzle(sqlite);
  const folder = migrationsFolder('sqlite');
  const running = packageVersion();
  // Read before anything is written: a database of a newer version is refused as it is.
  const pending = pendingMigrations(
    readShippedMigrations('sqlite', folder),
    sqliteState(sqlite),
    running,
    path,
  );
  if (pending.length > 0) onMigrations?.(pending);
  try {
    migrate(db, { migrationsFolder: folder });
  } catch (err) {
    let e: unknown = err;
    while (e instanceof Error && !/already exists/.test(e.message)) e = e.cause;
    if (!(e instanceof Error)) throw err;
    migrate(db, { migrationsFolder: folder });
  }
  if (!sqliteState(sqlite).versions.includes(running)) {
    sqlite.exec(CREATE_VERSIONS_TABLE);
    sqlite.prepare(RECORD_VERSION).run(running, new Date().toISOString());
  }
}

/** What the file records of its migrations and of the versions that made them. */
function sqliteState(sqlite: Database.Database): AppliedState {
  const has = (name: string) =>
    sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
  const last = has('__drizzle_migrations')
    ? (
        sqlite.prepare('SELECT MAX(created_at) AS at FROM __drizzle_migrations').get() as {
          at: number | null;
        }
      ).at
    : null;
  const versions = has(VERSIONS_TABLE)
    ? (sqlite.prepare(SELECT_VERSIONS).all() as { version: string }[]).map((r) => r.version)
    : [];
  return { lastAppliedMs: last === null ? undefined : Number(last), versions };
}

export { migrationsFolder } from './migrations.js';

/**
 * Creates the database's folder. A file where a folder of the path should be is said as such
 * (mkdir only says EEXIST or ENOTDIR).
 */
function makeFolder(folder: string): void {
  for (let dir = folder; dirname(dir) !== dir; dir = dirname(dir)) {
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(dir, { throwIfNoEntry: false });
    } catch {
      continue; // ENOTDIR: a file further up, found next
    }
    if (stat?.isDirectory()) break;
    if (stat) {
      throw new Error(
        `${dir} is a file, not a folder: the database cannot go inside it; choose a path whose folders are folders (or move that file)`,
      );
    }
  }
  mkdirSync(folder, { recursive: true });
}
