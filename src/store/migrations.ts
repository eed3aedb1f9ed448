/**
 * What a migration of the store does, said before it is done: the migrations this version ships
 * (drizzle/<dialect>/, its journal), which of them a database lacks, what the long ones do (a table
 * rebuilt), and a database migrated by a newer version refused before anything is written to it.
 *
 * Drizzle's migrator applies every shipped migration whose journal time (`when`) is later than the
 * newest one the database records (`__drizzle_migrations.created_at`): the same rule reads what is
 * pending here. Which version migrated a database is kept beside drizzle's table, in
 * `__glacier_versions` (one row per version that migrated it), so a refusal can name it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../runtime/package-root.js';

/** drizzle/<dialect>/ at the package root. */
export function migrationsFolder(dialect: 'sqlite' | 'postgres'): string {
  return join(packageRoot(), 'drizzle', dialect);
}

/** Told the migrations about to be applied (none: not called), before the first is. */
export type MigrationListener = (pending: readonly ShippedMigration[]) => void;

export interface ShippedMigration {
  /** Its file name without `.sql`: `0006_records_set_aside`. */
  tag: string;
  /** The journal's time of it (ms), what drizzle orders and compares by. */
  when: number;
  /** What of it takes time in proportion to the data (a table rebuilt), if anything. */
  note: string | undefined;
}

/** The migrations of this version for `dialect`, oldest first. */
export function readShippedMigrations(
  dialect: 'sqlite' | 'postgres',
  folder = migrationsFolder(dialect),
): ShippedMigration[] {
  const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string; when: number }[];
  };
  return journal.entries.map((e) => ({
    tag: e.tag,
    when: e.when,
    note: describeSlowSteps(readFileSync(join(folder, `${e.tag}.sql`), 'utf8')),
  }));
}

/**
 * The steps of a migration's SQL whose time grows with the data: SQLite's table rebuild (drizzle-kit
 * writes `__new_<table>`, copies every row, drops the old one), a column's type changed in place
 * (PostgreSQL rewrites the table), rows updated, an index built on a table that existed before.
 */
export function describeSlowSteps(sql: string): string | undefined {
  const created = new Set([...sql.matchAll(/CREATE TABLE [`"]([\w]+)[`"]/gi)].map((m) => m[1]!));
  const steps: string[] = [];
  const rebuilt = new Set([...sql.matchAll(/CREATE TABLE [`"]__new_(\w+)[`"]/gi)].map((m) => m[1]!));
  for (const table of rebuilt) steps.push(`rebuilds \`${table}\` (a copy of every row)`);
  const retyped = new Set(
    [...sql.matchAll(/ALTER TABLE [`"](\w+)[`"] ALTER COLUMN [`"]\w+[`"] SET DATA TYPE/gi)].map((m) => m[1]!),
  );
  for (const table of retyped) steps.push(`rewrites \`${table}\` (a column's type changed)`);
  const updated = new Set(
    [...sql.matchAll(/(?:^|;|\n)\s*(?:UPDATE|INSERT INTO) [`"]?(\w+)[`"]?[\s(]/gi)].map((m) => m[1]!),
  );
  for (const table of updated) {
    if (!table.startsWith('__new_') && !created.has(table)) steps.push(`rewrites rows of \`${table}\``);
    else if (created.has(table) && !table.startsWith('__new_') && /SELECT/i.test(sql)) {
      steps.push(`fills \`${table}\` from the existing rows`);
    }
  }
  const indexed = new Set(
    [...sql.matchAll(/CREATE (?:UNIQUE )?INDEX (?:IF NOT EXISTS )?[`"]?\w+[`"]? ON [`"]?(\w+)[`"]?/gi)].map(
      (m) => m[1]!,
    ),
  );
  for (const table of indexed) {
    if (!created.has(table) && !rebuilt.has(table)) steps.push(`builds an index of \`${table}\``);
  }
  return steps.length > 0 ? [...new Set(steps)].join(', ') : undefined;
}

/** The table of the versions that migrated the database, beside drizzle's `__drizzle_migrations`. */
export const VERSIONS_TABLE = '__glacier_versions';
export const CREATE_VERSIONS_TABLE = `CREATE TABLE IF NOT EXISTS "${VERSIONS_TABLE}" ("version" text PRIMARY KEY, "first_migrated_at" text NOT NULL)`;
/** Two parameters: the version, the time (ISO 8601). */
export const RECORD_VERSION = `INSERT INTO "${VERSIONS_TABLE}" ("version", "first_migrated_at") VALUES (?, ?) ON CONFLICT ("version") DO NOTHING`;
export const SELECT_VERSIONS = `SELECT "version" FROM "${VERSIONS_TABLE}"`;

/** What a database holds of the migrations, read before anything is written to it. */
export interface AppliedState {
  /** The newest `created_at` of `__drizzle_migrations`; undefined: no migration applied yet. */
  lastAppliedMs: number | undefined;
  /** The versions `__glacier_versions` records (none before 0.2.0, or on a new database). */
  versions: readonly string[];
}

/** A database migrated by a newer version than the one running: refused, the database left as it is. */
export class DatabaseNewerError extends Error {
  override readonly name = 'DatabaseNewerError';
}

/** Numeric comparison of `1.2.3` versions (a pre-release suffix ignored). */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) =>
    v
      .split('-')[0]!
      .split('.')
      .map((n) => Number.parseInt(n, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The shipped migrations the database lacks, oldest first; throws DatabaseNewerError when it holds
 * a migration newer than any this version ships (a downgrade): naming the database's version and
 * this one, before anything is written.
 */
export function pendingMigrations(
  shipped: readonly ShippedMigration[],
  state: AppliedState,
  running: string,
  location: string,
): ShippedMigration[] {
  const newest = shipped.at(-1)?.when ?? 0;
  if (state.lastAppliedMs !== undefined && state.lastAppliedMs > newest) {
    const newer = [...state.versions].sort(compareVersions).at(-1);
    const theirs =
      newer && compareVersions(newer, running) > 0
        ? `glacier-collector ${newer}`
        : `a glacier-collector newer than ${running}`;
    const at = new Date(state.lastAppliedMs).toISOString();
    throw new DatabaseNewerError(
      `the database ${location} was migrated by ${theirs} (its newest migration, of ${at}, is not one this version ships), and this is glacier-collector ${running}: an older version does not run on a newer schema, and the database was left as it is. Run ${newer && compareVersions(newer, running) > 0 ? newer : 'that version'} or newer, or restore the backup made before the upgrade.`,
    );
  }
  const last = state.lastAppliedMs;
  return shipped.filter((m) => last === undefined || m.when > last);
}

/** One line per migration to apply: `0006_records_set_aside: rebuilds \`transactions\` (…)`. */
export function describeMigration(m: ShippedMigration): string {
  return m.note ? `${m.tag}: ${m.note}` : m.tag;
}
