/**
 * Figures of the long-running service, on each queue backend (Redis; PostgreSQL through BullMQ's own
 * backend, QUEUE_URL):
 * - queue overhead: 10,000 no-op jobs through the collector's worker path (runJob with its job_runs
 *   rows and log line, continuation handling, error mapping) against raw BullMQ 6 add-and-process on
 *   the same backend with the options the collector needs (its job options: id, retention, retries;
 *   its worker's limiter and lock duration); CPU time of this process beside the wall time;
 * - footprint: `start` from launch to ready on each backend, and its RSS after an idle minute, beside
 *   a bare node.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  createPostgresBackend,
  type JobProgress,
  type PostgresConnectionOptions,
  type PostgresQueueBackend,
  Queue,
  Worker,
} from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { databaseLocation, loadConfig } from '../../src/config/index.js';
import { queueSchema } from '../../src/config/queue.js';
import type { Job } from '../../src/kernel/job.js';
import type { CollectorQueue } from '../../src/queue/backend.js';
import { postgresJobOptions, redisJobOptions, workerLimiter } from '../../src/queue/jobs.js';
import { openQueueBackend } from '../../src/queue/open-backend.js';
import { migrateQueueSchema, queuePool } from '../../src/queue/postgres-backend.js';
import { createCollectorWorker } from '../../src/queue/worker.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { createLogger } from '../../src/runtime/logger.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createDataApiClient } from '../../src/upstream/index.js';
import { ensureBuilt } from '../../test/support/built.js';
import { freePort } from '../../test/support/redis-server.js';
import { deletePrefix } from '../../test/support/service.js';
import { tempDir } from '../../test/support/tmp.js';
import { benchOptions, type Cost, cost, type Figure, figure, medianCost, scaled } from '../lib.js';

const JOBS = Math.ceil(scaled(10_000, 100) / 100) * 100;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The PostgreSQL the PostgreSQL backend's figures use (each run in a schema of its own, dropped after). */
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

type Backend = 'redis' | 'postgres';
const BACKENDS: readonly Backend[] = ['redis', 'postgres'];
const NAMES: Record<Backend, string> = { redis: 'Redis', postgres: 'PostgreSQL' };
/** What selects the backend, for a config or a `start` process. */
const backendEnv = (b: Backend): Record<string, string> =>
  b === 'redis' ? { REDIS_URL } : { QUEUE_URL: POSTGRES_URL };

async function removeBackendData(b: Backend, prefix: string): Promise<void> {
  if (b === 'redis') return deletePrefix(REDIS_URL, prefix);
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${queueSchema(prefix)}" CASCADE`);
  } finally {
    await client.end();
  }
}

const noop: Job = {
  name: 'noop',
  configKey: 'supply',
  scheduled: false,
  table: undefined,
  restore: undefined,
  schedule: () => undefined,
  prepare: () => ({ name: 'noop', run: async () => undefined, inProcess: undefined }),
  cost: () => undefined,
  streams: () => undefined,
  hasCursors: false,
  needsFirstRun: async () => false,
};

/** Resolves once `worker` has finished `total` jobs (completed or failed); call before adding them. */
function finished(
  worker: { on(event: 'completed' | 'failed', fn: () => void): unknown },
  total: number,
): Promise<void> {
  let n = 0;
  return new Promise((resolve) => {
    const count = () => {
      if (++n === total) resolve();
    };
    worker.on('completed', count);
    worker.on('failed', count);
  });
}

/** The collector's worker options that cost something per job (service.ts's defaults). */
const workerOptions = {
  concurrency: 2,
  limiter: workerLimiter,
  lockDuration: 30_000,
  stalledInterval: 30_000,
};

const noopJobs = <D>(i: number, data: D, opts: object = {}) =>
  Array.from({ length: 100 }, (_, k) => ({ name: 'noop', data, opts: { ...opts, jobId: `n|${i + k}` } }));

/**
 * Raw BullMQ 6 on the backend: a queue with the collector's job options on that backend, a worker of
 * concurrency 2 with the collector's worker options, whose processor does nothing.
 */
