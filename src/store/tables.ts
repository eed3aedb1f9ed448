import { getTableColumns, getTableName } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as schema from './schema.js';
import type { Sql } from './sql.js';

/** Every table of the SQLite schema, by TypeScript name in alphabetical order (a module namespace's). */
export function schemaTables(): SQLiteTable[] {
  return Object.values(schema);
}

/**
 * The tables whose rows the store counts as it writes them (description.ts's summaries, exact: kept in
 * the same transaction as the rows, by the writer or the triggers of *_metrics_summaries.sql): their
 * count is a few rows of the summary, not a COUNT(*) over millions. A reward counts once for its node id.
 */
const KEPT_COUNTS: Record<string, string> = {
  transactions: 'SELECT coalesce(sum(transactions), 0) AS n FROM transaction_summaries',
  rewards: "SELECT coalesce(sum(rewards), 0) AS n FROM reward_summaries WHERE subject_kind = 'node_id'",
};

/** Rows per table: the counts kept for the big tables, a full count of the others. */
export async function countRowsPerTable(sql: Sql): Promise<{ table: string; rows: number }[]> {
  const out: { table: string; rows: number }[] = [];
  for (const table of schemaTables()) {
    const name = getTableName(table);
    const row = await sql.get<{ n: number }>(KEPT_COUNTS[name] ?? `SELECT COUNT(*) AS n FROM "${name}"`);
    out.push({ table: name, rows: Number(row?.n ?? 0) });
  }
  return out;
}

/**
 * A select list of every column of `table` under its TypeScript name (`"operation_id" AS
 * "operationId"`), so a row comes back as Drizzle's `$inferSelect`; `alias` qualifies the columns.
 */
export function selectList(table: SQLiteTable, alias?: string): string {
  const prefix = alias ? `${alias}.` : '';
  return Object.entries(getTableColumns(table))
    .map(([prop, column]) => `${prefix}"${column.name}" AS "${prop}"`)
    .join(', ');
}
