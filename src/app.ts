import { type Clock, systemClock } from './clock.js';
import type { Config } from './config/index.js';
import { createLogger, type Logger } from './logger.js';
import type { RunJobDeps } from './runner.js';
import { DatabaseOpenError, openStore, type Store } from './store/index.js';
import {
  type AttemptEvent,
  type ComputeUnitBudget,
  createDataApiClient,
  type DataApiClient,
} from './upstream/index.js';
import { packageVersion } from './version.js';

export interface App extends RunJobDeps {
  client: DataApiClient;
  store: Store;
  log: Logger;
  clock: Clock;
  /** Closes the HTTP connection pool, then the database. */
  close(): Promise<void>;
}

export interface AppOverrides {
  log?: Logger;
  clock?: Clock;
  /** The service's shared compute-unit budget; `run` has none. */
  budget?: ComputeUnitBudget;
  /** Also told every upstream attempt (metrics). */
  onAttempt?: (e: AttemptEvent) => void;
}

/** The one place that builds the real instances: database (migrated), HTTP client, logger. */
export function createApp(config: Config, overrides: AppOverrides = {}): App {
  const log = overrides.log ?? createLogger({ level: config.logLevel });
  const clock = overrides.clock ?? systemClock;
  const store = openConfiguredStore(config);
  const client = createDataApiClient({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    version: packageVersion(),
    attemptTimeoutMs: config.client.attemptTimeout,
    callTimeoutMs: config.client.callTimeout,
    retry: { maxAttempts: config.client.maxAttempts },
    clock,
    ...(overrides.budget && { budget: overrides.budget }),
    onAttempt: (e) => {
      if (e.willRetry) log.warn({ ...e }, 'upstream attempt failed, retrying');
      else log.debug({ ...e }, 'upstream attempt');
      overrides.onAttempt?.(e);
    },
  });
  let closing: Promise<void> | undefined;
  return {
    client,
    store,
    log,
    clock,
    secrets: config.apiKey ? [config.apiKey] : [],
    close() {
      closing ??= client.close().finally(() => store.close());
      return closing;
    },
  };
}

/** The database of `DATABASE_PATH`, migrated; an error names the setting and its value. */
export function openConfiguredStore(config: Pick<Config, 'databasePath'>): Store {
  try {
    return openStore(config.databasePath);
  } catch (err) {
    if (!(err instanceof DatabaseOpenError)) throw err;
    throw new DatabaseOpenError(config.databasePath, err.cause, 'DATABASE_PATH');
  }
}
