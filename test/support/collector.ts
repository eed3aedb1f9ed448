import { Agent } from 'undici';
import type { ExportsPayload } from '../../jobs/exports.js';
import {
  type Config,
  type ExportWindow,
  FOREVER,
  loadConfig,
  RETAINED_TABLES,
  type RetentionConfig,
} from '../../src/config/index.js';
import { exportsJobSchema } from '../../src/config/schema.js';
import type { RunDeps } from '../../src/kernel/index.js';
import { createManualClock, type ManualClock } from '../../src/runtime/clock.js';
import { type SimulatorHandle, type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';
import type { Store } from '../../src/store/index.js';
import { type AttemptEvent, createDataApiClient } from '../../src/upstream/index.js';
import { captureLog } from './log.js';
import { type DatabaseEnv, testStore } from './store.js';

/** 2025-06-15T12:34:56Z: a fixed "now" so that expected data can be computed. */
export const T0 = Date.UTC(2025, 5, 15, 12, 34, 56);

export interface Collector {
  sim: SimulatorHandle;
  store: Store;
  /** The store's location (SQLite path or PostgreSQL URL) and its DATABASE_PATH / DATABASE_URL. */
  location: string;
  dbEnv: DatabaseEnv;
  clock: ManualClock;
  deps: RunDeps;
  /** Every log line written, as text. */
  logs: () => string;
  /** Waits the client asked for (retries), in ms: recorded, not slept. */
  delays: number[];
  close: () => Promise<void>;
}

/** The simulator on port 0, a fresh store (test/support/store.ts), and the collector's real parts wired to them. */
export async function startCollector(
  options: {
    sim?: SimulatorOptions;
    apiKey?: string;
    clock?: ManualClock;
    /** Also told of every attempt (the service wires metrics here). */
    onAttempt?: (e: AttemptEvent) => void;
  } = {},
): Promise<Collector> {
  const clock = options.clock ?? createManualClock(T0);
  const sim = await startSimulator({ port: 0, seed: 7, clock, ...options.sim });
  const { store, location, env: dbEnv, cleanup } = await testStore();
  const { log, text: logs } = captureLog('debug');
  const delays: number[] = [];
  const dispatcher = new Agent({ keepAliveTimeout: 1_000 });
  const client = createDataApiClient({
    baseUrl: sim.url,
    apiKey: options.apiKey,
    clock,
    dispatcher,
    sleep: async (ms) => {
      delays.push(ms);
    },
    onAttempt: (e) => {
      log.debug({ ...e }, 'attempt');
      options.onAttempt?.(e);
    },
  });
  return {
    sim,
    store,
    location,
    dbEnv,
    clock,
    deps: { client, store, log, clock, secrets: options.apiKey ? [options.apiKey] : [] },
    logs,
    delays,
    close: async () => {
      await dispatcher.destroy();
      await sim.close();
      await cleanup();
    },
  };
}

/** How many requests the simulator received for an endpoint. */
export function requestCount(sim: SimulatorHandle, endpoint: string): number {
  return sim.requests.filter((r) => r.endpoint === endpoint).length;
}

/**
 * An exports run that waits for one EVM export of a test address, written under `directory`: the
 * config's defaults, with delays short enough for tests (below the config's minimums on purpose).
 */
export function evmExportPayload(
  directory: string,
  window: ExportWindow = 'previous-day',
): ExportsPayload & { wait?: boolean } {
  const {
    schedule: _s,
    enabled: _e,
    runOnStart: _r,
    ...defaults
  } = exportsJobSchema.parse({
    schedule: '0 * * * *',
    definitions: [
      {
        name: 'treasury',
        type: 'TRANSACTION_EXPORT_EVM',
        addresses: ['0x00000000000000000000000000000000000000aa'],
        includeChains: ['43114'],
        window,
      },
    ],
  });
  return {
    ...defaults,
    directory,
    pollInterval: 10,
    maxPollInterval: 40,
    retryDelay: 10,
    maxWait: 60_000,
    wait: true,
  };
}

/** A maintenance payload's retention: every table kept `forever` but those given (milliseconds). */
export function retentionOnly(kept: Partial<RetentionConfig>): RetentionConfig {
  const all = Object.fromEntries(Object.keys(RETAINED_TABLES).map((key) => [key, FOREVER]));
  return { ...all, ...kept } as RetentionConfig;
}

/** A config from a config file's content, with no environment: what a test's jobs run with. */
export function configOf(file: Record<string, unknown>): Config {
  return loadConfig({ env: {}, cwd: '/nonexistent', file });
}
