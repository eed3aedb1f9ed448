import { getTableColumns } from 'drizzle-orm';
import { exportedTransactions } from './schema.js';
import type { Sql } from './sql.js';

export type ExportedTransactionRow = typeof exportedTransactions.$inferInsert;
export type ExportedColumn = keyof ExportedTransactionRow & string;

/** The table's columns in statement order: a loader builds each row as an array in this order. */
export const exportedColumns = Object.keys(getTableColumns(exportedTransactions)) as ExportedColumn[];

export interface ExportedTransactionsWriter {
  /** Inserts rows through `tx` (a batch's transaction); returns the rows that were new. */
  insert(tx: Sql, rows: readonly unknown[][]): Promise<number>;
  /**
   * Marks the file loaded (`rows_loaded`, `loaded_at`, `load_status`), through the transaction of
   * its last batch: a file is either marked loaded with every row in, or loaded again (adding
   * nothing it already added) by the next try.
   */
  markLoaded(tx: Sql, file: { operationId: string; rowsLoaded: number; loadedAt: string }): Promise<void>;
}

/**
 * Inserts rows with ON CONFLICT DO NOTHING, so a row already loaded (a re-load, an overlapping
 * window) is skipped on its natural key (each driver's fastest way: `Sql.insertIgnoringConflicts`).
 */
export function createExportedTransactionsWriter(): ExportedTransactionsWriter {
  const columns = Object.values(getTableColumns(exportedTransactions)).map((c) => `"${c.name}"`);
  return {
    insert: (tx, rows) =>
      rows.length === 0
        ? Promise.resolve(0)
        : tx.insertIgnoringConflicts('exported_transactions', columns, rows),
    markLoaded: async (tx, file) => {
      await tx.run(
        `UPDATE export_files SET rows_loaded = ?, loaded_at = ?, load_status = 'loaded', load_error = NULL,
           load_starts = 0, load_run_id = NULL
         WHERE operation_id = ?`,
        [file.rowsLoaded, file.loadedAt, file.operationId],
      );
    },
  };
}
