/**
 * The database could not be opened (or reached), read, or migrated. The message names the path and
 * what to check; `createApp` adds the setting it came from.
 */
export class DatabaseOpenError extends Error {
  override readonly name = 'DatabaseOpenError';
  constructor(
    readonly path: string,
    cause: unknown,
    /** The setting the path came from, e.g. `DATABASE_PATH`. */
    setting?: string,
  ) {
    const where = setting
      ? `${setting} = "${path}": cannot open the database`
      : `cannot open the database "${path}"`;
    super(`${where}: ${databaseProblem(cause)}`, { cause });
  }
}

/** A write failed inside the database (disk full, read-only file, lock held too long...). */
export class DatabaseWriteError extends Error {
  override readonly name = 'DatabaseWriteError';
  /** The database's error code, e.g. `SQLITE_FULL` or PostgreSQL's SQLSTATE `53100`. */
  readonly code: string;
  constructor(
    readonly path: string,
    cause: Error & { code: string },
  ) {
    super(`cannot write the database "${path}": ${databaseProblem(cause)}`, { cause });
    this.code = cause.code;
  }
}

export function databaseProblem(cause: unknown): string {
  const code = (cause as { code?: string }).code;
  const message = cause instanceof Error ? cause.message : String(cause);
  switch (code) {
    case 'SQLITE_CANTOPEN':
      return `${message} (does its directory exist and is it writable, and is the path a file?)`;
    case 'SQLITE_NOTADB':
      return `${message} (the file exists but is not a SQLite database: a wrong path?)`;
    case 'SQLITE_READONLY':
      return `${message} (the file or its directory is read-only)`;
    case 'SQLITE_FULL':
      return `${message} (SQLITE_FULL: free space on its disk; what was committed before is intact)`;
    case 'SQLITE_BUSY':
      return `${message} (SQLITE_BUSY: another process held the database longer than the busy timeout)`;
    // PostgreSQL (node-postgres): network errors, then SQLSTATEs.
    case 'ECONNREFUSED':
      return `${message} (is PostgreSQL running and listening at that host and port?)`;
    case 'ENOTFOUND':
      return `${message} (the host name does not resolve)`;
    case '28P01':
    case '28000':
      return `${message} (check the user and password of DATABASE_URL)`;
    case '3D000':
      return `${message} (create the database first, or fix its name in DATABASE_URL)`;
    case '3F000':
      return `${message} (create the schema of the search_path first)`;
    case '53100':
      return `${message} (PostgreSQL's disk is full; what was committed before is intact)`;
    default:
      return code ? `${message} (${code})` : message;
  }
}

/** The DatabaseWriteError of a full disk in `err` or its causes (SQLite's SQLITE_FULL, PostgreSQL's 53100). */
export function diskFullError(err: unknown): DatabaseWriteError | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof DatabaseWriteError && (e.code === 'SQLITE_FULL' || e.code === '53100')) return e;
  }
  return undefined;
}
