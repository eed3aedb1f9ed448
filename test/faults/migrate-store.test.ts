import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeLocation } from '../../src/config/index.js';
import type { SimulatorHandle } from '../../src/simulator/index.js';
import { openStore } from '../../src/store/index.js';
import { runCli, spawnCli, stopCli } from '../support/cli.js';
import { freePort } from '../support/redis-server.js';
import { queryAt, schemaUrl, TEST_POSTGRES_URL, withPostgres } from '../support/store.js';
import { tempDir } from '../support/tmp.js';
import { API_KEY, countRows, startFaultSimulator, type Workspace, workspace } from './support.js';

/**
 * D13 and D14 (issue 34): `migrate-store` killed mid-copy leaves a target whose cursors are not
 * ahead of its rows (sync_state is copied last) and that is marked unfinished, so `run`, `start`
 * and `status` say so until the copy is run again to its end; a target that holds another
 * collector's data is refused unless `--merge`. The source is a SQLite file filled by real runs;
 * the killed copy's target is a PostgreSQL schema whose `transactions` table another session holds
 * locked, so the copy is killed while it waits there, every time, whatever the machine's speed.
 */
let sim: SimulatorHandle;
let dir: string;
let removeDir: () => void;
let sourcePath: string;
let configPath: string;
const schemas: string[] = [];

const config = {
  jobs: {
    supply: { schedule: '*/5 * * * *' },
    transactions: {
      schedule: '* * * * *',
      networks: ['mainnet'],
      statuses: ['all'],
      pageSize: 100,
      maxPages: 2,
    },
  },
};

function env(database: Record<string, string>, extra: Record<string, string> = {}): Record<string, string> {
  return {
    GLACIER_BASE_URL: sim.url,
    GLACIER_API_KEY: API_KEY,
    GLACIER_CONFIG: configPath,
    LOG_LEVEL: 'warn',
    ...database,
    ...extra,
  };
}

async function postgresSchema(): Promise<string> {
  const schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withPostgres((c) => c.query(`CREATE SCHEMA ${schema}`));
  schemas.push(schema);
  return schema;
}

beforeAll(async () => {
  sim = await startFaultSimulator();
  ({ dir, cleanup: removeDir } = tempDir('glacier-copy-fault-'));
  sourcePath = join(dir, 'source.db');
  configPath = join(dir, 'glacier.json');
  writeFileSync(configPath, JSON.stringify(config));
  for (const job of ['supply', 'transactions']) {
    const r = await runCli(['run', job], env({ DATABASE_PATH: sourcePath }));
    expect(r.code, r.stdout + r.stderr).toBe(0);
  }
  expect(await countRows(sourcePath, 'supply_snapshots')).toBeGreaterThan(0);
  expect(await countRows(sourcePath, 'transactions')).toBeGreaterThan(0);
  expect(await countRows(sourcePath, 'sync_state')).toBeGreaterThan(0);
}, 120_000);

afterAll(async () => {
  await withPostgres(async (c) => {
    for (const s of schemas) await c.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  });
  removeDir?.();
  await sim?.close();
});

