import { mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { packageRoot } from '../runtime/package-root.js';
import { DatabaseOpenError, DatabaseWriteError } from './errors.js';
import { MAX_CACHED_STATEMENTS, type Sql, type Store, type TransactionOptions } from './sql.js';

export interface OpenSqliteOptions {
  /** Apply pending migrations from drizzle/sqlite/ (start-up and `migrate`). @defaultValue true */
  migrate?: boolean;
  /** How long a writer waits for another process's lock. @defaultValue 5000 ms */
  busyTimeoutMs?: number;
}

const native = Symbol('better-sqlite3');

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
 * The better-sqlite3 connection behind a SQLite `Sql`, for the prepared statements of the hot
 * paths (upserts, the CSV load); undefined on PostgreSQL.
 */
export function sqliteConnection(sql: Sql): Database.Database | undefined {
  return (sql as { [native]?: Database.Database })[native];
}

/**
 * Opens (creating if needed) the SQLite database with WAL and a busy timeout, and migrates it.
 *
 * better-sqlite3 is synchronous and the store's seam is not: a transaction's callback may await
 * between its statements. So that no other work of this process slips into an open transaction
 * (or reads what it has not committed), statements and transactions take turns: while one is open,
 * everything else waits for it; with none open, a statement runs at once. Across processes,
 * SQLite's write lock (BEGIN IMMEDIATE, with the busy timeout) does the same.
 */
export function openSqliteStore(path: string, options: OpenSqliteOptions = {}): Store {
  let sqlite: Database.Database | undefined;
  try {
    if (path !== ':memory:') makeFolder(dirname(path));
    sqlite = new Database(path);
    // Before any table exists (a new file), so the maintenance job's incremental vacuum can hand
    // pruned pages back to the file system; an older file takes it on its next `VACUUM`.
    sqlite.pragma('auto_vacuum = INCREMENTAL');
    // WAL lets readers (Grafana, ad-hoc SQL) query while the collector writes; NORMAL sync is durable
    // across application crashes in WAL mode, and loses at most the last commits on power loss.
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
  } catch (cause) {
    sqlite?.close();
    throw new DatabaseOpenError(path, cause);
  }
  const db = sqlite;
  if (options.migrate ?? true) {
    try {
      migrateOnce(db);
    } catch (cause) {
      db.close();
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
  const direct = {
    all: <T>(text: string, params?: readonly unknown[]) => wrap(() => prepare(text).all(bind(params)) as T[]),
    get: <T>(text: string, params?: readonly unknown[]) =>
      wrap(() => prepare(text).get(bind(params)) as T | undefined),
    run: (text: string, params?: readonly unknown[]) => wrap(() => prepare(text).run(bind(params)).changes),
    exec: (script: string) => wrap(() => void db.exec(script)),
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

  const tx: Sql = {
    dialect: 'sqlite',
    all: async (text, params) => direct.all(text, params),
    get: async (text, params) => direct.get(text, params),
    run: async (text, params) => direct.run(text, params),
    exec: async (script) => direct.exec(script),
    transaction: (fn) => fn(tx),
  };
  Object.defineProperty(tx, native, { value: db });

  let closed = false;
  const store: Store = {
    dialect: 'sqlite',
    location: path,
    all: (text, params) => statement(() => direct.all(text, params)),
    get: (text, params) => statement(() => direct.get(text, params)),
    run: (text, params) => statement(() => direct.run(text, params)),
    exec: (script) => statement(() => direct.exec(script)),
    transaction: <T>(fn: (tx: Sql) => Promise<T>, _options?: TransactionOptions) => {
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
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await turn;
      db.close();
    },
  };
  Object.defineProperty(store, native, { value: db });
  return store;
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
function migrateOnce(sqlite: Database.Database): void {
  const db = drizzle(sqlite);
  const folder = migrationsFolder('sqlite');
  try {
    migrate(db, { migrationsFolder: folder });
  } catch (err) {
    let e: unknown = err;
    while (e instanceof Error && !/already exists/.test(e.message)) e = e.cause;
    if (!(e instanceof Error)) throw err;
    migrate(db, { migrationsFolder: folder });
  }
}

/** drizzle/<dialect>/ at the package root. */
export function migrationsFolder(dialect: 'sqlite' | 'postgres'): string {
  return join(packageRoot(), 'drizzle', dialect);
}

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
