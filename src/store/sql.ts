/**
 * The store's one seam: a small async SQL executor that both databases implement (sqlite.ts over
 * better-sqlite3, postgres.ts over a node-postgres pool). Every store function takes a `Sql`: the
 * store itself (each statement on its own) or the transaction it runs in.
 *
 * Statements are written once, with `?` placeholders, in the SQL both databases speak (`IS DISTINCT
 * FROM`, `ON CONFLICT … DO UPDATE`, `excluded.`, `RETURNING`); the few that differ branch on
 * `dialect`. PostgreSQL's `?` become `$1, $2…` (translated once per statement text).
 *
 * Values come back alike from both: integers as numbers (PostgreSQL's int8 and counts too), exact
 * decimals (`numeric` there, TEXT here) as strings, times (`timestamptz` there) as ISO-8601 UTC
 * text, JSON (`jsonb` there) as its text.
 */
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
}

export interface Store extends Sql {
  /** Where the data is, safe to print: the SQLite path, or the PostgreSQL URL with its password masked. */
  readonly location: string;
  /** Closes the database (the pool's connections, the SQLite file); waits for the open transaction. */
  close(): Promise<void>;
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
