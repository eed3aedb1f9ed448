/**
 * The statements that differ between the two databases, behind the `Sql` seam: one module per
 * dialect (sqlite.ts, postgres.ts) implements them all, and the store's other modules write the SQL
 * both speak and ask `statementsOf(sql)` for the rest. This is the one place that looks at
 * `sql.dialect`.
 */
import type { Sql, Store } from '../sql.js';
import type { UpsertPlan } from '../upsert.js';
import { postgresStatements } from './postgres.js';
import { sqliteStatements } from './sqlite.js';

export interface DialectStatements {
  /** Writes a page through the plan's upsert; returns the rows new or changed (not those only touched). */
  upsert(sql: Sql, plan: UpsertPlan, rows: readonly Record<string, unknown>[]): Promise<number>;
  /** Inserts rows (values in `columns` order), skipping any whose key is stored; returns the rows added. */
  insertIgnoringConflicts(
    sql: Sql,
    table: string,
    columns: readonly string[],
    rows: readonly unknown[][],
  ): Promise<number>;
  /** `expr` in a list of texts, the list bound as one parameter. */
  inList(expr: string, values: readonly string[]): { clause: string; param: unknown };
  /**
   * Replaces a stream's cursor only if it is still `expected` (undefined: no cursor yet), in one
   * statement; undefined where the write lock makes a read, compare and write safe (SQLite).
   */
  compareAndSwapCursor:
    | ((
        sql: Sql,
        row: { job: string; scope: string; expected: unknown; next: unknown; at: string },
      ) => Promise<boolean>)
    | undefined;
  /** True where triggers keep `transaction_summaries` (PostgreSQL): the writer does not count. */
  triggersKeepTransactionSummaries: boolean;
  /** Throws when this process cannot write the store. */
  checkWritable(store: Store): Promise<void>;
  /** Whether a table exists (the migrations table before the first migration does not). */
  hasTable(sql: Sql, name: string): Promise<boolean>;
  /** Bytes per table, its indexes included; empty where the database cannot tell. */
  tableSizes(sql: Sql): Promise<Map<string, number>>;
  /**
   * A SELECT of `"table"` and `rows`: the sums, per key, of `job_runs.rows_removed` (a JSON object
   * of counts; NULL adds nothing) over the runs matching `where`.
   */
  sumRowsRemoved(where: string): string;
  /** A DELETE of at most `?` (the last parameter) rows of `table` matching `where`, locking no more. */
  deleteBatch(table: string, where: string): string;
  /** Lets the database reuse the space of deleted rows of `tables`, without a long lock. */
  reclaimSpace(store: Store, tables: readonly string[]): Promise<void>;
  /** After rows with explicit ids were copied in: moves the table's identity past them. */
  afterCopyWithIds(sql: Sql, table: string, idColumn: string): Promise<void>;
}

export function statementsOf(sql: Pick<Sql, 'dialect'>): DialectStatements {
  return sql.dialect === 'postgres' ? postgresStatements : sqliteStatements;
}
