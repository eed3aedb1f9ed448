import type { BuildColumns } from 'drizzle-orm';
import {
  index,
  integer,
  primaryKey,
  real,
  type SQLiteColumn,
  type SQLiteColumnBuilderBase,
  type SQLiteTableWithColumns,
  sqliteTable,
  text,
} from 'drizzle-orm/sqlite-core';
import { type BuiltColumns, buildColumns, type KindBuilders, type Table } from './columns.js';
import * as tables from './description.js';

/*
 * The SQLite tables, built from description.ts (read it for what each table and column means);
 * drizzle-kit reads this file to write drizzle/sqlite/.
 */

/** Each kind's SQLite column (columns.ts says what each kind holds). */
const builders = {
  text: (name: string) => text(name),
  decimal: (name: string) => text(name),
  integer: (name: string) => integer(name),
  int32: (name: string) => integer(name),
  timestamp: (name: string) => text(name),
  json: (name: string) => text(name),
  real: (name: string) => real(name),
  decimalSum: (name: string) => integer(name),
  identity: (name: string) => integer(name).primaryKey({ autoIncrement: true }),
} satisfies KindBuilders;

type SqliteTableOf<T extends Table> = SQLiteTableWithColumns<{
  name: T['name'];
  schema: undefined;
  columns: BuildColumns<T['name'], BuiltColumns<typeof builders, T['columns']>, 'sqlite'>;
  dialect: 'sqlite';
}>;

type SqliteColumns = [SQLiteColumn, ...SQLiteColumn[]];

function sqliteTableOf<T extends Table>({ name, columns, constraints }: T): SqliteTableOf<T> {
  const built = buildColumns(builders, columns) as Record<string, SQLiteColumnBuilderBase>;
  return sqliteTable(name, built, (self) =>
    constraints(self).map((c) => {
      if (c.type === 'primaryKey') return primaryKey({ columns: c.columns as SqliteColumns });
      const on = index(c.name).on(...(c.columns as SqliteColumns));
      return c.condition ? on.where(c.condition) : on;
    }),
  ) as unknown as SqliteTableOf<T>;
}

const sqlite = Object.fromEntries(
  Object.entries(tables).map(([prop, table]) => [prop, sqliteTableOf(table)]),
) as { [P in keyof typeof tables]: SqliteTableOf<(typeof tables)[P]> };

// drizzle-kit reads a module's named exports: one per described table (test/unit/store-schema.test.ts).
export const {
  supplySnapshots,
  transactions,
  rewards,
  rewardPrices,
  rewardAddresses,
  usageMetrics,
  signatures,
  signatureAttempts,
  validations,
  validationObservations,
  pendingRewards,
  cycles,
  exportOperations,
  exportClaims,
  exportFiles,
  exportedTransactions,
  jobRuns,
  rejectedRecords,
  upstreamDrift,
  syncState,
  storeMeta,
  transactionSummaries,
  rewardSummaries,
  rewardValueSummaries,
  validatorSummaries,
  usageSummaries,
  jobSummaries,
  exportSummaries,
  exportStatusCounts,
  exportFileCounts,
} = sqlite;
