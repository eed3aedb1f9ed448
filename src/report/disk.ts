/**
 * `plan`'s disk estimate: each table's rows per day (the schedules', steady and worst) times the bytes
 * a row takes with its indexes on the store the config points at (src/store/row-sizes.ts), and for a
 * table `retention` prunes, the size it levels off at once the pruning removes a day's rows a day:
 * rows a day × days kept × bytes a row. docs/operations.md ("Sizing a disk") shows it for the
 * example config; `npm run bench -- storage` computes the same from bytes a row measured in its run.
 */
import { FOREVER, RETAINED_TABLES, type RetentionConfig, STARTER_RETENTION } from '../config/index.js';
import type { Dialect } from '../store/index.js';
import { formatTable } from '../terminal/text-table.js';
import { formatBytes } from '../terminal/units.js';

const DAY_MS = 86_400_000;

/** A steady-state and a worst-case figure (`plan`'s two columns). */
export interface Range {
  steady: number;
  worst: number;
}

export interface TableDisk {
  table: string;
  bytesPerRow: number;
  bytesPerDay: Range;
  /** Days its rows are kept; null: forever (never pruned). */
  retentionDays: number | null;
  /** The size it levels off at under its retention; undefined when kept forever. */
  levelsOffAt?: Range | undefined;
}

export interface DiskEstimate {
  /** The store whose bytes a row were used. */
  store: Dialect;
  tables: TableDisk[];
  /** All the tables together, as if nothing were pruned. */
  perDayWithoutRetention: Range;
  /** The pruned tables together, once levelled off. */
  levelsOffAt: Range;
  /** What the tables kept forever still add a day once the others have levelled off. */
  perDayAfterLevelling: Range;
}

const retentionKeyOf = new Map<string, keyof RetentionConfig>(
  Object.entries(RETAINED_TABLES).map(([key, table]) => [table, key as keyof RetentionConfig]),
);

/** The days `retention` keeps a table's rows; null when forever or when `retention` does not name it. */
export function retentionDays(retention: RetentionConfig, table: string): number | null {
  const key = retentionKeyOf.get(table);
  const kept = key ? retention[key] : FOREVER;
  return kept === FOREVER ? null : kept / DAY_MS;
}

const sum = (xs: readonly Range[]): Range =>
  xs.reduce((t, x) => ({ steady: t.steady + x.steady, worst: t.worst + x.worst }), { steady: 0, worst: 0 });
const times = (r: Range, k: number): Range => ({ steady: r.steady * k, worst: r.worst * k });

/**
 * The estimate for `tables` (rows per day, steady and worst), `bytesPerRow` of each (ROW_BYTES of the
 * store, or bytes measured in a benchmark); a table it has no figure for is left out.
 */
export function estimateDisk(
  tables: readonly ({ table: string } & Range)[],
  retention: RetentionConfig,
  store: Dialect,
  bytesPerRow: (table: string) => number | undefined,
): DiskEstimate {
  const out: TableDisk[] = [];
  for (const t of tables) {
    const bytes = bytesPerRow(t.table);
    if (bytes === undefined) continue;
    const perDay = times(t, bytes);
    const days = retentionDays(retention, t.table);
    out.push({
      table: t.table,
      bytesPerRow: bytes,
      bytesPerDay: perDay,
      retentionDays: days,
      levelsOffAt: days === null ? undefined : times(perDay, days),
    });
  }
  return {
    store,
    tables: out,
    perDayWithoutRetention: sum(out.map((t) => t.bytesPerDay)),
    levelsOffAt: sum(out.flatMap((t) => t.levelsOffAt ?? [])),
    perDayAfterLevelling: sum(out.filter((t) => t.retentionDays === null).map((t) => t.bytesPerDay)),
  };
}

/**
 * Said when the table that grows most is kept forever (no `retention` for it): the database grows
 * without bound, and a disk fills in weeks. Undefined when it is pruned, or `retention` cannot.
 */
export function keptForeverWarning(d: DiskEstimate): string | undefined {
  const largest = d.tables.reduce<TableDisk | undefined>(
    (big, t) => (!big || t.bytesPerDay.worst > big.bytesPerDay.worst ? t : big),
    undefined,
  );
  const key = largest && retentionKeyOf.get(largest.table);
  if (!largest || !key || largest.retentionDays !== null) return undefined;
  return `${largest.table}, the largest table, is kept forever: it grows ${formatByteRange(largest.bytesPerDay)} a day without bound; set retention.${key} (e.g. "${STARTER_RETENTION[key]}", as the starter config) and the maintenance job prunes it`;
}

export const STORE_NAMES: Readonly<Record<Dialect, string>> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

/** "1.0 MiB–1.0 GiB", or one figure when steady and worst agree (as `plan`'s CU/run). */
export function formatByteRange(r: Range): string {
  const steady = formatBytes(Math.round(r.steady));
  const worst = formatBytes(Math.round(r.worst));
  return steady === worst ? worst : `${steady}–${worst}`;
}

/** The table of `plan`'s disk estimate and its totals, each figure steady–worst. */
export function formatDisk(d: DiskEstimate): string {
  const table = formatTable(
    ['table', 'bytes/row', 'bytes/day', 'retention', 'levels off at'],
    d.tables.map((t) => [
      t.table,
      String(t.bytesPerRow),
      formatByteRange(t.bytesPerDay),
      t.retentionDays === null ? FOREVER : `${t.retentionDays}d`,
      t.levelsOffAt ? formatByteRange(t.levelsOffAt) : '-',
    ]),
    { right: [1, 2, 4] },
  );
  const lines = [
    `disk on ${STORE_NAMES[d.store]}, steady–worst (bytes a row with its indexes, as measured: docs/operations.md, "Sizing a disk"):`,
    table,
    `without retention the database grows ${formatByteRange(d.perDayWithoutRetention)} a day`,
  ];
  if (d.tables.some((t) => t.levelsOffAt)) {
    lines.push(
      `with this retention the pruned tables level off at ${formatByteRange(d.levelsOffAt)}, and the tables kept forever grow ${formatByteRange(d.perDayAfterLevelling)} a day`,
    );
  }
  return lines.join('\n');
}
