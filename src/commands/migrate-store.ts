/**
 * `migrate-store --from <sqlite path | postgres URL> --to <postgres URL | sqlite path>`: copies an
 * existing store into another (src/store/copy.ts), typically a SQLite file into PostgreSQL when the
 * collector moves to several hosts. Safe to run again: it inserts only what the target lacks. A
 * target that holds data and is not an earlier copy of this source is refused unless `--merge`.
 */

import { existsSync } from 'node:fs';
import { isPostgresUrl, maskDatabaseUrl, storeLocation } from '../config/index.js';
import type { CopyStoreResult, TableCopyProgress } from '../store/copy.js';
import { DatabaseOpenError, databaseProblem } from '../store/errors.js';
import type { Store, StoreLocation } from '../store/index.js';
import { failUsage } from './usage.js';

export interface MigrateStoreFlags {
  from: string;
  to: string;
  /** Rows per batch (and per target transaction), as typed. */
  batchSize?: string;
  /** Copy into a target that holds data and is not an earlier copy of this source. */
  merge?: boolean;
}

export interface MigrateStoreOutput {
  /** A line for the user (stdout). */
  line: (text: string) => void;
}

/** A progress line per table at most this often, besides its last. */
const PROGRESS_EVERY_MS = 2_000;

const stdout: MigrateStoreOutput = { line: (text) => void process.stdout.write(`${text}\n`) };

/**
 * The command's action: opens both stores (migrating them to the current schema), copies, prints a
 * progress line per table and a summary table. Bad arguments exit 2 (`failUsage`); a failure throws
 * an error that says which side (source or target) failed, and where.
 */
export async function migrateStore(
  flags: MigrateStoreFlags,
  output: MigrateStoreOutput = stdout,
): Promise<void> {
  const [{ copyStore, TargetNotEmptyError }, { openStore }] = await Promise.all([
    import('../store/copy.js'),
    import('../store/index.js'),
  ]);
  const batchSize = flags.batchSize === undefined ? 1000 : Number(flags.batchSize);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 100_000) {
    return failUsage(
      `error: --batch-size must be a whole number of rows from 1 to 100000, got '${flags.batchSize}'`,
    );
  }
  const source = maskDatabaseUrl(flags.from);
  const target = maskDatabaseUrl(flags.to);
  if (flags.from === flags.to) {
    return failUsage(`error: --from and --to are the same store (${source})`);
  }
  // Opening a SQLite path creates the file: a source that is not there is a mistake, not an empty store.
  if (!isPostgresUrl(flags.from) && !existsSync(flags.from)) {
    return failUsage(`error: --from: no SQLite database at ${source}`);
  }

  output.line(`copying ${source} (source) into ${target} (target)`);
  // A source without the collector's tables (a wrong URL or schema) is refused before anything is
  // created there; one of an older version is migrated, as `start` would.
  const probe = await open('source', flags.from, source, (l) => openStore(l, { migrate: false }));
  try {
    if (!(await holdsCollectorTables(probe))) {
      throw new Error(
        `source ${source}: no glacier-collector tables there (a wrong path, URL or search_path?)`,
      );
    }
  } finally {
    await probe.close();
  }
  const from = await open('source', flags.from, source, openStore);
  let to: Store | undefined;
  try {
    to = await open('target', flags.to, target, openStore);
    let shown = 0;
    let result: CopyStoreResult;
    try {
      result = await copyStore(from, to, {
        batchSize,
        merge: flags.merge ?? false,
        onProgress: (p) => {
          const now = Date.now();
          if (!p.done && now - shown < PROGRESS_EVERY_MS) return;
          shown = p.done ? 0 : now;
          output.line(progressLine(p));
        },
      });
    } catch (err) {
      if (err instanceof TargetNotEmptyError) return failUsage(`error: ${err.message}`);
      throw err;
    }
    for (const line of formatCopySummary(result)) output.line(line);
  } finally {
    await Promise.allSettled([from.close(), to?.close()]);
  }
}

async function open(
  side: 'source' | 'target',
  location: string,
  printable: string,
  openStore: (location: StoreLocation) => Promise<Store>,
): Promise<Store> {
  try {
    return await openStore(storeLocation(location));
  } catch (cause) {
    // Not DatabaseOpenError's own message: it would name the location a second time.
    const problem =
      cause instanceof DatabaseOpenError ? databaseProblem(cause.cause) : databaseProblem(cause);
    throw new Error(`${side} ${printable}: cannot open it: ${problem}`, { cause });
  }
}

/** Whether the collector ever migrated this store: its job_runs table exists. */
async function holdsCollectorTables(store: Store): Promise<boolean> {
  try {
    return await store.hasTable('job_runs');
  } catch (cause) {
    throw new Error(`source ${store.location}: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
  }
}

function progressLine(p: TableCopyProgress): string {
  const of = p.done ? `${p.read}` : `${p.read}/${p.total}`;
  return `${p.table}: ${of} rows read, ${p.inserted} inserted${p.done ? '' : '…'}`;
}

/** The summary: rows read and inserted per table, then how each summary table was brought up to date. */
export function formatCopySummary(result: CopyStoreResult): string[] {
  const header = ['table', 'read', 'inserted'];
  const rows = result.tables.map((t) => [t.table, String(t.read), String(t.inserted)]);
  const total = ['total', ...[1, 2].map((i) => String(rows.reduce((n, r) => n + Number(r[i]), 0)))];
  const widths = header.map((h, i) => Math.max(h.length, ...[...rows, total].map((r) => r[i]!.length)));
  const format = (r: string[]) =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const byTriggers = result.summaries.filter((s) => s.by === 'triggers').map((s) => s.table);
  const rebuilt = result.summaries.filter((s) => s.by === 'rebuilt').map((s) => s.table);
  return [
    '',
    format(header),
    rule,
    ...rows.map(format),
    rule,
    format(total),
    '',
    `summaries counted by the target's triggers: ${byTriggers.join(', ')}`,
    `summaries rebuilt from the copied rows: ${rebuilt.join(', ')}`,
    'rows the target already held were kept as they were; running it again copies only what is missing',
    'the copy is complete: the target can be started on',
  ];
}
