import { getTableColumns } from 'drizzle-orm';
import { exportedTransactions } from './schema.js';
import type { Sql, Store } from './sql.js';
import { sqliteConnection } from './sqlite.js';

export type ExportedTransactionRow = typeof exportedTransactions.$inferInsert;
export type ExportedColumn = keyof ExportedTransactionRow & string;

/** The table's columns in statement order: a loader builds each row as an array in this order. */
export const exportedColumns = Object.keys(getTableColumns(exportedTransactions)) as ExportedColumn[];

export interface ExportedTransactionsWriter {
  /** Inserts a batch in one transaction; returns the rows that were new. */
  insert(rows: readonly unknown[][]): Promise<number>;
  /**
   * Inserts the last batch and marks the file loaded (`rows_loaded`, `loaded_at`, `load_status`) in the same
   * transaction: a file is either marked loaded with every row in, or loaded again (adding nothing
   * it already added) by the next try.
   */
  finish(
    rows: readonly unknown[][],
    file: { operationId: string; rowsLoaded: number; loadedAt: string },
  ): Promise<number>;
}

/** PostgreSQL's limit of parameters per statement. */
const MAX_PARAMETERS = 65_535;

/**
 * Inserts rows with ON CONFLICT DO NOTHING, so a row already loaded (a re-load, an overlapping
 * window) is skipped on its natural key. SQLite: one prepared single-row INSERT per row inside the
 * batch's transaction, as cheap as a raw insert (a multi-row statement needs a statement journal);
 * PostgreSQL: multi-row statements, a round trip per few thousand rows.
 */
export function createExportedTransactionsWriter(store: Store): ExportedTransactionsWriter {
  const columns = Object.values(getTableColumns(exportedTransactions)).map((c) => `"${c.name}"`);
  const row = `(${columns.map(() => '?').join(',')})`;
  const insertText = (n: number) =>
    `INSERT INTO exported_transactions (${columns.join(',')}) VALUES ${Array.from({ length: n }, () => row).join(',')}
     ON CONFLICT DO NOTHING`;
  const perStatement = Math.floor(MAX_PARAMETERS / columns.length);
  const insertAll = async (tx: Sql, rows: readonly unknown[][]) => {
    const db = sqliteConnection(tx);
    let added = 0;
    if (db) {
      const insert = db.prepare(insertText(1));
      for (const r of rows) added += insert.run(r).changes;
      return added;
    }
    for (let start = 0; start < rows.length; start += perStatement) {
      const chunk = rows.slice(start, start + perStatement);
      added += await tx.run(insertText(chunk.length), chunk.flat());
    }
    return added;
  };
  return {
    insert: (rows) => store.transaction((tx) => insertAll(tx, rows)),
    finish: (rows, file) =>
      store.transaction(async (tx) => {
        const added = await insertAll(tx, rows);
        await tx.run(
          `UPDATE export_files SET rows_loaded = ?, loaded_at = ?, load_status = 'loaded', load_error = NULL
           WHERE operation_id = ?`,
          [file.rowsLoaded, file.loadedAt, file.operationId],
        );
        return added;
      }),
  };
}