async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  debug?: () => Promise<string>,
  ms = 60_000,
): Promise<T> {
  for (let waited = 0; ; waited += 100) {
    const value = await check();
    if (value) return value;
    if (waited > ms) throw new Error(`timed out waiting for ${what}${debug ? `: ${await debug()}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('migrate-store killed mid-copy (D13)', () => {
  it('leaves no cursor in the target, marked unfinished: run and start refuse it, status says so, a rerun finishes it', async () => {
    const schema = await postgresSchema();
    const target = schemaUrl(schema);
    // Migrated first, so that another session can hold the table the copy will wait on.
    await (await openStore(storeLocation(target))).close();
    const locker = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      // Writes wait, reads do not (the copy's look for rows reads every table).
      await locker.query(`LOCK TABLE ${schema}.transactions IN EXCLUSIVE MODE`);
      const lockerPid = (await locker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      const copy = spawnCli(
        ['migrate-store', '--from', sourcePath, '--to', target, '--batch-size', '50'],
        {},
      );
      try {
        await waitFor(
          'the copy to wait on the locked transactions table',
          async () => {
            // Another session: pg_stat_activity is a snapshot per transaction, and the locker's stays open.
            // Blocked by this locker: other test files' sessions wait on locks of their own schemas.
            const { rows } = await withPostgres((c) =>
              c.query<{ n: string }>(
                `SELECT count(*) AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid)) AND query ILIKE 'insert into "transactions"%'`,
                [lockerPid],
              ),
            );
            return Number(rows[0]!.n) > 0 || undefined;
          },
          async () => {
            const { rows } = await locker.query(
              `SELECT wait_event_type, state, left(query, 80) AS q FROM pg_stat_activity WHERE datname = 'test'`,
            );
            return `${JSON.stringify(rows)}\n${copy.output()}`;
          },
        );
        copy.child.kill('SIGKILL');
        await copy.exited;
      } finally {
        await stopCli(copy);
      }
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }

    // What it committed stays; the cursors, copied last, are not there to skip what is missing.
    expect(await countRows(target, 'supply_snapshots')).toBeGreaterThan(0);
    expect(await countRows(target, 'transactions')).toBe(0);
    expect(await countRows(target, 'sync_state')).toBe(0);

    const database = { DATABASE_URL: target };
    const status = await runCli(['status'], env(database));
    expect(status.code, status.stdout + status.stderr).toBe(0);
    expect(status.stdout).toContain(
      `UNFINISHED COPY: the database ${target} is an unfinished copy of ${sourcePath}`,
    );
    const json = JSON.parse((await runCli(['status', '--json'], env(database))).stdout) as {
      database: { unfinishedCopy: { source: string } | null };
    };
    expect(json.database.unfinishedCopy?.source).toBe(sourcePath);

    const run = await runCli(['run', 'supply'], env(database));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('run the same migrate-store again to finish it');
    const start = await runCli(
      ['start'],
      env(database, {
        QUEUE_URL: TEST_POSTGRES_URL,
        METRICS_HOST: '127.0.0.1',
        METRICS_PORT: String(await freePort()),
      }),
      { timeoutMs: 60_000 },
    );
    expect(start.code).toBe(2);
    expect(start.stderr).toContain('is an unfinished copy of');

    const rerun = await runCli(['migrate-store', '--from', sourcePath, '--to', target]);
    expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
    expect(rerun.stdout).toContain('the copy is complete');
    for (const table of ['supply_snapshots', 'transactions', 'sync_state', 'job_runs'])
      expect(await countRows(target, table), table).toBe(await countRows(sourcePath, table));
    const after = await runCli(['status'], env(database));
    expect(after.code, after.stdout + after.stderr).toBe(0);
    expect(after.stdout).not.toContain('UNFINISHED COPY');
  }, 240_000);
});

describe('migrate-store into another collector’s database (D14)', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await workspace(config);
  });
  afterAll(async () => {
    await ws?.cleanup();
  });

  it('is refused, the target untouched, unless --merge says to copy into it', async () => {
    const other = await runCli(['run', 'supply'], env(ws.dbEnv));
    expect(other.code, other.stdout + other.stderr).toBe(0);
    const runsBefore = await queryAt<{ id: number; job: string }>(
      ws.location,
      'SELECT id, job FROM job_runs',
    );

    const refused = await runCli(['migrate-store', '--from', sourcePath, '--to', ws.location]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('holds data already (job_runs');
    expect(refused.stderr).toContain('pass --merge');
    expect(await queryAt(ws.location, 'SELECT id, job FROM job_runs')).toEqual(runsBefore);
    expect(await countRows(ws.location, 'sync_state')).toBe(0);

    const merged = await runCli(['migrate-store', '--from', sourcePath, '--to', ws.location, '--merge']);
    expect(merged.code, merged.stdout + merged.stderr).toBe(0);
    expect(await countRows(ws.location, 'sync_state')).toBe(await countRows(sourcePath, 'sync_state'));
    // A copy of this source now: running it again needs no flag.
    expect((await runCli(['migrate-store', '--from', sourcePath, '--to', ws.location])).code).toBe(0);
  }, 180_000);
});
