import type { BuildColumns } from 'drizzle-orm';
import {
  bigint,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
  type PgColumn,
  type PgColumnBuilderBase,
  type PgTableWithColumns,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';
import { type BuiltColumns, buildColumns, type KindBuilders, type Table } from './columns.js';
import * as tables from './description.js';

/*
 * The PostgreSQL tables, built from description.ts as schema.ts builds the SQLite ones: the same
 * tables, column names (and property names), keys, indexes and defaults, in the same order; only
 * the types differ. drizzle-kit reads this file to write drizzle/postgres/.
 */

/** Each kind's PostgreSQL column (columns.ts says what each kind holds). */
const builders = {
  text: (name: string) => text(name),
  decimal: (name: string) => numeric(name),
  integer: (name: string) => bigint(name, { mode: 'number' }),
  int32: (name: string) => integer(name),
  timestamp: (name: string) => timestamp(name, { withTimezone: true, mode: 'string' }),
  json: (name: string) => jsonb(name),
  real: (name: string) => doublePrecision(name),
  decimalSum: (name: string) => numeric(name),
  identity: (name: string) => bigint(name, { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
} satisfies KindBuilders;

type PgTableOf<T extends Table> = PgTableWithColumns<{
  name: T['name'];
  schema: undefined;
  columns: BuildColumns<T['name'], BuiltColumns<typeof builders, T['columns']>, 'pg'>;
  dialect: 'pg';
}>;

type PgColumns = [PgColumn, ...PgColumn[]];

function pgTableOf<T extends Table>({ name, columns, constraints }: T): PgTableOf<T> {
  const built = buildColumns(builders, columns) as Record<string, PgColumnBuilderBase>;
  return pgTable(name, built, (self) =>
    constraints(self).map((c) => {
      if (c.type === 'primaryKey')
        return primaryKey({ name: `${name}_pkey`, columns: c.columns as PgColumns });
      const on = index(c.name).on(...(c.columns as PgColumns));
      return c.condition ? on.where(c.condition) : on;
    }),
  ) as unknown as PgTableOf<T>;
}

const postgres = Object.fromEntries(
  Object.entries(tables).map(([prop, table]) => [prop, pgTableOf(table)]),
) as { [P in keyof typeof tables]: PgTableOf<(typeof tables)[P]> };

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
} = postgres;
