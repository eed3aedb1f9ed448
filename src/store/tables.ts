import { getTableColumns, getTableName } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as schema from './schema.js';
import type { Sql } from './sql.js';

/** Every table of the SQLite schema, by TypeScript name in alphabetical order (a module namespace's). */
export function schemaTables(): SQLiteTable[] {
  return Object.values(schema);
}

/** Rows per table (a full count: neither database keeps an exact row count). */
export async function countRowsPerTable(sql: Sql): Promise<{ table: string; rows: number }[]> {
  const out: { table: string; rows: number }[] = [];
  for (const table of schemaTables()) {
    const name = getTableName(table);
    const row = await sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM "${name}"`);
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
