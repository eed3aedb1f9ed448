/**
 * Storage (issue 16, months in production): the database's bytes a day at the schedules of
 * glacier-collector.example.yaml, the worst case `plan` counts (every run reading `maxPages`), on
 * each store:
 *
 * - baseline: without retention, everything `plan` counts rows of (transactions, job_runs,
 *   supply_snapshots, usage_metrics) grows for ever;
 * - value: with SIZING_RETENTION (transactions 7d, exportedTransactions 30d, jobRuns 90d; supply and
 *   usage metrics kept) once the pruned tables have levelled off: what the tables kept still add a
 *   day. Goal: at most 1% of the baseline;
 * - the size the pruned tables level off at (rows a day × days kept × bytes a row), informative.
 *
 * The bytes a row are measured in this run, not taken from src/store/row-sizes.ts: the jobs write
 * `--scale` × 10,000 rows of each table from the simulator into a fresh database and the store's own
 * table sizes are read (test/support/row-sizes.ts, as the test that keeps the constants true); each
 * measured figure is also compared with its constant (goal: within ROW_BYTES_TOLERANCE). One
 * measurement per store (the data is the simulator's, the same every run: `--runs` does not repeat it);
 * its wall and CPU time, and on SQLite the bytes this process wrote (file and WAL: every commit
 * writes whole pages), are in the notes. PostgreSQL is left out, with a line on stderr, when the
 * bench's server does not answer.
 */

import { jobs } from '../../jobs/index.js';
import { buildPlan } from '../../src/commands/plan.js';
import { storeLocation } from '../../src/config/index.js';
import { estimateDisk, STORE_NAMES } from '../../src/report/disk.js';
import { type Dialect, openStore, ROW_BYTES, ROW_BYTES_TOLERANCE } from '../../src/store/index.js';
import { formatBytes } from '../../src/terminal/units.js';
import {
  exampleConfig,
  type MeasuredRows,
  measureRowBytes,
  SIZING_RETENTION,
} from '../../test/support/row-sizes.js';
import { type Cost, cost, type Figure, figure, scaled } from '../lib.js';
import { benchSchema, scratch, withPostgres } from '../support.js';

/** At most this share of the growth without retention is left once the pruned tables level off. */
const GOAL = 0.01;

export async function run(): Promise<Figure[]> {
  const rows = scaled(10_000, 200);
  const figures: Figure[] = [];
  const dirs = scratch('storage');
  try {
    figures.push(...storageFigures('sqlite', await measureAt(dirs.path('storage.db'), rows)));
  } finally {
    dirs.cleanup();
  }
  if (!(await postgresAnswers())) {
    process.stderr.write('bench: storage: no PostgreSQL at the bench URL, its figures are left out\n');
    return figures;
  }
  const schema = await benchSchema('storage');
  try {
    figures.push(...storageFigures('postgres', await measureAt(schema.url, rows)));
  } finally {
    await schema.drop();
  }
  return figures;
}

interface Measured {
  rows: MeasuredRows[];
  /** Of the whole measurement: the jobs' runs, the simulator in this process, the size reads. */
  fill: Cost;
}

/** The bytes a row of a fresh database at `location` (a SQLite path or a PostgreSQL URL). */
async function measureAt(location: string, rows: number): Promise<Measured> {
  const store = await openStore(storeLocation(location));
  try {
    let measured: MeasuredRows[] = [];
    const fill = await cost(async () => {
      measured = await measureRowBytes(store, { rows });
    });
    return { rows: measured, fill };
  } finally {
    await store.close();
  }
}

function storageFigures(store: Dialect, m: Measured): Figure[] {
  const name = STORE_NAMES[store];
  const measured = new Map(m.rows.map((r) => [r.table as string, r.bytesPerRow]));
  const estimate = (retention: Record<string, string>) => {
    const config = exampleConfig(retention);
    return estimateDisk(buildPlan(jobs, config).tables, config.retention, store, (t) => measured.get(t));
  };
  // The baseline: no retention at all (job_runs' 90 days are a default, so set it to forever).
  const without = estimate({ jobRuns: 'forever' });
  const retained = estimate(SIZING_RETENTION);
  const perRow = m.rows.map((r) => `${r.table} ${Math.round(r.bytesPerRow)}`).join(', ');
  // PostgreSQL's writes are its server's, not this process's.
  const written = store === 'sqlite' ? `, ${formatBytes(m.fill.bytesWritten)} written by it` : '';
  const fill = `measured on ${m.rows[0]?.rows.toLocaleString('en')}+ rows a table: ${(m.fill.wallMs / 1000).toFixed(1)} s wall, ${(m.fill.cpuMs / 1000).toFixed(1)} s CPU of this process${written}`;
  const retention = Object.entries(SIZING_RETENTION)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return [
    figure({
      id: `storage.${store}.bytes-per-day`,
      title: `${name}: the example config's database growth a day (worst case), with retention (${retention}) once levelled off`,
      unit: 'B',
      value: retained.perDayAfterLevelling.worst,
      baseline: without.perDayWithoutRetention.worst,
      baselineLabel: 'the same without retention',
      goal: { max: GOAL },
      note: `steady state: ${formatBytes(Math.round(retained.perDayAfterLevelling.steady))} against ${formatBytes(Math.round(without.perDayWithoutRetention.steady))} a day; bytes a row ${perRow}; ${fill}`,
    }),
    figure({
      id: `storage.${store}.levels-off-at`,
      title: `${name}: the size the pruned tables level off at (worst case), against a day without retention`,
      unit: 'B',
      value: retained.levelsOffAt.worst,
      baseline: without.perDayWithoutRetention.worst,
      baselineLabel: 'a day without retention',
      note: `steady state: ${formatBytes(Math.round(retained.levelsOffAt.steady))}`,
    }),
    ...m.rows.map((r) =>
      figure({
        id: `storage.${store}.row.${r.table}`,
        title: `${name}: bytes a row of ${r.table} with its indexes, measured`,
        unit: 'B',
        value: r.bytesPerRow,
        baseline: ROW_BYTES[store][r.table],
        baselineLabel: `ROW_BYTES.${store} (src/store/row-sizes.ts)`,
        goal: { min: 1 - ROW_BYTES_TOLERANCE, max: 1 + ROW_BYTES_TOLERANCE },
      }),
    ),
  ];
}

async function postgresAnswers(): Promise<boolean> {
  try {
    await withPostgres((c) => c.query('SELECT 1'));
    return true;
  } catch {
    return false;
  }
}
