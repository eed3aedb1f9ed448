/**
 * Redis Sentinel: a master, a replica and three sentinels on loopback (Debian's redis-server and
 * redis-sentinel, started and stopped by the test), a scheduler and a worker (`start --role …`)
 * given only the sentinels (REDIS_SENTINELS). The master is killed with -9 while a transactions run
 * is writing; the sentinels promote the replica and both processes follow it. Afterwards: every slot
 * the scheduler fired was added once and succeeded once (none lost during the failover, none run
 * twice), runs go on after the promotion, and the database equals the simulator's ground truth.
 *
 * Counted, not timed: the runs after the promotion are counted (waited for with a 30 s bound), and
 * the scheduler's own log lines say which slots it added.
 *
 * SQLite project only: the queue, not the store, is under test (the store's several-host behaviour
 * is test/faults/multi-host.test.ts's).
 */
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSentinels, type RedisSettings } from '../../src/config/redis.js';
import { QUEUE_NAME } from '../../src/queue/jobs.js';
import { probeService } from '../../src/queue/probe.js';
import { redisOptions } from '../../src/queue/redis-options.js';
import type { SimulatorHandle } from '../../src/simulator/index.js';
import { type CliProcess, spawnCli } from '../support/cli.js';
import { type SentinelDeployment, startSentinels } from '../support/sentinel.js';
import { waitFor } from '../support/service.js';
import { cliEnv, query, startFaultSimulator, T0, type Workspace, workspace } from './support.js';

const TOTAL_TX = 2_000;
const prefix = `glc-sentinel-${randomUUID().slice(0, 8)}`;

/** SQLite's default (binary) text order. */
const binary = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

let ha: SentinelDeployment;
let sim: SimulatorHandle;
let ws: Workspace;
let redis: Redis;
let queue: Queue;
let settings: RedisSettings;
const processes: CliProcess[] = [];

beforeAll(async () => {
  ha = await startSentinels();
  // A frozen clock: the list is fixed, so the ground truth is the whole list. Latency stretches a
  // run over a few seconds, so the kill lands inside one.
  sim = await startFaultSimulator({
    initialTransactions: TOTAL_TX,
    epochMs: T0,
    faults: { all: { latencyMs: [20, 40] } },
  });
  ws = await workspace({
    jobs: {
      transactions: {
        schedule: '*/2 * * * * *',
        runOnStart: true,
        networks: ['mainnet'],
        pageSize: 25,
        maxPages: 1_000,
      },
    },
    service: { queuePrefix: prefix, concurrency: 1 },
  });
  // The test's own look at the queue, through the sentinels as the service's.
  settings = {
    kind: 'sentinel',
    sentinels: parseSentinels(ha.sentinelList) as { host: string; port: number }[],
    master: ha.master,
  };
  redis = new Redis(redisOptions(settings, 'worker', 'glacier-test'));
  redis.on('error', () => undefined);
  queue = new Queue(QUEUE_NAME, { connection: redis, prefix });
  queue.on('error', () => undefined);
}, 60_000);

afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await Promise.all(processes.map((p) => p.exited));
  await queue?.close();
  redis?.disconnect();
  await ha?.stop();
  await ws?.cleanup();
  await sim?.close();
});

function start(role: 'scheduler' | 'worker'): CliProcess {
  const p = spawnCli(
    ['start', '--role', role],
    cliEnv(sim, ws, {
      REDIS_SENTINELS: ha.sentinelList,
      REDIS_SENTINEL_MASTER: ha.master,
      METRICS_PORT: '0',
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'json',
    }),
  );
  processes.push(p);
  return p;
}

