/**
 * `status`'s view of the disk: per table its rows, bytes, the oldest row kept (retained tables), and
 * the rows written and removed per day over the last week, from job_runs (rows_written: each job
 * names the table it grows; rows_removed: the maintenance job's deletions per table), never a scan
 * of the big tables.
 */

import { forTerminal } from '../escape/terminal.js';
import type { JobList } from '../kernel/index.js';
import { countRowsPerTable, readOldestKept, readRunsWrittenSince, type Store } from '../store/index.js';
import { formatTable } from '../terminal/text-table.js';
import { formatBytes, formatCount } from '../terminal/units.js';

const DAY_MS = 86_400_000;
/** The window the growth is averaged over. */
export const GROWTH_DAYS = 7;

export interface TableStatus {
  table: string;
  rows: number;
  /** Bytes with its indexes; undefined where the database cannot tell (a SQLite without dbstat). */
  bytes?: number | undefined;
  /** The oldest row kept, by the time the table is pruned by (retained tables only). */
  oldestKept?: string | undefined;
  /** Rows its jobs wrote per day, averaged over the last week (or since their first run in it). */
  writtenPerDay?: number | undefined;
  /**
   * Rows removed from it per day over the same window (the maintenance job's runs, since their
   * first in it); undefined when none were. Runs recorded before `rows_removed` existed add nothing.
   */
  removedPerDay?: number | undefined;
}

export interface StorageStatus {
  tables: TableStatus[];
  /**
   * Rows the maintenance job removed per day over the same window, every table together: from its
   * runs' rows_written, so runs recorded before `rows_removed` existed count too.
   */
  prunedPerDay: number;
}

/** Rows and the earliest run counted, per table. */
type Tally = Map<string, { rows: number; since: string }>;

function tally(into: Tally, table: string, rows: number, from: string): void {
  const g = into.get(table);
  into.set(table, { rows: (g?.rows ?? 0) + rows, since: g && g.since < from ? g.since : from });
}

export async function collectStorage(jobs: JobList, store: Store, now: Date): Promise<StorageStatus> {
  const since = new Date(now.getTime() - GROWTH_DAYS * DAY_MS).toISOString();
  const [counts, sizes, oldest, written] = await Promise.all([
    countRowsPerTable(store),
    store.tableSizes(),
    readOldestKept(store),
    readRunsWrittenSince(store, since),
  ]);
  const perDay = (n: number, from: string) =>
    // At least a day: a database a few hours old shows what it got so far, not an extrapolation.
    n / Math.max(1, Math.min(GROWTH_DAYS, (now.getTime() - Date.parse(from)) / DAY_MS));
  const rate = (t: Tally, table: string) => {
    const g = t.get(table);
    return g ? Math.round(perDay(g.rows, g.since)) : undefined;
  };
  const tableOf = new Map(jobs.map((j) => [j.name, j.table]));
  const prunes = new Set(jobs.filter((j) => j.prunes).map((j) => j.name));
  const growth: Tally = new Map();
  const removal: Tally = new Map();
  let pruned = 0;
  let prunedSince: string | undefined;
  for (const w of written) {
    tally(growth, 'job_runs', w.runs, w.since);
    const table = tableOf.get(w.job);
    if (table) tally(growth, table, w.rowsWritten, w.since);
    let removed = 0;
    for (const [removedFrom, n] of Object.entries(w.rowsRemoved)) {
      tally(removal, removedFrom, n, w.since);
      removed += n;
    }
    // A pruning job's runs recorded before rows_removed existed kept their total in rows_written.
    if (prunes.has(w.job)) removed += w.rowsWritten;
    if (removed > 0) {
      pruned += removed;
      prunedSince = prunedSince && prunedSince < w.since ? prunedSince : w.since;
    }
  }
  return {
    tables: counts.map(({ table, rows }) => ({
      table,
      rows,
      bytes: sizes.get(table),
      oldestKept: oldest[table],
      writtenPerDay: rate(growth, table),
      removedPerDay: rate(removal, table),
    })),
    prunedPerDay: prunedSince ? Math.round(perDay(pruned, prunedSince)) : 0,
  };
}

/** An ISO time as `2025-06-15 12:00:00Z`; anything else (`invalid: …`) as it is, shown safely. */
export function shownTime(iso: string): string {
  return /^\d{4}-\d{2}-\d{2}T/.test(iso) ? `${iso.slice(0, 19).replace('T', ' ')}Z` : forTerminal(iso);
}

/**
 * The table of `status`: rows, size, oldest row kept, rows written per day (`-`: no job writing the
 * table ran in the window) and removed per day (blank: nothing was removed from it).
 */
export function formatStorage(tables: readonly TableStatus[]): string {
  const count = (n: number | undefined) => (n === undefined ? '-' : formatCount(n));
  return formatTable(
    [
      'table',
      'rows',
      'size',
      'oldest kept',
      `written/day (${GROWTH_DAYS} d)`,
      `removed/day (${GROWTH_DAYS} d)`,
    ],
    tables.map((t) => [
      t.table,
      count(t.rows),
      formatBytes(t.bytes),
      t.oldestKept ? shownTime(t.oldestKept) : '',
      count(t.writtenPerDay),
      t.removedPerDay === undefined ? '' : count(t.removedPerDay),
    ]),
    { right: [1, 2, 4, 5] },
  );
}
