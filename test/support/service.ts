import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { jobs } from '../../jobs/index.js';
import { type Config, loadConfig } from '../../src/config/index.js';
import { type Service, type ServiceOptions, startService } from '../../src/service/service.js';
import { type SimulatorHandle, type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';
import { type CliProcess, spawnCli, stopCli } from './cli.js';
import { captureLog } from './log.js';
import { onPostgresQueue, queueEnv, removeQueue, TEST_REDIS_URL } from './queue.js';
import { freePort } from './redis-server.js';
import { type DatabaseEnv, TEST_POSTGRES_URL, testDatabase } from './store.js';
import { tempDir } from './tmp.js';

export { captureLog };

export interface ServiceHarness {
  sim: SimulatorHandle;
  dir: string;
  /** The store's location (SQLite path or PostgreSQL URL), not opened until a service opens it. */
  location: string;
  /** DATABASE_PATH or DATABASE_URL, for a CLI process on the same store. */
  dbEnv: DatabaseEnv;
  /** A BullMQ prefix of this test's own on the shared Redis (its queue schema on PostgreSQL: `<prefix>_queue`). */
  prefix: string;
  config(file: Record<string, unknown>, env?: Record<string, string>): Config;
  start(config: Config, options?: Partial<ServiceOptions>): Promise<Service>;
  /**
   * `start` as a process, as an operator runs it: `file` written as its config file (the queue
   * prefix and a shutdown grace of 5 s filled in), this harness's simulator and store, a free port
   * on 127.0.0.1 and `env` on top. Killed by `close` if still running.
   */
  spawnStart(
    file: Record<string, unknown>,
    env?: Record<string, string>,
  ): Promise<{ proc: CliProcess; port: number }>;
  close(): Promise<void>;
}

/** The simulator on port 0, a store of its own, a unique queue prefix; every service started is closed. */
export async function serviceHarness(
  options: { sim?: SimulatorOptions; redisUrl?: string } = {},
): Promise<ServiceHarness> {
  const sim = await startSimulator({ port: 0, seed: 7, ...options.sim });
  const { dir, cleanup } = tempDir('glacier-svc-');
  const db = await testDatabase({ filename: 'collector.db' });
  const prefix = `t${randomBytes(4).toString('hex')}`;
  // A private Redis given: the test is about Redis itself, whatever the matrix says.
  const queueVars = options.redisUrl ? { REDIS_URL: options.redisUrl } : queueEnv();
  const redisUrl = options.redisUrl ?? TEST_REDIS_URL;
  const services: Service[] = [];
  const processes: CliProcess[] = [];
  return {
    sim,
    dir,
    location: db.location,
    dbEnv: db.env,
    prefix,
    config(file, env = {}) {
      const service = (file.service ?? {}) as Record<string, unknown>;
      return loadConfig({
        env: {
          GLACIER_BASE_URL: sim.url,
          ...db.env,
          ...queueVars,
          METRICS_HOST: '127.0.0.1',
          METRICS_PORT: '0',
          LOG_LEVEL: 'warn',
          ...env,
        },
        file: { ...file, service: { queuePrefix: prefix, shutdownGrace: '5s', ...service } },
      });
    },
    async start(config, serviceOptions = {}) {
      const svc = await startService(config, { jobs, log: captureLog().log, ...serviceOptions });
      services.push(svc);
      return svc;
    },
    async spawnStart(file, env = {}) {
      const service = (file.service ?? {}) as Record<string, unknown>;
      const configPath = join(dir, `glacier-${processes.length}.json`);
      writeFileSync(
        configPath,
        JSON.stringify({ ...file, service: { queuePrefix: prefix, shutdownGrace: '5s', ...service } }),
      );
      const port = await freePort();
      const proc = spawnCli(['start', '-c', configPath], {
        GLACIER_BASE_URL: sim.url,
        ...db.env,
        ...(onPostgresQueue && !options.redisUrl && { QUEUE_URL: TEST_POSTGRES_URL }),
        METRICS_HOST: '127.0.0.1',
        METRICS_PORT: String(port),
        ...env,
      });
      processes.push(proc);
      return { proc, port };
    },
    async close() {
      for (const proc of processes.splice(0)) await stopCli(proc);
      await Promise.allSettled(services.map((s) => s.close()));
      await sim.close();
      if (options.redisUrl) await deletePrefix(redisUrl, prefix);
      else await removeQueue(prefix);
      await db.cleanup();
      cleanup();
    },
  };
}

/** Removes every key of a test's (or a benchmark's) prefix from Redis. */
export async function deletePrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: () => null, lazyConnect: true });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } catch {
    // A private Redis already stopped: nothing to clean.
  } finally {
    redis.disconnect();
  }
}

/** Polls `fn` until it returns a truthy value (or throws after `timeoutMs`). */
export async function waitFor<T>(
  fn: () => T | Promise<T>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<Exclude<T, undefined | null | false | 0 | ''>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value as Exclude<T, undefined | null | false | 0 | ''>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface RunRow {
  id: number;
  job: string;
  scope: string;
  status: string;
  started_at: string;
  finished_at: string | null;
  rows_written: number;
  error: string | null;
}

export function jobRuns(service: Service): Promise<RunRow[]> {
  return service.app.store.all<RunRow>('SELECT * FROM job_runs ORDER BY id');
}
