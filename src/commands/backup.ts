/**
 * `backup <file>`: a consistent copy of the SQLite database while the service keeps writing, through
 * SQLite's online backup API (better-sqlite3's `db.backup()`). PostgreSQL has its own tool, `pg_dump`;
 * docs/operations.md ("Backups and restore") gives both, with the restore.
 */
import { existsSync, linkSync, realpathSync, renameSync, rmSync, type Stats, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { type Config, fileType } from '../config/index.js';
import { failUsage } from './usage.js';

export interface BackupResult {
  source: string;
  target: string;
  bytes: number;
  pages: number;
}

/** A refusal the user can fix by changing the command line (exit 2). */
export class BackupUsageError extends Error {
  override readonly name = 'BackupUsageError';
}

/**
 * Copies the configured SQLite database to `file`. The copy is written beside it under a temporary
 * name, checked (`PRAGMA quick_check`), then moved into place: an interrupted backup never leaves a
 * half-written file under the name asked for, and `--force` replaces an older backup only with a
 * complete one. Without `force`, an existing file is never overwritten, even one created meanwhile.
 */
export async function backupDatabase(
  config: Pick<Config, 'database'>,
  file: string,
  options: { force?: boolean } = {},
): Promise<BackupResult> {
  const db = config.database;
  if (db.kind === 'postgres') {
    throw new BackupUsageError(
      'backup copies a SQLite database; this one is PostgreSQL (DATABASE_URL): use pg_dump, e.g. ' +
        'pg_dump --format=custom --file=glacier.dump "$DATABASE_URL", and pg_restore to restore ' +
        '(docs/operations.md, "Backups and restore")',
    );
  }
  const source = db.path;
  if (source === ':memory:' || !existsSync(source)) {
    throw new Error(`no database at ${source}: nothing to back up (DATABASE_PATH sets it)`);
  }
  const target = checkTarget(source, resolve(file), options);
  const { copySqliteFile } = await import('../store/sqlite.js');
  const temporary = join(dirname(target), `.${basename(target)}.${process.pid}.partial`);
  try {
    const pages = await copySqliteFile(source, temporary);
    if (options.force) renameSync(temporary, target);
    else {
      // link fails if the name was taken meanwhile: never overwrite without --force.
      try {
        linkSync(temporary, target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
          throw new BackupUsageError(`${target} exists: choose another file, or pass --force to replace it`);
        }
        throw error;
      }
    }
    return { source, target, bytes: statSync(target).size, pages };
  } finally {
    for (const leftover of [temporary, `${temporary}-wal`, `${temporary}-shm`])
      rmSync(leftover, { force: true });
  }
}

/** SQLite's files beside a database: its write-ahead log, its shared memory, its rollback journal. */
const COMPANIONS = ['', '-wal', '-shm', '-journal'];

/**
 * The target as it will be written, refused when it is the live database or one of its files under
 * any name: by identity (device and inode: a hard link, a symlink) and by the real path of its
 * directory (a symlinked directory; a `-wal` that does not exist yet), not by the path's text.
 * Replaced, the live database would be a deleted inode the running service goes on writing to, and
 * everything written after the backup would be lost silently. Refused with or without --force.
 */
function checkTarget(source: string, target: string, options: { force?: boolean }): string {
  const directory = dirname(target);
  if (!existsSync(directory)) throw new BackupUsageError(`${directory}: no such directory`);
  const real = join(realpathSync(directory), basename(target));
  // The database's name with its directory resolved, and with the file's own symlink resolved too
  // (SQLite puts its -wal beside the file a symlink points to).
  const sourceNames = [join(realpathSync(dirname(source)), basename(source)), realpathSync(source)];
  const itself = new BackupUsageError(
    `${target} is the live database ${source} (or one of its files), under this name or another: back up to another file`,
  );
  if (sourceNames.some((name) => COMPANIONS.some((suffix) => real === `${name}${suffix}`))) throw itself;
  let found: Stats | undefined;
  try {
    found = statSync(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (!found) return target;
  const ids = new Set(
    [source, ...sourceNames].flatMap((name) =>
      COMPANIONS.flatMap((suffix) => {
        const s = statSync(`${name}${suffix}`, { throwIfNoEntry: false });
        return s ? [`${s.dev}:${s.ino}`] : [];
      }),
    ),
  );
  if (ids.has(`${found.dev}:${found.ino}`)) throw itself;
  if (!found.isFile()) {
    throw new BackupUsageError(`${target} is ${fileType(found)}, not a file: back up to a file`);
  }
  if (!options.force) {
    throw new BackupUsageError(`${target} exists: choose another file, or pass --force to replace it`);
  }
  return target;
}

/** `backup <file>`: the copy, then one line saying what was written. */
export async function backup(config: Config, file: string, flags: { force?: boolean }): Promise<void> {
  try {
    const result = await backupDatabase(config, file, { force: flags.force });
    const mib = (result.bytes / 2 ** 20).toFixed(1);
    console.log(`backed up ${result.source} to ${result.target} (${result.pages} pages, ${mib} MiB)`);
  } catch (error) {
    if (error instanceof BackupUsageError) return failUsage(`error: ${error.message}`);
    throw error;
  }
}
