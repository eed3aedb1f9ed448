import { getTableColumns } from 'drizzle-orm';
import type { Store } from './open.js';
import { exportedTransactions } from './schema.js';

export type ExportedTransactionRow = typeof exportedTransactions.$inferInsert;
export type ExportedColumn = keyof ExportedTransactionRow & string;

/** The table's columns in statement order: a loader builds each row as an array in this order. */
export const exportedColumns = Object.keys(getTableColumns(exportedTransactions)) as ExportedColumn[];

export interface ExportedTransactionsWriter {
  /** Inserts a batch in one transaction; returns the rows that were new. */
  insert(rows: readonly unknown[][]): number;
  /**
   * Inserts the last batch and marks the file loaded (`rows_loaded`, `loaded_at`) in the same
   * transaction: a file is either marked loaded with every row in, or loaded again (adding nothing
   * it already added) by the next try.
   */
  finish(
    rows: readonly unknown[][],
    file: { operationId: string; rowsLoaded: number; loadedAt: string },
  ): number;
}

/**
 * One prepared single-row INSERT ... ON CONFLICT DO NOTHING run per row inside a batch's
 * transaction: as cheap as a raw insert (a multi-row statement needs a statement journal), and
 * a row already loaded (a re-load, an overlapping window) is skipped on its natural key.
 */
export function createExportedTransactionsWriter(store: Store): ExportedTransactionsWriter {
  const columns = Object.values(getTableColumns(exportedTransactions)).map((c) => `"${c.name}"`);
  const insert = store.sqlite.prepare(
    `INSERT INTO exported_transactions (${columns.join(',')}) VALUES (${columns.map(() => '?').join(',')})
     ON CONFLICT DO NOTHING`,
  );
  const markLoaded = store.sqlite.prepare(
    'UPDATE export_files SET rows_loaded = ?, loaded_at = ? WHERE operation_id = ?',
  );
  const insertAll = (rows: readonly unknown[][]) => {
    let added = 0;
    for (const row of rows) added += insert.run(row).changes;
    return added;
  };
  return {
    insert: (rows) => store.transaction(() => insertAll(rows)),
    finish: (rows, file) =>
      store.transaction(() => {
        const added = insertAll(rows);
        markLoaded.run(file.rowsLoaded, file.loadedAt, file.operationId);
        return added;
      }),
  };
}