async function rawBullmq(b: Backend, prefix: string): Promise<Cost> {
  let queue: Queue;
  let worker: Worker;
  let release: () => Promise<void>;
  if (b === 'redis') {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    // A connection given to BullMQ stays open after close(): the process would not exit.
    const workerConnection = redis.duplicate({ maxRetriesPerRequest: null });
    queue = new Queue('raw', { connection: redis, prefix, defaultJobOptions: redisJobOptions });
    worker = new Worker('raw', async () => undefined, {
      connection: workerConnection,
      prefix,
      ...workerOptions,
    });
    release = async () => {
      redis.disconnect();
      workerConnection.disconnect();
    };
  } else {
    const target = { url: POSTGRES_URL, schema: queueSchema(prefix) };
    const pool = queuePool(target, { name: 'bench', max: 1 });
    await migrateQueueSchema(pool, target);
    await pool.end();
    const connection = (max: number) => ({
      connection: { connectionString: POSTGRES_URL, schema: target.schema, max },
    });
    queue = new Queue<
      unknown,
      unknown,
      string,
      unknown,
      unknown,
      string,
      PostgresQueueBackend,
      PostgresConnectionOptions
    >(
      'raw',
      { ...connection(3), defaultJobOptions: postgresJobOptions },
      createPostgresBackend,
    ) as unknown as Queue;
    worker = new Worker<
      unknown,
      unknown,
      string,
      PostgresQueueBackend,
      JobProgress,
      PostgresConnectionOptions
    >(
      'raw',
      async () => undefined,
      { ...connection(3), ...workerOptions },
      createPostgresBackend,
    ) as unknown as Worker;
    release = async () => undefined;
  }
  const measured = await cost(async () => {
    const done = finished(worker, JOBS);
    for (let i = 0; i < JOBS; i += 100) await queue.addBulk(noopJobs(i, {} as object));
    await done;
  });
  await worker.close();
  await queue.close();
  await release();
  return measured;
}

/** The collector's path: its backend, its worker (runJob, job_runs rows, the log line), its job options. */
async function collectorPath(b: Backend, prefix: string, dir: string): Promise<Cost> {
  const config = loadConfig({
    env: { DATABASE_PATH: join(dir, 'q.db'), ...backendEnv(b) },
    file: { service: { queuePrefix: prefix } },
  });
  const store = await openStore(databaseLocation(config));
  const clock = createManualClock(Date.now());
  const client = createDataApiClient({ baseUrl: 'http://127.0.0.1:9' });
  const log = createLogger({ level: 'info', pretty: false, destination: { write: () => true } as never });
  const backend = await openQueueBackend(config, log, 'bench');
  const queue: CollectorQueue = backend.createQueue();
  const worker = createCollectorWorker({
    config,
    jobs: [noop],
    backend,
    queue,
    deps: { client, store, log, clock },
    log,
  });
  const measured = await cost(async () => {
    const done = finished(worker.worker, JOBS);
    for (let i = 0; i < JOBS; i += 100) await queue.addBulk(noopJobs(i, { args: {} }));
    await done;
    await waitCompleted(store, JOBS);
  });
  await worker.close(5_000);
  await queue.close();
  await backend.close();
  await client.close();
  await store.close();
  return measured;
}

