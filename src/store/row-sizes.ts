/**
 * What a row costs on disk, per table that grows and per store: the bytes a row adds with its
 * table's indexes, as the collector writes it (realistic rows of the simulator, written by the jobs
 * themselves). `plan` multiplies them by the rows per day of the schedules; docs/operations.md
 * ("Sizing a disk") quotes them. test/integration/row-sizes.test.ts measures them again on each
 * store and fails when one is off by more than ROW_BYTES_TOLERANCE; `npm run bench -- storage`
 * measures them on more rows.
 */
import type { Dialect } from './sql.js';

/** The tables whose rows keep coming, in the order `status` lists them. */
export const SIZED_TABLES = [
  'transactions',
  'exported_transactions',
  'rewards',
  'job_runs',
  'supply_snapshots',
  'usage_metrics',
] as const;

export type SizedTable = (typeof SIZED_TABLES)[number];

/**
 * Bytes per row with the table's indexes (a B-tree's pages are not full: their free space counts
 * too), measured on 10,000 rows a table (`npm run bench -- storage`) and rounded. `rewards`: per
 * reward, its `reward_addresses` and `reward_prices` rows included. PostgreSQL's are measured with a
 * VACUUM every tenth of the run, as autovacuum makes the space of dead rows reusable (a `job_runs`
 * row is written at the start of its run and again at its end).
 */
export const ROW_BYTES: Readonly<Record<Dialect, Readonly<Record<SizedTable, number>>>> = {
  sqlite: {
    transactions: 750,
    exported_transactions: 500,
    rewards: 1150,
    job_runs: 210,
    supply_snapshots: 350,
    usage_metrics: 240,
  },
  postgres: {
    transactions: 760,
    exported_transactions: 610,
    rewards: 1440,
    job_runs: 290,
    supply_snapshots: 280,
    usage_metrics: 300,
  },
};

/** How far a fresh measurement may stray from ROW_BYTES before the test says the constant is wrong. */
export const ROW_BYTES_TOLERANCE = 0.35;

export function isSizedTable(table: string): table is SizedTable {
  return (SIZED_TABLES as readonly string[]).includes(table);
}
