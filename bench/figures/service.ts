/**
 * Figures of the long-running service:
 * - queue overhead: 10,000 no-op jobs through the collector's worker path (runHandler with its job_runs
 *   rows and log line, continuation handling, error mapping) against raw BullMQ add-and-process;
 * - footprint: `start` from launch to ready, and its RSS after an idle minute, beside a bare node.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { databaseLocation, loadConfig } from '../../src/config/index.js';
import type { Job } from '../../src/kernel/job.js';
import { QUEUE_NAME, retention, retries } from '../../src/queue/jobs.js';
import { createCollectorWorker } from '../../src/queue/worker.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { createLogger } from '../../src/runtime/logger.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createDataApiClient } from '../../src/upstream/index.js';
import { freePort } from '../../test/support/redis-server.js';
import { deletePrefix } from '../../test/support/service.js';
import { tempDir } from '../../test/support/tmp.js';
import { benchOptions, type Figure, figure, median, scaled } from '../lib.js';

const JOBS = Math.ceil(scaled(10_000, 100) / 100) * 100;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

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
};

async function drain(queue: Queue, total: number): Promise<void> {
  for (;;) {
    const c = await queue.getJobCounts('completed', 'failed');
    if ((c.completed ?? 0) + (c.failed ?? 0) >= total) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function rawBullmq(redis: Redis, prefix: string): Promise<number> {
  const queue = new Queue('raw', { connection: redis, prefix });
  // A connection given to BullMQ stays open after close(): the process would not exit.
  const workerConnection = redis.duplicate({ maxRetriesPerRequest: null });
  const worker = new Worker('raw', async () => undefined, {
    connection: workerConnection,
    prefix,
    concurrency: 2,
  });
  const t = performance.now();
  for (let i = 0; i < JOBS; i += 100) {
    await queue.addBulk(
      Array.from({ length: 100 }, (_, k) => ({ name: 'noop', data: {}, opts: { jobId: `n|${i + k}` } })),
    );
  }
  await drain(queue, JOBS);
  const ms = performance.now() - t;
  await worker.close();
  await queue.close();
  workerConnection.disconnect();
  return ms;
}

async function collectorPath(redis: Redis, prefix: string, dir: string): Promise<number> {
  const config = loadConfig({
    env: { DATABASE_PATH: join(dir, 'q.db') },
    file: { service: { queuePrefix: prefix } },
  });
  const store = await openStore(databaseLocation(config));
  const clock = createManualClock(Date.now());
  const client = createDataApiClient({ baseUrl: 'http://127.0.0.1:9' });
  const log = createLogger({ level: 'info', pretty: false, destination: { write: () => true } as never });
  const queue = new Queue(QUEUE_NAME, { connection: redis, prefix });
  const workerConnection = redis.duplicate({ maxRetriesPerRequest: null });
  const worker = createCollectorWorker({
    config,
    jobs: [noop],
    connection: workerConnection,
    queue,
    deps: { client, store, log, clock },
    log,
  });
  const t = performance.now();
  for (let i = 0; i < JOBS; i += 100) {
    await queue.addBulk(
      Array.from({ length: 100 }, (_, k) => ({
        name: 'noop',
        data: { args: {} },
        opts: { ...retention, ...retries, jobId: `noop|${i + k}` },
      })),
    );
  }
  await drain(queue, Math.min(JOBS, retention.removeOnComplete.count));
  await waitCompleted(store, JOBS);
  const ms = performance.now() - t;
  await worker.close(5_000);
  await queue.close();
  workerConnection.disconnect();
  await client.close();
  await store.close();
  return ms;
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

async function queueOverhead(): Promise<Figure[]> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const { dir, cleanup } = tempDir('glacier-bench-queue-');
  const raw: number[] = [];
  const ours: number[] = [];
  try {
    for (let i = 0; i < benchOptions().runs; i++) {
      const p1 = `benchraw${i}${process.pid}`;
      raw.push(await rawBullmq(redis, p1));
      await deletePrefix(REDIS_URL, p1);
      const p2 = `benchcol${i}${process.pid}`;
      const runDir = join(dir, String(i));
      ours.push(await collectorPath(redis, p2, runDir));
      await deletePrefix(REDIS_URL, p2);
    }
  } finally {
    redis.disconnect();
    cleanup();
  }
  return [
    figure({
      id: 'queue.noop-jobs',
      title: `${JOBS.toLocaleString('en')} no-op jobs through the collector's worker path (job_runs rows included)`,
      unit: 'ms',
      value: median(ours),
      baseline: median(raw),
      baselineLabel: 'raw BullMQ add + process',
      goal: { max: 1.2 },
    }),
  ];
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

async function footprint(idleMs: number): Promise<Figure[]> {
  const { dir, cleanup } = tempDir('glacier-bench-start-');
  const port = await freePort();
  const configPath = join(dir, 'glacier.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      jobs: { supply: { schedule: '0 0 1 1 *' } },
      service: { queuePrefix: `benchstart${process.pid}` },
    }),
  );
  const cli = join(process.cwd(), 'dist', 'src', 'cli.js');
  const t = performance.now();
  const child = spawn(process.execPath, [cli, 'start', '-c', configPath], {
    env: {
      ...process.env,
      DATABASE_PATH: join(dir, 'db.sqlite'),
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(port),
      LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  });
  let readyMs = Number.NaN;
  for (let i = 0; i < 400; i++) {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
    if (res?.status === 200) {
      readyMs = performance.now() - t;
      break;
    }
    await new Promise((r) => setTimeout(r, 10));
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
  await new Promise((r) => child.once('exit', r));
  cleanup();
  return [
    figure({
      id: 'footprint.start-to-ready',
      title: '`start` from launch to /readyz 200',
      unit: 'ms',
      value: readyMs,
      baseline: bareMs,
      baselineLabel: 'bare `node -e` to first output',
      goal: { on: 'value', max: 2_000 },
    }),
    figure({
      id: 'footprint.idle-rss',
      title: `RSS of \`start\` after ${Math.round(idleMs / 1000)} s idle`,
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
  return [...(await queueOverhead()), ...(await footprint(idleMs))];
}
