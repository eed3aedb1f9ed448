import { untrustedCertificateHint } from '../config/client-tls.js';
import { type Config, ConfigError, databaseLocation, databaseSetting } from '../config/index.js';
import { urlSecrets } from '../config/url-password.js';
import type { RunDeps } from '../kernel/index.js';
import type { Observer } from '../metrics/index.js';
import { type Clock, systemClock } from '../runtime/clock.js';
import { configuredLogger, createLogger, type Logger } from '../runtime/logger.js';
import { packageVersion } from '../runtime/version.js';
import {
  DatabaseOpenError,
  describeMigration,
  type OpenStoreOptions,
  openStore,
  readUnfinishedCopy,
  type Store,
  unfinishedCopyProblem,
} from '../store/index.js';
import { type ComputeUnitBudget, createDataApiClient, type DataApiClient } from '../upstream/index.js';
import { createLifecycle, type Lifecycle } from './lifecycle.js';

export interface App extends RunDeps {
  client: DataApiClient;
  store: Store;
  log: Logger;
  clock: Clock;
  /** Releases what the app opened (the HTTP connection pool, then the database) and whatever else
   * its lifecycle holds. */
  close(): Promise<void>;
}

export interface AppOverrides {
  log?: Logger;
  clock?: Clock;
  /** The service's shared compute-unit budget; `run` has none. */
  budget?: ComputeUnitBudget;
  /** Told every upstream attempt (the service's metrics). */
  observer?: Pick<Observer, 'observeAttempt'>;
  /** Where the app registers the release of what it opens. @defaultValue a lifecycle of its own */
  lifecycle?: Lifecycle;
}

/** The one place that builds the real instances: database (migrated), HTTP client, logger. */
export async function createApp(config: Config, overrides: AppOverrides = {}): Promise<App> {
  const log = overrides.log ?? createLogger(configuredLogger(config));
  const clock = overrides.clock ?? systemClock;
  const lifecycle = overrides.lifecycle ?? createLifecycle({ log });
  const store = await openConfiguredStore(config, {
    // A pooled PostgreSQL connection the server dropped while idle: the pool replaces it.
    onIdleError: (err) => log.warn({ err: err.message }, 'an idle database connection failed'),
    // Said before each is applied: a table rebuilt takes time in proportion to its rows.
    onMigrations: (pending) => {
      for (const m of pending) {
        log.info(
          { migration: m.tag, ...(m.note && { does: m.note }) },
          `applying migration ${describeMigration(m)}`,
        );
      }
    },
  });
  lifecycle.add('database', () => store.close());
  await refuseUnfinishedCopy(store, lifecycle);
  const client = createDataApiClient({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    version: packageVersion(),
    attemptTimeoutMs: config.client.attemptTimeout,
    callTimeoutMs: config.client.callTimeout,
    retry: { maxAttempts: config.client.maxAttempts },
    clock,
    ...(overrides.budget && { budget: overrides.budget }),
    log,
    ...(overrides.observer && { onAttempt: overrides.observer.observeAttempt }),
  });
  lifecycle.add('http agent', () => client.close());
  return {
    client,
    store,
    log,
    clock,
    // The API key, and the URLs' passwords (a connection error may quote the URL it was given).
    secrets: [config.apiKey, ...urlSecretsOf(config)].filter((s): s is string => Boolean(s)),
    close: async () => {
      await lifecycle.release();
    },
  };
}

/**
 * A store a `migrate-store` is copying into, or was killed copying into, is not collected into: its
 * rows are partial, and a job would fetch again what the rest of the copy brings.
 */
async function refuseUnfinishedCopy(store: Store, lifecycle: Lifecycle): Promise<void> {
  const copy = await readUnfinishedCopy(store);
  if (!copy) return;
  await lifecycle.release();
  throw new ConfigError(unfinishedCopyProblem(store.location, copy));
}

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

/**
 * The secrets of the URLs the app may quote in an error: DATABASE_URL's, a PostgreSQL QUEUE_URL's and
 * the Redis URL's passwords, in the user info or the query (`?password=`), decoded and as written.
 */
export function urlSecretsOf(config: Partial<Pick<Config, 'database' | 'queue' | 'redisUrl'>>): string[] {
  return [
    ...(config.database?.kind === 'postgres' ? urlSecrets(config.database.url) : []),
    ...(config.queue?.kind === 'postgres' ? urlSecrets(config.queue.url) : []),
    ...(config.redisUrl ? urlSecrets(config.redisUrl) : []),
  ];
}