async function waitCompleted(store: Store, total: number) {
  for (;;) {
    const row = await store.get<{ n: number }>(
      "SELECT COUNT(*) AS n FROM job_runs WHERE status = 'succeeded'",
    );
    if (row!.n >= total) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function queueOverhead(b: Backend): Promise<Figure[]> {
  const { dir, cleanup } = tempDir('glacier-bench-queue-');
  const raw: Cost[] = [];
  const ours: Cost[] = [];
  try {
    for (let i = 0; i < benchOptions().runs; i++) {
      const p1 = `benchraw${i}${process.pid}`;
      raw.push(await rawBullmq(b, p1));
      await removeBackendData(b, p1);
      const p2 = `benchcol${i}${process.pid}`;
      ours.push(await collectorPath(b, p2, join(dir, String(i))));
      await removeBackendData(b, p2);
    }
  } finally {
    cleanup();
  }
  const r = medianCost(raw);
  const o = medianCost(ours);
  return [
    figure({
      id: b === 'redis' ? 'queue.noop-jobs' : `queue.noop-jobs.${b}`,
      title: `${JOBS.toLocaleString('en')} no-op jobs through the collector's worker path (job_runs rows included), ${NAMES[b]}`,
      unit: 'ms',
      value: o.wallMs,
      baseline: r.wallMs,
      baselineLabel: `raw BullMQ 6 add + process on ${NAMES[b]}`,
      goal: { max: 1.2 },
      note: `CPU ${Math.round(o.cpuMs)} ms vs ${Math.round(r.cpuMs)} ms raw (this process); bytes written ${o.bytesWritten} vs ${r.bytesWritten}`,
    }),
  ];
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

async function footprint(b: Backend, idleMs: number): Promise<Figure[]> {
  const { dir, cleanup } = tempDir('glacier-bench-start-');
  const port = await freePort();
  const configPath = join(dir, 'glacier.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      jobs: { supply: { schedule: '0 0 1 1 *' } },
      service: { queuePrefix: `benchstart${b}${process.pid}` },
    }),
  );
  // What `npm start` runs: the build of this checkout (made here when missing or stale).
  ensureBuilt();
  const cli = join(process.cwd(), 'dist', 'src', 'cli.js');
  const t = performance.now();
  const child = spawn(process.execPath, [cli, 'start', '-c', configPath], {
    env: {
      ...process.env,
      DATABASE_PATH: join(dir, 'db.sqlite'),
      ...backendEnv(b),
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(port),
      LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  });
  // Listened for from the spawn: a `start` that dies early must not leave the wait below hanging.
  const exited = new Promise((r) => child.once('exit', r));
  let readyMs = Number.NaN;
  for (let i = 0; i < 400 && child.exitCode === null; i++) {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
    if (res?.status === 200) {
      readyMs = performance.now() - t;
      break;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  if (child.exitCode !== null) {
    cleanup();
    throw new Error(`footprint: \`start\` (${cli}) exited with code ${child.exitCode} before it was ready`);
  }
  const bareStart = performance.now();
  const bare = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000); process.stdout.write("up")'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await new Promise((r) => bare.stdout!.once('data', r));
  const bareMs = performance.now() - bareStart;
  await new Promise((r) => setTimeout(r, idleMs));
  const rss = rssMiB(child.pid!);
  const bareRss = rssMiB(bare.pid!);
  bare.kill('SIGKILL');
  child.kill('SIGTERM');
  await exited;
  await removeBackendData(b, `benchstart${b}${process.pid}`);
  cleanup();
  return [
    figure({
      id: b === 'redis' ? 'footprint.start-to-ready' : `footprint.start-to-ready.${b}`,
      title: `\`start\` from launch to /readyz 200, queue on ${NAMES[b]}${b === 'postgres' ? ' (its schema migrated first)' : ''}`,
      unit: 'ms',
      value: readyMs,
      baseline: bareMs,
      baselineLabel: 'bare `node -e` to first output',
      goal: { on: 'value', max: 2_000 },
    }),
    figure({
      id: b === 'redis' ? 'footprint.idle-rss' : `footprint.idle-rss.${b}`,
      title: `RSS of \`start\` after ${Math.round(idleMs / 1000)} s idle, queue on ${NAMES[b]}`,
      unit: 'MiB',
      value: rss,
      baseline: bareRss,
      baselineLabel: 'bare `node -e` RSS',
      goal: { on: 'value', max: 150 },
    }),
  ];
}

export async function run(): Promise<Figure[]> {
  const idleMs = Number(process.env.BENCH_IDLE_MS ?? scaled(60_000, 500));
  const only = process.env.BENCH_QUEUE_BACKEND as Backend | undefined;
  const figures: Figure[] = [];
  for (const b of BACKENDS.filter((x) => !only || x === only)) {
    figures.push(...(await queueOverhead(b)), ...(await footprint(b, idleMs)));
  }
  return figures;
}
