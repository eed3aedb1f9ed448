import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduledJobNames as jobNames } from '../../jobs/index.js';
import { demoFileConfig } from '../../src/commands/demo-config.js';
import type { SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../support/cli.js';
import { postgresTablesContaining, withStore } from '../support/store.js';
import { API_KEY, cliEnv, onPostgres, startFaultSimulator, type Workspace, workspace } from './support.js';

/**
 * After a full `run` of every job with a key, at trace level, the key appears nowhere: not in the
 * logs, the database (SQLite: its file and WAL; PostgreSQL: every row of its schema), the export files, nor in any request to the download host.
 * (Redis and /metrics are checked by the service's fault tests.)
 */
let sim: SimulatorHandle;
let ws: Workspace;
let output = '';

beforeAll(async () => {
  sim = await startFaultSimulator({ exports: { runningMs: 0 } });
  const file = demoFileConfig();
  ws = await workspace({});
  file.jobs.exports.directory = join(ws.dir, 'exports');
  // The demo has no validators section: the rewards job's node ids, as an operator would add it.
  writeFileSync(ws.configPath, JSON.stringify({ ...file, jobs: { ...file.jobs, validators: {} } }));
  for (const job of jobNames) {
    const r = await runCli(['run', job], cliEnv(sim, ws, { LOG_LEVEL: 'trace' }));
    output += r.stdout + r.stderr;
    expect(r.code, `${job}: ${r.stdout}${r.stderr}`).toBe(0);
  }
}, 180_000);

afterAll(async () => {
  await ws.cleanup();
  await sim.close();
});

describe('the API key after a full run of every job', () => {
  it('reached the API with every request but the downloads', () => {
    const api = sim.requests.filter((r) => r.endpoint !== 'download');
    expect(api.length).toBeGreaterThan(jobNames.length);
    expect(api.every((r) => r.hadApiKey)).toBe(true);
    const downloads = sim.requests.filter((r) => r.endpoint === 'download');
    expect(downloads.length).toBeGreaterThan(0);
    expect(downloads.some((r) => r.hadApiKey)).toBe(false);
  });

  it('is not in the logs at trace level', () => {
    expect(output).toContain('"level":20'); // the attempts, at debug level, were written
    expect(output).not.toContain(API_KEY);
  });

  it.skipIf(onPostgres)('is not in the database file nor its WAL (SQLite)', () => {
    const files = readdirSync(ws.dir).filter((f) => f.startsWith('glacier.db'));
    expect(files).toContain('glacier.db');
    for (const f of files) expect(readFileSync(join(ws.dir, f)).includes(API_KEY)).toBe(false);
    const db = new Database(ws.location);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    expect(readFileSync(ws.location).includes(API_KEY)).toBe(false);
  });

  it.skipIf(!onPostgres)('is in no row of any table of the schema (PostgreSQL)', async () => {
    expect(await withStore(ws.location, (store) => postgresTablesContaining(store, API_KEY))).toEqual([]);
  });

  it('is not in the export files', () => {
    const dir = join(ws.dir, 'exports');
    const files = readdirSync(dir, { recursive: true }) as string[];
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const path = join(dir, f);
      try {
        expect(readFileSync(path).includes(API_KEY)).toBe(false);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EISDIR') throw err;
      }
    }
  });
});
