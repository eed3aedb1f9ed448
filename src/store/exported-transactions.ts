import { getTableColumns } from 'drizzle-orm';
import { statementsOf } from './dialects/index.js';
import { exportedTransactions } from './schema.js';
import type { Sql, Store } from './sql.js';

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

/**
 * Inserts rows with ON CONFLICT DO NOTHING, so a row already loaded (a re-load, an overlapping
 * window) is skipped on its natural key (each dialect's fastest way: src/store/dialects/).
 */
export function createExportedTransactionsWriter(store: Store): ExportedTransactionsWriter {
  const columns = Object.values(getTableColumns(exportedTransactions)).map((c) => `"${c.name}"`);
  const insertAll = (tx: Sql, rows: readonly unknown[][]) =>
    statementsOf(tx).insertIgnoringConflicts(tx, 'exported_transactions', columns, rows);
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
