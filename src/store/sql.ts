/**
 * The store's one seam: an async SQL executor that both databases implement (sqlite.ts over
 * better-sqlite3, postgres.ts over a node-postgres pool). Every store function takes a `Sql`: the
 * store itself (each statement on its own) or the transaction it runs in.
 *
 * Statements are written once, with `?` placeholders, in the SQL both databases speak (`IS DISTINCT
 * FROM`, `ON CONFLICT … DO UPDATE`, `excluded.`, `RETURNING`); the few that differ are methods of
 * the `Sql` itself (`upsert`, `inList`, `deleteBatch`…), each driver saying them its own way over its
 * own connection: only the two drivers know their database. PostgreSQL's `?` become `$1, $2…`
 * (translated once per statement text).
 *
 * Values come back alike from both: integers as numbers (PostgreSQL's int8 and counts too), exact
 * decimals (`numeric` there, TEXT here) as strings, times (`timestamptz` there) as ISO-8601 UTC
 * text, JSON (`jsonb` there) as its text.
 */
import { getTableColumns, getTableName } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';

/** Which database a store is. */
export type Dialect = 'sqlite' | 'postgres';

/**
 * Where a store is, as the config resolved it (src/config/database.ts reads DATABASE_URL and
 * DATABASE_PATH): a SQLite file, or a PostgreSQL URL with its printable (password-masked) form.
 */
export type StoreLocation =
  | { kind: 'sqlite'; path: string }
  | { kind: 'postgres'; url: string; printable: string };

export interface TransactionOptions {
  /**
   * Serializes the transactions that name the same key, across processes and hosts: PostgreSQL
   * takes a transaction-scoped advisory lock on it first; SQLite's write lock (BEGIN IMMEDIATE)
   * already serializes every write transaction. E.g. `cursor:transactions/mainnet/…`.
   */
  lock?: string;
}

export interface Sql {
  readonly dialect: Dialect;
  /** Every row of a query. */
  all<T>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /** The first row of a query, or undefined. */
  get<T>(text: string, params?: readonly unknown[]): Promise<T | undefined>;
  /** A statement; returns the rows it changed. */
  run(text: string, params?: readonly unknown[]): Promise<number>;
  /** Several statements separated by `;`, without parameters (schema work, summary rebuilds). */
  exec(script: string): Promise<void>;
  /**
   * Runs `fn` in one transaction: all of it commits, or none (it rolls back when `fn` throws).
   * Inside a transaction already, `fn` joins it. Keep network I/O out of `fn`: the transaction
   * holds a lock (SQLite's write lock, a pooled connection) while it runs.
   */
  transaction<T>(fn: (tx: Sql) => Promise<T>, options?: TransactionOptions): Promise<T>;

  /**
   * Writes a page through the table's upsert (`planUpsert`); returns the rows new or changed (not
   * those only touched). No rows: nothing is sent.
   */
  upsert(plan: UpsertPlan, rows: readonly Record<string, unknown>[]): Promise<number>;
  /** Inserts rows (values in `columns` order), skipping any whose key is stored; returns the rows added. */
  insertIgnoringConflicts(
    table: string,
    columns: readonly string[],
    rows: readonly unknown[][],
  ): Promise<number>;
  /** `expr` in a list of texts, the list bound as one parameter. */
  inList(expr: string, values: readonly string[]): { clause: string; param: unknown };
  /**
   * Replaces a stream's cursor only if it is still `expected` (undefined: no cursor yet), in one
   * statement; absent where the write lock makes a read, compare and write safe (SQLite).
   */
  compareAndSwapCursor?(row: {
    job: string;
    scope: string;
    expected: unknown;
    next: unknown;
    at: string;
  }): Promise<boolean>;
  /** True where triggers keep `transaction_summaries` (PostgreSQL): the writer does not count. */
  readonly triggersKeepTransactionSummaries: boolean;
  /** Whether a table exists (the migrations table before the first migration does not). */
  hasTable(name: string): Promise<boolean>;
  /** Bytes per table, its indexes included; empty where the database cannot tell. */
  tableSizes(): Promise<Map<string, number>>;
  /**
   * A SELECT of `"table"` and `rows`: the sums, per key, of `job_runs.rows_removed` (a JSON object
   * of counts; NULL adds nothing) over the runs matching `where`.
   */
  sumRowsRemoved(where: string): string;
  /** A DELETE of at most `?` (the last parameter) rows of `table` matching `where`, locking no more. */
  deleteBatch(table: string, where: string): string;
  /** After rows with explicit ids were copied in: moves the table's identity past them. */
  afterCopyWithIds(table: string, idColumn: string): Promise<void>;
}

/**
 * What a driver needs to write a page of one table, built once from its Drizzle definition
 * (`planUpsert`, below); each driver compiles its own statements from it, once.
 */
