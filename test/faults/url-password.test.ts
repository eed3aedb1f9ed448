import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoFileConfig } from '../../src/commands/demo-config.js';
import { queueSchema } from '../../src/config/queue.js';
import type { SimulatorHandle } from '../../src/simulator/index.js';
import { runCli, spawnCli, stopCli } from '../support/cli.js';
import { freePort } from '../support/redis-server.js';
import { schemaUrl, TEST_POSTGRES_URL, withPostgres } from '../support/store.js';
import { tempDir } from '../support/tmp.js';
import { API_KEY, startFaultSimulator } from './support.js';

/**
 * D7 (issue 34): a password in a URL's query, libpq's and node-postgres's own form
 * (`?password=`, `?sslpassword=`), in DATABASE_URL and QUEUE_URL, is masked wherever the URL is
 * printed (`config check`, `--print`, `migrate`, `start`, `status`, error messages), and the URLs
 * can come from files (`DATABASE_URL_FILE`, `QUEUE_URL_FILE`). The test database trusts every
 * connection, so the passwords reach the server and are ignored there: every command works.
 * PostgreSQL URLs by nature: it runs in the postgres project.
 */
const DB_SECRET = 'dbQuerySecret-5e21c9';
const QUEUE_SECRET = 'queueQuerySecret-a90f37';
const SSL_SECRET = 'sslKeySecret-7bd104';
const SECRETS = [DB_SECRET, QUEUE_SECRET, SSL_SECRET];

let sim: SimulatorHandle;
let dir: string;
let removeDir: () => void;
const schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
const prefix = `urlpw${randomBytes(3).toString('hex')}`;
let configPath: string;
let dbUrl: string;
let queueUrl: string;

beforeAll(async () => {
  sim = await startFaultSimulator();
  ({ dir, cleanup: removeDir } = tempDir('glacier-urlpw-'));
  await withPostgres((c) => c.query(`CREATE SCHEMA ${schema}`));
  dbUrl = `${schemaUrl(schema)}&password=${DB_SECRET}&sslpassword=${SSL_SECRET}`;
  queueUrl = `${TEST_POSTGRES_URL}?password=${QUEUE_SECRET}`;
  const file = demoFileConfig();
  configPath = join(dir, 'glacier.json');
  writeFileSync(
    configPath,
    JSON.stringify({ ...file, service: { queuePrefix: prefix }, jobs: { supply: file.jobs.supply } }),
  );
});

afterAll(async () => {
  await withPostgres(async (c) => {
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await c.query(`DROP SCHEMA IF EXISTS "${queueSchema(prefix)}" CASCADE`);
  });
  removeDir?.();
  await sim?.close();
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    GLACIER_BASE_URL: sim.url,
    GLACIER_API_KEY: API_KEY,
    DATABASE_URL: dbUrl,
    QUEUE_URL: queueUrl,
    GLACIER_CONFIG: configPath,
    ...extra,
  };
}

function expectNoSecret(output: string): void {
  for (const secret of SECRETS) expect(output, output).not.toContain(secret);
}

describe('a password in the query of DATABASE_URL and QUEUE_URL (D7)', () => {
  it('is masked by config check and config check --print', async () => {
    const check = await runCli(['config', 'check'], env());
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expectNoSecret(check.stdout + check.stderr);
    expect(check.stdout).toContain('password=***');
    const print = await runCli(['config', 'check', '--print'], env());
    expect(print.code, print.stderr).toBe(0);
    expectNoSecret(print.stdout + print.stderr);
    expect(print.stdout).toContain('sslpassword=***');
  });

  it('is masked by migrate, start (its started line) and status', async () => {
    const migrate = await runCli(['migrate'], env());
    expect(migrate.code, migrate.stdout + migrate.stderr).toBe(0);
    expectNoSecret(migrate.stdout + migrate.stderr);
    expect(migrate.stdout + migrate.stderr).toContain('password=***');

    const proc = spawnCli(
      ['start'],
      env({ METRICS_HOST: '127.0.0.1', METRICS_PORT: String(await freePort()) }),
    );
    try {
      await proc.waitForOutput(/glacier-collector started/, 30_000);
      proc.child.kill('SIGTERM');
      await proc.exited;
    } finally {
      await stopCli(proc);
    }
    const started = proc
      .output()
      .split('\n')
      .find((line) => line.includes('glacier-collector started'))!;
    expect(started).toContain(`search_path%3D${schema}&password=***&sslpassword=***`);
    expect(started).toContain(`${TEST_POSTGRES_URL}?password=***`);
    expectNoSecret(proc.output());

    const status = await runCli(['status'], env());
    expect(status.code, status.stdout + status.stderr).toBe(0);
    expectNoSecret(status.stdout + status.stderr);
    expect(status.stdout).toContain('password=***');
  }, 90_000);

  it('is masked in error messages: a database that does not answer, a URL that does not parse', async () => {
    const port = await freePort();
    const down = await runCli(
      ['migrate'],
      env({ DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/test?password=${DB_SECRET}` }),
    );
    expect(down.code).not.toBe(0);
    expect(down.stderr).toContain(`127.0.0.1:${port}`);
    expectNoSecret(down.stdout + down.stderr);

    const malformed = await runCli(
      ['config', 'check'],
      env({ QUEUE_URL: `postgres://postgres@127.0.0.1:notaport/test?sslpassword=${SSL_SECRET}` }),
    );
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('QUEUE_URL');
    expectNoSecret(malformed.stdout + malformed.stderr);
  });
});

describe('DATABASE_URL_FILE and QUEUE_URL_FILE', () => {
  it('read the URLs from files (a trailing newline dropped) and print them masked', async () => {
    const dbFile = join(dir, 'database-url');
    const queueFile = join(dir, 'queue-url');
    writeFileSync(dbFile, `${dbUrl}\n`);
    writeFileSync(queueFile, `${queueUrl}\n`);
    const files = { DATABASE_URL_FILE: dbFile, QUEUE_URL_FILE: queueFile };
    const base = env();
    delete base.DATABASE_URL;
    delete base.QUEUE_URL;
    const check = await runCli(['config', 'check', '--print'], { ...base, ...files });
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expectNoSecret(check.stdout + check.stderr);
    const printed = JSON.parse(check.stdout) as { database: { url: string }; queue: { url: string } };
    expect(printed.database.url).toContain(`search_path%3D${schema}`);
    expect(printed.queue.url).toBe(`${TEST_POSTGRES_URL}?password=***`);
    const migrate = await runCli(['migrate'], { ...base, ...files });
    expect(migrate.code, migrate.stdout + migrate.stderr).toBe(0);
  });

  it('refuses the URL set both ways, and a file that holds more than the URL, without showing it', async () => {
    const dbFile = join(dir, 'database-url-both');
    writeFileSync(dbFile, dbUrl);
    const both = await runCli(['config', 'check'], env({ DATABASE_URL_FILE: dbFile }));
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('Set DATABASE_URL or DATABASE_URL_FILE, not both');
    const twoLines = join(dir, 'queue-url-two-lines');
    writeFileSync(twoLines, `${queueUrl}\nQUEUE_URL=${queueUrl}\n`);
    const base = env();
    delete base.QUEUE_URL;
    const bad = await runCli(['config', 'check'], { ...base, QUEUE_URL_FILE: twoLines });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`QUEUE_URL_FILE = "${twoLines}"`);
    expectNoSecret(bad.stdout + bad.stderr);
  });
});
