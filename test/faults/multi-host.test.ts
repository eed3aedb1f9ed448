/**
 * Several hosts, one database: one scheduler and three worker processes (`start --role …`) on one
 * queue (Redis; in the `queue-postgres` project, PostgreSQL alone) and one store collect
 * transactions and rewards from the simulator; the worker running the transactions job is killed with -9 mid-run. BullMQ's stalled-job recovery hands the job to another
 * worker, which resumes the stream from its committed cursor. Afterwards the database equals the
 * simulator's ground truth, every slot succeeded once, and the summaries count nothing twice.
 *
 * PostgreSQL only: the store for several hosts (several processes on one SQLite file are
 * test/faults/concurrent.test.ts's).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAddress } from '../../src/commands/demo-config.js';
import type { CollectorQueue } from '../../src/queue/backend.js';
import type { SimulatorHandle } from '../../src/simulator/index.js';
import { type CliProcess, spawnCli } from '../support/cli.js';
import { openTestQueue, queueEnv, removeQueue } from '../support/queue.js';
import { waitFor } from '../support/service.js';
import { cliEnv, query, startFaultSimulator, T0, type Workspace, workspace } from './support.js';

const TOTAL_TX = 2_000;
const addresses = Array.from({ length: 8 }, (_, i) => demoAddress(`multi-host-${i}`));
const prefix = `glc-multi-host-${randomUUID().slice(0, 8)}`;

/** SQLite's default (binary) text order. */
const binary = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

let sim: SimulatorHandle;
let ws: Workspace;
let testQueue: { queue: CollectorQueue; close(): Promise<void> } | undefined;
let queue: CollectorQueue;
const processes: CliProcess[] = [];

beforeAll(async () => {
  // A frozen clock: the lists are fixed, so the ground truth is the whole list. Latency stretches a
  // transactions run over a few seconds, so the kill lands inside it.
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
      rewards: {
        schedule: '*/2 * * * * *',
        runOnStart: true,
        network: 'mainnet',
        addresses,
        pageSize: 10,
        maxPages: 1_000,
      },
    },
    // A dead worker's job is taken over after 5 s instead of BullMQ's 30 s.
    service: { queuePrefix: prefix, concurrency: 1, stalledJobTimeout: '5s' },
  });
  testQueue = await openTestQueue(prefix);
  queue = testQueue.queue;
});

afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await Promise.all(processes.map((p) => p.exited));
  await testQueue?.close();
  await removeQueue(prefix);
  await ws?.cleanup();
  await sim?.close();
});

function start(role: 'scheduler' | 'worker'): CliProcess {
  const p = spawnCli(
    ['start', '--role', role],
    cliEnv(sim, ws, { ...queueEnv(), METRICS_PORT: '0', LOG_LEVEL: 'info' }),
  );
  processes.push(p);
  return p;
}

/** The worker process running an active job of `job`, once one has committed rows. */
async function workerRunning(job: string, workers: CliProcess[]): Promise<CliProcess> {
  return waitFor(
    async () => {
      const active = (await queue.getActive()).find((j) => j.name === job && j.processedBy);
      if (!active) return undefined;
      const pid = Number(active.processedBy!.split(':').at(-1));
      const rows = (await query<{ n: number }>(ws.location, `SELECT COUNT(*) AS n FROM ${job}`))[0]!.n;
      return rows > 0 && rows < TOTAL_TX ? workers.find((w) => w.child.pid === pid) : undefined;
    },
    60_000,
    `a worker running ${job} mid-way`,
  );
}

