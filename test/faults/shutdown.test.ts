import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_ABANDONED } from '../../src/commands/start.js';
import { type CliProcess, spawnCli, stopCli } from '../support/cli.js';
import { type PrivatePostgres, startPrivatePostgres } from '../support/private-postgres.js';
import { onPostgresQueue, queueBackendName, queueEnv } from '../support/queue.js';
import { freePort, type PrivateRedis, startPrivateRedis } from '../support/redis-server.js';
import { type ServiceHarness, serviceHarness } from '../support/service.js';
import { onPostgres, queryAt } from '../support/store.js';

/**
 * Shutdown always ends (src/service/lifecycle.ts): whatever Redis, PostgreSQL or the upstream do,
 * `start` exits after SIGTERM with 0, or EXIT_ABANDONED (3) when it had to abandon a release step
 * at the deadline (service.shutdownGrace + SHUTDOWN_MARGIN_MS). The test's own timeout is the bound:
 * no wall-clock figure is asserted.
 */
let h: ServiceHarness | undefined;
let redis: PrivateRedis | undefined;
let pg: PrivatePostgres | undefined;
let proc: CliProcess | undefined;
afterEach(async () => {
  await stopCli(proc);
  proc = undefined;
  await h?.close();
  h = undefined;
  await redis?.stop();
  redis = undefined;
  pg?.destroy();
  pg = undefined;
});

async function startCli(config: unknown, env: Record<string, string>): Promise<CliProcess> {
  const path = join(h!.dir, 'glacier.json');
  writeFileSync(path, JSON.stringify(config));
  const port = await freePort();
  proc = spawnCli(['start', '-c', path], {
    GLACIER_BASE_URL: h!.sim.url,
    ...h!.dbEnv,
    ...(onPostgresQueue && !env.REDIS_URL && queueEnv()),
    METRICS_HOST: '127.0.0.1',
    METRICS_PORT: String(port),
    ...env,
  });
  await proc.waitForOutput(/glacier-collector started/, 30_000);
  return proc;
}

async function waitUntil(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  for (let waited = 0; !check(); waited += 50) {
    if (waited > ms)
      throw new Error(`timed out waiting for ${what}; output:\n${proc?.output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('shutdown always ends', () => {
  it(`SIGTERM with the queue's ${queueBackendName} stopped after a slot fired: exits 0 or 3, saying what it abandoned, no run left running`, async () => {
    // The queue's server of the test's own (the store stays on the shared one).
    if (onPostgresQueue) {
      pg = await startPrivatePostgres();
      if (!pg) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
    } else redis = await startPrivateRedis();
    h = await serviceHarness({ sim: { faults: { endpoints: { supply: { latencyMs: 1_500 } } } } });
    const p = await startCli(
      {
        jobs: { supply: { schedule: '* * * * * *' } },
        service: { queuePrefix: h.prefix, shutdownGrace: '2s' },
      },
      pg ? { QUEUE_URL: pg.url } : { REDIS_URL: redis!.url },
    );
    const sim = h.sim;
    await waitUntil(() => sim.requests.some((r) => r.endpoint === 'supply'), 'a supply run');
    if (pg) pg.stop();
    else await redis!.stop();
    // Slots keep firing every second: their enqueues wait for a backend that is gone.
    await p.waitForOutput(pg ? /PostgreSQL is not reachable/ : /Redis/i);
    await sleep(2_500);
    p.child.kill('SIGTERM');
    const code = await p.exited;
    expect([0, EXIT_ABANDONED]).toContain(code);
    if (code === EXIT_ABANDONED) expect(p.output()).toMatch(/abandon/);
    const running = await queryAt<{ id: number }>(
      h.location,
      "SELECT id FROM job_runs WHERE status = 'running'",
    );
    expect(running).toEqual([]);
  });

  it('SIGTERM while the upstream never answers: the run is interrupted and recorded so, exit 0', async () => {
    h = await serviceHarness({ sim: { faults: { endpoints: { transactions: { latencyMs: 120_000 } } } } });
    const p = await startCli(
      {
        jobs: { transactions: { schedule: '0 0 1 1 *', runOnStart: true, maxPages: 1 } },
        service: { queuePrefix: h.prefix, shutdownGrace: '1s' },
      },
      {},
    );
    const sim = h.sim;
    await waitUntil(() => sim.requests.some((r) => r.endpoint === 'transactions'), 'the first request');
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    const runs = await queryAt<{ status: string; error: string | null }>(
      h.location,
      'SELECT status, error FROM job_runs',
    );
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).toBe('failed');
    expect(runs[0]!.error).toMatch(/interrupted by shutdown/);
  });

  it.runIf(onPostgres)(
    'SIGTERM with PostgreSQL stopped mid-run: exits 0 or 3 all the same, and the server keeps no half page',
    async () => {
      pg = await startPrivatePostgres();
      if (!pg) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
      h = await serviceHarness({
        sim: { txPerMinute: 6_000, faults: { endpoints: { transactions: { latencyMs: 200 } } } },
      });
      const p = await startCli(
        {
          jobs: { transactions: { schedule: '0 0 1 1 *', runOnStart: true, maxPages: 10_000 } },
          service: { queuePrefix: h.prefix, shutdownGrace: '2s' },
        },
        { DATABASE_URL: pg.url, DATABASE_PATH: '' },
      );
      const sim = h.sim;
      await waitUntil(
        () => sim.requests.filter((r) => r.endpoint === 'transactions').length >= 3,
        'pages being written',
      );
      pg.stop();
      await sleep(500);
      p.child.kill('SIGTERM');
      const code = await p.exited;
      expect([0, EXIT_ABANDONED], p.output()).toContain(code);
      // Back up: every page committed is whole (a page and its cursor commit together).
      pg.start();
      const [cursor] = await queryAt<{ n: number }>(pg.url, 'SELECT count(*) AS n FROM sync_state');
      const [rows] = await queryAt<{ n: number }>(pg.url, 'SELECT count(*) AS n FROM transactions');
      expect(rows!.n % 100).toBe(0);
      expect(cursor!.n).toBe(rows!.n > 0 ? 1 : 0);
    },
  );
});
