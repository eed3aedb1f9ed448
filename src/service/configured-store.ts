import { untrustedCertificateHint } from '../config/client-tls.js';
import { type Config, databaseLocation, databaseSetting } from '../config/index.js';
import { DatabaseOpenError, type OpenStoreOptions, openStore, type Store } from '../store/index.js';

/**
 * The database of `DATABASE_URL` or `DATABASE_PATH`, migrated (unless `migrate: false`); an error
 * names the setting and its value (the URL's password masked).
 */
export async function openConfiguredStore(
  config: Pick<Config, 'database'>,
  options: OpenStoreOptions = {},
): Promise<Store> {
  const db = config.database;
  try {
    return await openStore(databaseLocation(config), {
      ...(db.kind === 'postgres' && { poolSize: db.poolSize, ssl: db.ssl }),
      ...options,
    });
  } catch (err) {
    if (!(err instanceof DatabaseOpenError)) throw err;
    // A certificate refused: name the CA variable (and its file), not only OpenSSL's words.
    const hint =
      db.kind === 'postgres' && untrustedCertificateHint(err.cause, 'DATABASE_TLS_CA_FILE', db.tls?.caFile);
    const cause = hint
      ? new Error(`${(err.cause as Error).message}: ${hint}`, { cause: err.cause })
      : err.cause;
    // Its path is the printable location already: the SQLite path, or the masked URL.
    throw new DatabaseOpenError(err.path, cause, databaseSetting(config));
  }
}