describe('one scheduler and three workers on one database', () => {
  it('a worker killed with -9 mid-job: the database equals the ground truth, every slot succeeded once', async () => {
    const workers = [start('worker'), start('worker'), start('worker')];
    for (const w of workers) await w.waitForOutput(/glacier-collector started/, 60_000);
    const scheduler = start('scheduler');
    await scheduler.waitForOutput(/scheduled/, 60_000);

    const victim = await workerRunning('transactions', workers);
    victim.child.kill('SIGKILL');
    await victim.exited;

    // Another worker takes the job over and completes the stream; rewards complete too.
    await waitFor(
      async () => {
        const rows = await query<{ job: string; n: number }>(
          ws.location,
          "SELECT job, COUNT(*) AS n FROM job_runs WHERE status = 'succeeded' GROUP BY job",
        );
        const done = new Map(rows.map((r) => [r.job, r.n]));
        const tx = (await query<{ n: number }>(ws.location, 'SELECT COUNT(*) AS n FROM transactions'))[0]!.n;
        return tx === TOTAL_TX && (done.get('transactions') ?? 0) >= 1 && (done.get('rewards') ?? 0) >= 1;
      },
      120_000,
      'the transactions and rewards runs after the kill',
    );

    // Stop the scheduler, let the queue drain, then stop the workers gracefully.
    scheduler.child.kill('SIGTERM');
    expect(await scheduler.exited).toBe(0);
    await waitFor(
      async () => {
        const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
        return Object.values(counts).every((n) => n === 0);
      },
      60_000,
      'the queue to drain',
    );
    const survivors = workers.filter((w) => w !== victim);
    for (const w of survivors) w.child.kill('SIGTERM');
    for (const w of survivors) expect(await w.exited).toBe(0);

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
    const rewardTruth = sim.truth.rewards('mainnet', { addresses });
    const rewards = await query<{ utxo_id: string; amount: string }>(
      ws.location,
      'SELECT utxo_id, CAST(amount AS TEXT) AS amount FROM rewards ORDER BY utxo_id',
    );
    expect(rewards).toEqual(
      rewardTruth
        .map((r) => ({ utxo_id: r.utxoId, amount: r.reward.amount }))
        .sort((a, b) => binary(a.utxo_id, b.utxo_id)),
    );

    // The summaries count every row once (a page written twice would count twice).
    const summaries = await query<{ chain_id: string; transactions: number }>(
      ws.location,
      'SELECT chain_id, transactions FROM transaction_summaries ORDER BY chain_id',
    );
    const recount = await query<{ chain_id: string; transactions: number }>(
      ws.location,
      'SELECT chain_id, COUNT(*) AS transactions FROM transactions GROUP BY chain_id ORDER BY chain_id',
    );
    expect(summaries).toEqual(recount);
    const nodeSummaries = await query<{ subject: string; rewards: number }>(
      ws.location,
      "SELECT subject, SUM(rewards) AS rewards FROM reward_summaries WHERE subject_kind = 'node_id' GROUP BY subject ORDER BY subject",
    );
    const nodeRecount = await query<{ subject: string; rewards: number }>(
      ws.location,
      'SELECT node_id AS subject, COUNT(*) AS rewards FROM rewards GROUP BY node_id ORDER BY node_id',
    );
    expect(nodeSummaries.map((r) => ({ ...r, rewards: Number(r.rewards) }))).toEqual(nodeRecount);

    // Every slot ran to success once: the queue's completed jobs (one per slot id) match the
    // successful runs one for one; the one run that failed is the killed one, marked so by the
    // worker that took its job over; none is left `running`.
    const completed = await queue.getJobs(['completed'], 0, -1);
    const failed = await queue.getJobs(['failed'], 0, -1);
    expect(failed.map((j) => `${j.id}: ${j.failedReason}`)).toEqual([]);
    const runs = await query<{ job: string; status: string; n: number }>(
      ws.location,
      'SELECT job, status, COUNT(*) AS n FROM job_runs GROUP BY job, status ORDER BY job, status',
    );
    const failedRuns = await query<{ job: string; error: string }>(
      ws.location,
      "SELECT job, error FROM job_runs WHERE status = 'failed'",
    );
    expect(failedRuns).toEqual([
      {
        job: 'transactions',
        error: expect.stringMatching(
          /^interrupted: its worker stopped before the run finished; the job was taken over by [^:]+:\d+$/,
        ),
      },
    ]);
    expect(failedRuns[0]!.error).not.toMatch(new RegExp(`:${victim.child.pid}$`));
    const runsOf = (job: string, status: string) =>
      runs.find((r) => r.job === job && r.status === status)?.n ?? 0;
    for (const job of ['transactions', 'rewards']) {
      const slots = completed.filter((j) => j.name === job);
      expect(new Set(slots.map((j) => j.id)).size).toBe(slots.length);
      expect(runsOf(job, 'succeeded')).toBe(slots.length);
      expect(runsOf(job, 'running')).toBe(0);
    }
    // The slot the victim held was finished by another worker.
    expect(completed.some((j) => j.name === 'transactions' && j.stalledCounter > 0)).toBe(true);
  }, 300_000);
});
