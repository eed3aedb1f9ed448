/**
 * What the fault tests share: a simulator in this process with a frozen clock (its ground truth is
 * what the database must equal), the real CLI as child processes (`run <job>`) writing a real
 * store (a SQLite file, or a PostgreSQL schema: test/support/store.ts), and the iteration count: `npm run test:faults` runs the full suite
 * (FAULT_SUITE=full, see vitest.faults.config.ts); `npm test` runs a smaller one, to fit CI.
 *
 * To add a fault test: a `*.test.ts` file in test/faults/ (both configs pick it up); use
 * `startFaultSimulator`, `cliEnv` and `iterations` from here.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createManualClock } from '../../src/runtime/clock.js';
import { type SimulatorHandle, type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';
import { type DatabaseEnv, onPostgres, queryAt, testDatabase } from '../support/store.js';

export { countRows, onPostgres } from '../support/store.js';

/** `full` in `npm run test:faults`; anything else is the small suite of `npm test`. */
export const FULL = process.env.FAULT_SUITE === 'full';

/** `full` iterations in the full suite, `small` in `npm test`. */
export function iterations(full: number, small = 1): number {
  return FULL ? full : small;
}

export const T0 = Date.UTC(2025, 5, 15, 12, 34, 56);
export const API_KEY = 'glc-fault-suite-key-7f3a9c';

/**
 * The simulator with a frozen clock (nothing new arrives, so the truth is fixed) and a key whose
 * per-minute budget never runs out (the frozen minute would never reset).
 */
export function startFaultSimulator(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  return startSimulator({
    port: 0,
    seed: 21,
    clock: createManualClock(T0),
    apiKeys: { [API_KEY]: { tier: 'Pro', computeUnitsPerMinute: 1e12 } },
    requireApiKey: true,
    ...options,
  });
}

export interface Workspace {
  dir: string;
  /** The store's location: a SQLite path (the file not created yet) or a PostgreSQL URL (an empty schema). */
  location: string;
  dbEnv: DatabaseEnv;
  configPath: string;
  cleanup: () => Promise<void>;
}

/** A directory with a config file (JSON) and a database not created (nor migrated) yet. */
export async function workspace(config: unknown): Promise<Workspace> {
  const db = await testDatabase({ filename: 'glacier.db' });
  const configPath = join(db.dir, 'glacier.json');
  writeFileSync(configPath, JSON.stringify(config));
  return { dir: db.dir, location: db.location, dbEnv: db.env, configPath, cleanup: db.cleanup };
}

/** The environment of a CLI process against `sim`, writing `ws`'s database. */
export function cliEnv(sim: SimulatorHandle, ws: Workspace, extra: Record<string, string> = {}) {
  return {
    GLACIER_BASE_URL: sim.url,
    GLACIER_API_KEY: API_KEY,
    ...ws.dbEnv,
    GLACIER_CONFIG: ws.configPath,
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

/** Reads the database with a connection of its own (the CLI processes have theirs). */
export const query = queryAt;

/**
 * SQLite's `PRAGMA integrity_check` ("ok", or the damage found). SQLite only: a killed PostgreSQL
 * client cannot damage the server's files (the server rolls its transaction back), so the tests
 * check that case by the rows alone.
 */
export function integrityCheck(location: string): string {
  if (onPostgres) throw new Error('integrityCheck is SQLite only');
  const db = new Database(location, { fileMustExist: true });
  try {
    return db.pragma('integrity_check', { simple: true }) as string;
  } finally {
    db.close();
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Mounts a tmpfs of `size` on `dir` (needs root); undefined when it worked, else why not. */
export function tryMount(dir: string, size: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    return (err as { stderr?: Buffer }).stderr?.toString().trim() || (err as Error).message;
  }
}
