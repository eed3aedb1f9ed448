import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { demoAddress, demoFileConfig } from '../../src/commands/demo-config.js';
import { runCli } from '../support/cli.js';
import { onPostgres, TEST_POSTGRES_URL, testDatabase, withStore } from '../support/store.js';
import { tempDir } from '../support/tmp.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A database of this test's own, not created yet (test/support/store.ts). */
async function database() {
  const db = await testDatabase();
  cleanups.push(db.cleanup);
  return db;
}

function configFile(content: unknown): { path: string; dir: string } {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  const path = join(dir, 'glacier.json');
  writeFileSync(path, JSON.stringify(content));
  return { path, dir };
}

describe('glacier-collector CLI', () => {
  it('--help lists the commands', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const cmd of ['run', 'migrate', 'config', 'plan', 'simulator', 'demo'])
      expect(r.stdout).toContain(cmd);
  });

  it('stops with exit code 2 and names the key and value of an invalid config', async () => {
    const { path } = configFile({
      jobs: { rewards: { schedule: '0 * * * *', network: 'mainnet', addresses: [demoAddress('x', 'fuji')] } },
    });
    const r = await runCli(['config', 'check', '-c', path]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`jobs.rewards.addresses[0] = "${demoAddress('x', 'fuji')}"`);
    expect(r.stderr).toContain('must start with "avax1"');
  });

  it('config check --print prints the effective config with the key masked', async () => {
    const { path } = configFile(demoFileConfig());
    const r = await runCli(['config', 'check', '--print', '-c', path], {
      GLACIER_API_KEY: 'sk-very-secret-key',
    });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('sk-very-secret-key');
    expect(JSON.parse(r.stdout).jobs.transactions.pageSize).toBe(100);
  });

  it('plan prints compute units per job against a tier', async () => {
    const { path } = configFile(demoFileConfig());
    const r = await runCli(['plan', '--tier', 'Free', '-c', path]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/transactions\s+\* \* \* \* \*\s+1440/);
    expect(r.stdout).toContain('tier Free');
  });

  it('plan rejects an unknown tier', async () => {
    const r = await runCli(['plan', '--tier', 'Platinum']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Platinum');
  });

  it('run refuses an unknown job and a job that is not configured', async () => {
    const unknown = await runCli(['run', 'everything']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('unknown job "everything"');
    const { path } = configFile({ jobs: {} });
    const missing = await runCli(['run', 'supply', '-c', path], (await database()).env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('jobs.supply: not configured');
    const reload = await runCli(['run', 'supply', '--reload', 'treasury', '-c', path]);
    expect(reload.code).not.toBe(0);
    expect(reload.stderr).toContain('--reload applies to "run exports" only');
  });

  it('migrate creates the database', async () => {
    const { dir } = configFile({});
    const db = await database();
    // SQLite: in a directory that does not exist yet.
    const env = onPostgres ? db.env : { DATABASE_PATH: join(dir, 'db', 'glacier.db') };
    const r = await runCli(['migrate'], env);
    expect(r.code, r.stderr).toBe(0);
    // Each migration named as it is applied; "up to date" only when none is.
    expect(r.stdout).toMatch(/applying \d+ migrations:\n {2}0000_initial\n/);
    expect(r.stdout).toMatch(/migrated: \d+ migrations applied \(glacier-collector \d+\.\d+\.\d+\)/);
    expect(r.stdout).not.toContain('up to date');
    const location = 'DATABASE_URL' in env ? env.DATABASE_URL : env.DATABASE_PATH;
    const runs = await withStore(location, (s) => s.get<{ n: number }>('SELECT COUNT(*) AS n FROM job_runs'));
    expect(runs).toEqual({ n: 0 });
    const again = await runCli(['migrate'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('is up to date');
    expect(again.stdout).not.toContain('applying');
  });

  it('refuses a duration out of range at start-up with exit code 2, naming the key and the range', async () => {
    const { path } = configFile({ client: { attemptTimeout: '25d' } });
    const r = await runCli(['config', 'check', '-c', path]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('client.attemptTimeout = "25d": out of range: must be from 1s to 10m');
  });

  it.skipIf(onPostgres)(
    'names DATABASE_PATH and its value when the database cannot be opened (SQLite)',
    async () => {
      const { dir } = configFile({});
      const notADatabase = join(dir, 'notes.txt');
      writeFileSync(notADatabase, 'x'.repeat(4096));
      const wrongFile = await runCli(['migrate'], { DATABASE_PATH: notADatabase });
      expect(wrongFile.code).toBe(1);
      expect(wrongFile.stderr).toContain(`DATABASE_PATH = "${notADatabase}"`);
      expect(wrongFile.stderr).toContain('file is not a database');
      const directory = await runCli(['migrate'], { DATABASE_PATH: dir });
      expect(directory.code).toBe(1);
      expect(directory.stderr).toContain(`DATABASE_PATH = "${dir}"`);
      expect(directory.stderr).toContain('unable to open database file');
    },
  );

  it.skipIf(!onPostgres)(
    'names DATABASE_URL, its password masked, when the database cannot be opened (PostgreSQL)',
    async () => {
      const url = new URL(TEST_POSTGRES_URL);
      url.password = 'hunter2-secret';
      url.pathname = '/no_such_database';
      const masked = url.toString().replace('hunter2-secret', '***');
      const r = await runCli(['migrate'], { DATABASE_URL: url.toString() });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`DATABASE_URL = "${masked}"`);
      expect(r.stderr).toContain('database "no_such_database" does not exist');
      expect(r.stdout + r.stderr).not.toContain('hunter2-secret');
    },
  );

  it('refuses DATABASE_PATH and DATABASE_URL both set with exit code 2, naming both', async () => {
    const { dir } = configFile({});
    const r = await runCli(['migrate'], {
      DATABASE_PATH: join(dir, 'glacier.db'),
      DATABASE_URL: 'postgres://collector:hunter2-secret@127.0.0.1:5432/test',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('DATABASE_PATH');
    expect(r.stderr).toContain('DATABASE_URL');
    expect(r.stderr).not.toContain('hunter2-secret');
  });
});
