import { getTableColumns, is, type SQL } from 'drizzle-orm';
import { PgDialect, PgTable, getTableConfig as pgTableConfig } from 'drizzle-orm/pg-core';
import { SQLiteSyncDialect, getTableConfig as sqliteTableConfig } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import * as pgSchema from '../../src/store/schema.pg.js';
import { schemaTables } from '../../src/store/tables.js';

/**
 * The PostgreSQL schema (schema.pg.ts) mirrors the SQLite one (schema.ts): the same tables, columns,
 * keys and indexes, so every statement of src/store runs on both and users query the same names.
 * Only the types differ, by the rules of schema.pg.ts's header, checked here too.
 */

const pgTables = (Object.values(pgSchema) as unknown[]).filter((v): v is PgTable => is(v, PgTable));
const sqliteConfigs = schemaTables().map((t) => sqliteTableConfig(t));
const pgConfigs = new Map(pgTables.map((t) => [pgTableConfig(t).name, pgTableConfig(t)]));

const sqliteDialect = new SQLiteSyncDialect();
const pgDialect = new PgDialect();

/** What both schemas must agree on, per table, in a form that compares across dialects. */
interface Shape {
  columns: { name: string; notNull: boolean; default: unknown; unique: string | undefined }[];
  properties: string[];
  primaryKey: string[];
  indexes: { name: string; columns: string[]; unique: boolean; where: string | undefined }[];
}

type AnyConfig = ReturnType<typeof sqliteTableConfig> | ReturnType<typeof pgTableConfig>;

function shape(config: AnyConfig, properties: string[], render: (where: SQL) => string): Shape {
  const inline = config.columns.filter((c) => c.primary).map((c) => c.name);
  const composite = config.primaryKeys.flatMap((k) => k.columns.map((c) => c.name));
  return {
    columns: config.columns.map((c) => ({
      name: c.name,
      notNull: c.notNull,
      default: c.default,
      unique: c.isUnique ? c.uniqueName : undefined,
    })),
    properties,
    primaryKey: [...inline, ...composite],
    indexes: config.indexes.map((i) => ({
      name: i.config.name ?? '',
      columns: i.config.columns.map((c) => ('name' in c ? String(c.name) : '<expression>')),
      unique: i.config.unique,
      where: i.config.where ? render(i.config.where) : undefined,
    })),
  };
}

const sqliteShape = (table: ReturnType<typeof schemaTables>[number]) =>
  shape(
    sqliteTableConfig(table),
    Object.keys(getTableColumns(table)),
    (w) => sqliteDialect.sqlToQuery(w).sql,
  );
const pgShape = (table: PgTable) =>
  shape(pgTableConfig(table), Object.keys(getTableColumns(table)), (w) => pgDialect.sqlToQuery(w).sql);

/** The exact decimals (decimal text in SQLite): numeric in PostgreSQL, never a float. */
const NUMERIC = new Set([
  ...[
    'circulating_supply',
    'total_supply',
    'total_p_burned',
    'total_c_burned',
    'total_x_burned',
    'total_staked',
    'total_locked',
    'total_rewards',
    'genesis_unlock',
    'l1_validator_fees',
  ].map((c) => `supply_snapshots.${c}`),
  ...['block_number', 'gas_limit', 'gas_used', 'gas_price', 'nonce', 'value'].map((c) => `transactions.${c}`),
  ...['block_number', 'gas_limit', 'gas_used', 'gas_price', 'nonce', 'value', 'amount'].map(
    (c) => `exported_transactions.${c}`,
  ),
  'rewards.amount_staked',
  'rewards.amount',
  'reward_prices.value',
  'reward_summaries.amount',
]);

/** Raw JSON kept as sent. */
const JSONB = new Set([
  'rewards.addresses',
  'export_operations.request',
  'export_operations.status_history',
  'exported_transactions.extra',
  'sync_state.cursor',
  'job_runs.rows_removed',
  'rejected_records.context',
]);

/** INTEGER columns that stay int4: small enumerations and denominations. */
const INT4 = new Set([
  'transactions.tx_type',
  'transactions.from_decimals',
  'transactions.to_decimals',
  'rewards.asset_denomination',
]);

describe('PostgreSQL schema parity with SQLite', () => {
  it('has the same tables, and no other', () => {
    expect([...pgConfigs.keys()].sort()).toEqual(sqliteConfigs.map((c) => c.name).sort());
  });

  it.each(schemaTables().map((t) => [sqliteTableConfig(t).name, t] as const))(
    '%s: same columns in the same order, nullability, defaults, keys and indexes',
    (name, table) => {
      const pgTable = pgTables.find((t) => pgTableConfig(t).name === name);
      expect(pgTable, `schema.pg.ts has no table ${name}`).toBeDefined();
      expect(pgShape(pgTable!)).toEqual(sqliteShape(table));
    },
  );

  it('maps the types: exact decimals numeric, collector times timestamptz, raw JSON jsonb, integers bigint', () => {
    const problems: string[] = [];
    for (const lite of sqliteConfigs) {
      const pg = pgConfigs.get(lite.name);
      if (!pg) continue; // reported above
      for (const liteColumn of lite.columns) {
        const id = `${lite.name}.${liteColumn.name}`;
        const pgType = pg.columns.find((c) => c.name === liteColumn.name)?.getSQLType();
        const liteType = liteColumn.getSQLType();
        let want: string;
        if (NUMERIC.has(id)) want = 'numeric';
        else if (JSONB.has(id)) want = 'jsonb';
        else if (liteColumn.name.endsWith('_at')) want = 'timestamp with time zone';
        else if (liteType === 'real') want = 'double precision';
        else if (liteType === 'integer') want = INT4.has(id) ? 'integer' : 'bigint';
        else want = 'text';
        if (pgType !== want) problems.push(`${id}: ${pgType}, expected ${want} (SQLite ${liteType})`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('keeps every listed exact decimal and JSON column a column of both schemas', () => {
    const columns = new Set(sqliteConfigs.flatMap((c) => c.columns.map((col) => `${c.name}.${col.name}`)));
    expect([...NUMERIC, ...JSONB, ...INT4].filter((id) => !columns.has(id))).toEqual([]);
  });

  it('gives job_runs.id an identity, so an INSERT without the id gets one back', () => {
    const id = pgTableConfig(pgSchema.jobRuns).columns.find((c) => c.name === 'id');
    expect(id?.getSQLType()).toBe('bigint');
    expect(id?.generatedIdentity?.type).toBe('byDefault');
  });
});