export interface UpsertPlan {
  /** Quoted: `"transactions"`. */
  tableName: string;
  /** The row objects' property of each column, in column order. */
  props: string[];
  /** Quoted column names, comma-separated, in column order. */
  columnList: string;
  /** `ON CONFLICT (…) DO UPDATE SET … WHERE … IS DISTINCT FROM …` (or `DO NOTHING`). */
  conflict: string;
  /** The natural key: properties and quoted names. */
  key: string[];
  keyNames: string[];
  /** The touched column (`last_seen_at`): its property and quoted name. */
  touch: { prop: string; name: string } | undefined;
}

export interface Store extends Sql {
  /** Where the data is, safe to print: the SQLite path, or the PostgreSQL URL with its password masked. */
  readonly location: string;
  /** Closes the database (the pool's connections, the SQLite file); waits for the open transaction. */
  close(): Promise<void>;
  /** Throws when this process cannot write the store. */
  checkWritable(): Promise<void>;
  /** Lets the database reuse the space of deleted rows of `tables`, without a long lock. */
  reclaimSpace(tables: readonly string[]): Promise<void>;
}

/** `?` placeholders to PostgreSQL's `$n`, outside string literals and quoted names. */
export function numberPlaceholders(text: string): string {
  let out = '';
  let n = 0;
  let quote: string | undefined;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === '?') {
      out += `$${++n}`;
      continue;
    }
    out += ch;
  }
  return out;
}

/**
 * Statements a store keeps prepared (SQLite) or named (PostgreSQL: prepared once per connection), by
 * text. The collector's own are a few dozen; texts past the cap (a batch whose size varies) are
 * prepared for one use, so a long-running process does not grow without bound.
 */
export const MAX_CACHED_STATEMENTS = 1000;

/**
 * The upsert of one table, planned once from its Drizzle definition (the column names, which both
 * databases share): this is the hot path that the benchmark compares with raw inserts.
 *
 * - `key`: the natural key (the conflict target).
 * - `update`: columns refreshed on conflict (default: all but the key and `touch`); the row only
 *   counts as written, and is only rewritten, when one of `compare` (default: `update`) differs, so
 *   re-reading known data writes nothing but `touch`. An empty `update` makes it insert-only.
 * - `touch`: a column set to its incoming value whenever a known row is seen again (`last_seen_at`),
 *   changed or not, without counting it as written. A new row already carries it, so it is not
 *   written twice.
 *
 * Each driver writes the page its own way (`Sql.upsert`: one prepared single-row statement per row
 * on SQLite, one statement per page on PostgreSQL, then one `UPDATE` that touches the rows seen
 * again unchanged); a page that holds a key twice keeps its last row on both.
 */
export interface UpsertSpec<T extends SQLiteTable> {
  key: (keyof T['$inferInsert'] & string)[];
  update?: (keyof T['$inferInsert'] & string)[];
  compare?: (keyof T['$inferInsert'] & string)[];
  /** Of `update`: columns whose stored value is kept when the new one is NULL. */
  keepWhenNull?: (keyof T['$inferInsert'] & string)[];
  touch?: keyof T['$inferInsert'] & string;
}

/** The upsert of `table`, for `Sql.upsert(plan, rows)`: build it once, at import. */
export function planUpsert<T extends SQLiteTable>(table: T, spec: UpsertSpec<T>): UpsertPlan {
  const columns = Object.entries(getTableColumns(table)).map(([prop, col]) => ({ prop, name: col.name }));
  const nameOf = (prop: string) => {
    const found = columns.find((c) => c.prop === prop);
    if (!found) throw new Error(`${getTableName(table)} has no column ${prop}`);
    return `"${found.name}"`;
  };
  const tableName = `"${getTableName(table)}"`;
  const keyNames = spec.key.map(nameOf);
  const update =
    spec.update ??
    columns.map((c) => c.prop).filter((p) => !spec.key.includes(p as never) && p !== spec.touch);
  const compare = spec.compare ?? update;
  const incoming = (p: string) =>
    spec.keepWhenNull?.includes(p as never)
      ? `COALESCE(excluded.${nameOf(p)}, ${tableName}.${nameOf(p)})`
      : `excluded.${nameOf(p)}`;
  const set = [...update, ...(spec.touch ? [spec.touch] : [])].map((p) => `${nameOf(p)} = ${incoming(p)}`);
  return {
    tableName,
    props: columns.map((c) => c.prop),
    columnList: columns.map((c) => `"${c.name}"`).join(','),
    conflict:
      update.length === 0
        ? `ON CONFLICT (${keyNames.join(',')}) DO NOTHING`
        : `ON CONFLICT (${keyNames.join(',')}) DO UPDATE SET ${set.join(', ')} WHERE ${compare
            .map((p) => `${tableName}.${nameOf(p)} IS DISTINCT FROM ${incoming(p)}`)
            .join(' OR ')}`,
    key: [...spec.key],
    keyNames,
    touch: spec.touch ? { prop: spec.touch, name: nameOf(spec.touch) } : undefined,
  };
}