/** Its exit code, or a failure with its output's tail when it has not exited within `ms`. */
async function exitOf(p: CliProcess, ms = 30_000): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`not exited within ${ms} ms:\n${p.output().slice(-4_000)}`)),
      ms,
    );
  });
  try {
    return await Promise.race([p.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The JSON log lines of a process with message `msg`. */
function logLines(p: CliProcess, msg: string): Record<string, unknown>[] {
  return p
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === msg);
}

const succeededRuns = async () =>
  (
    await query<{ n: number }>(
      ws.location,
      "SELECT COUNT(*) AS n FROM job_runs WHERE status = 'succeeded' AND job = 'transactions'",
    )
  )[0]!.n;

describe('Redis Sentinel failover', () => {
  it('the master killed mid-run: the replica promoted, runs go on, every slot added once and succeeded once, the database equals the truth', async () => {
    const worker = start('worker');
    await worker.waitForOutput(/glacier-collector started/, 60_000);
    const scheduler = start('scheduler');
    await scheduler.waitForOutput(/scheduled/, 60_000);
    // Kill the master while a run is writing its pages.
    await waitFor(
      async () => {
        const active = (await queue.getActive()).length > 0;
        const rows = (await query<{ n: number }>(ws.location, 'SELECT COUNT(*) AS n FROM transactions'))[0]!
          .n;
        return active && rows > 0 && rows < TOTAL_TX;
      },
      60_000,
      'a transactions run mid-way',
    );
    const [master, replica] = ha.servers as [(typeof ha.servers)[0], (typeof ha.servers)[0]];
    await master.kill();

    await waitFor(async () => (await ha.masterPort()) === replica.port, 60_000, 'the replica promoted');
    // Runs resume: two more runs succeed after the promotion.
    const before = await succeededRuns();
    await waitFor(async () => (await succeededRuns()) >= before + 2, 30_000, 'two runs after the promotion');
    // `status` reads the heartbeats through the sentinels too: both processes, on the new master.
    const seen = await probeService({
      redis: settings,
      queue: { kind: 'redis', setting: 'REDIS_URL' },
      service: { queuePrefix: prefix },
    });
    expect(seen).toMatchObject({
      reachable: true,
      redis: `master "${ha.master}" of sentinels ${ha.sentinelList}`,
    });
    expect(seen.processes.map((p) => p.role).sort()).toEqual(['scheduler', 'worker']);

    // Stop the scheduler, let the queue drain, then stop the worker gracefully.
    scheduler.child.kill('SIGTERM');
    expect(await exitOf(scheduler)).toBe(0);
    await waitFor(
      async () => {
        const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
        return Object.values(counts).every((n) => n === 0);
      },
      60_000,
      'the queue to drain',
    );
    worker.child.kill('SIGTERM');
    expect(await exitOf(worker)).toBe(0);

    // Both processes followed the promotion.
    expect(worker.output()).toMatch(/Redis is back/);
    expect(scheduler.output()).toMatch(/Redis is back/);

    // The rows: exactly the simulator's, none twice.
    const truth = sim.truth.transactions({ network: 'mainnet' });
    const rows = await query<{ chain_id: string; tx_hash: string; block_hash: string; value: string }>(
      ws.location,
      'SELECT chain_id, tx_hash, block_hash, value FROM transactions ORDER BY chain_id, tx_hash',
    );
    expect(rows).toEqual(
      truth
        .map((t) => ({ chain_id: t.chainId, tx_hash: t.txHash, block_hash: t.blockHash, value: t.value }))
        .sort((a, b) => binary(a.chain_id, b.chain_id) || binary(a.tx_hash, b.tx_hash)),
    );

    // No slot lost: every slot fired was added (or skipped behind a run still pending), none given
    // up; every slot added completed once, and each completed job is one successful run.
    expect(logLines(scheduler, 'slot not enqueued')).toEqual([]);
    const added = logLines(scheduler, 'slot enqueued').map((l) => String(l.jobId));
    expect(added.length).toBeGreaterThan(0);
    expect(new Set(added).size).toBe(added.length);
    const completed = await queue.getJobs(['completed'], 0, -1);
    const failed = await queue.getJobs(['failed'], 0, -1);
    expect(failed.map((j) => `${j.id}: ${j.failedReason}`)).toEqual([]);
    expect(completed.map((j) => j.id).sort()).toEqual([...added].sort());
    // Each completed job is one successful run, of its own slot. The run the kill interrupted may
    // have failed on its budget call (the producer connection fails fast while Redis is away); if
    // so, BullMQ retried it after the promotion and its slot succeeded then, once.
    const runs = await query<{ scope: string; status: string; error: string | null }>(
      ws.location,
      'SELECT scope, status, error FROM job_runs ORDER BY id',
    );
    const succeeded = runs.filter((r) => r.status === 'succeeded');
    expect(succeeded).toHaveLength(completed.length);
    expect(new Set(succeeded.map((r) => r.scope)).size).toBe(succeeded.length);
    const others = runs.filter((r) => r.status !== 'succeeded');
    expect(others.length).toBeLessThanOrEqual(1);
    for (const r of others) {
      expect(r).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(
          /enableOfflineQueue|max retries per request|Connection is closed|ECONNREFUSED|READONLY/,
        ),
      });
      expect(succeeded.map((s) => s.scope)).toContain(r.scope);
    }
  }, 240_000);
});
