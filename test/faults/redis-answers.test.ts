/**
 * Redis that answers with errors instead of going away (issue 34, D1): a private redis-server with
 * `maxmemory` and the `noeviction` BullMQ requires, filled past its limit while `start` runs. Redis
 * answers PING but refuses every write (`OOM command not allowed…`), so BullMQ's worker cannot claim.
 * Before: BullMQ's loop asked again at once, 89,117 `worker error` lines in 9.5 s, 70 % of a core,
 * `/readyz` ready. Now: the worker backs off (capped, jittered), says so once (a minute), `/readyz`
 * names the worker check, and once memory is freed the next slot runs, none twice.
 *
 * Counted, not timed: the fault's lines are counted over a window (the bound is per minute), and the
 * process's CPU and the time to resume are printed as figures (for the closing note), not asserted.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type PrivateRedis, startPrivateRedis } from '../support/redis-server.js';
import { type ServiceHarness, serviceHarness, waitFor } from '../support/service.js';
import { cpuSeconds, fill, linesMatching, readyz, usedMemory } from './backend-support.js';
import { query, sleep } from './support.js';

let redis: PrivateRedis;
let h: ServiceHarness | undefined;
let client: Redis;

beforeAll(async () => {
  redis = await startPrivateRedis();
  client = new Redis(redis.port, '127.0.0.1', { maxRetriesPerRequest: 1 });
  await client.config('SET', 'maxmemory', String(16 * 1024 * 1024));
});
afterEach(async () => {
  await h?.close();
  h = undefined;
});
afterAll(async () => {
  client?.disconnect();
  await redis?.stop();
});

describe('Redis full (maxmemory, noeviction) under start', () => {
  it('the worker backs off and says so once, /readyz is not ready, and runs resume once memory is freed, none twice', async () => {
    h = await serviceHarness({ redisUrl: redis.url });
    const { proc, port } = await h.spawnStart(
      { jobs: { supply: { schedule: '*/2 * * * * *', runOnStart: true } } },
      { REDIS_URL: redis.url, LOG_FORMAT: 'json', LOG_LEVEL: 'info' },
    );
    await proc.waitForOutput(/glacier-collector started/, 60_000);
    const succeeded = async () =>
      (
        await query<{ n: number }>(
          h!.location,
          "SELECT COUNT(*) AS n FROM job_runs WHERE job = 'supply' AND status = 'succeeded'",
        )
      )[0]!.n;
    await waitFor(async () => (await succeeded()) > 0, 60_000, 'a first run');

    // Past maxmemory: values of 1 MiB until Redis refuses one (it checks memory before a command),
    // then maxmemory lowered to 4 MiB below the memory used at that moment. Filled to the limit
    // alone, Redis sat a few bytes past it, and what the service frees meanwhile (its heartbeat's
    // and readiness key's time to live, BullMQ deleting a finished job: deletes are taken when
    // full) brought it back under: writes taken again and no fault line (3 of 4 runs beside
    // another file, whose load makes the service's writes land between the fill and the probe).
    // The service's own keys are a few KiB: 4 MiB is a margin it cannot free.
    // The output from before the fill on: Redis refuses the service's writes already while the fill
    // goes on, and the fault's first line (then one a minute) may come before the fill ends.
    const outputAtFill = proc.output().length;
    const filled = await fill(client);
    const used = await usedMemory(client);
    await client.config('SET', 'maxmemory', String(used - 4 * 1024 * 1024));
    const refused = await client.set('glc-probe', '1').then(
      () => false,
      (err: Error) => /OOM/.test(err.message),
    );
    if (!refused) throw new Error('Redis took a write below its maxmemory: is the policy noeviction?');
    const filledAt = Date.now();

    await waitFor(
      async () => {
        const r = await readyz(port);
        const worker = (r.body.checks as Record<string, { ok: boolean; error?: string }> | undefined)?.worker;
        return r.status === 503 && worker?.ok === false && /OOM|refuses/.test(worker.error ?? '');
      },
      30_000,
      '/readyz to say the worker cannot claim',
    );
    // The fault lasts a while: lines and CPU over that window.
    const cpuBefore = cpuSeconds(proc.child.pid!);
    const windowStart = Date.now();
    await sleep(20_000);
    const cpu = (cpuSeconds(proc.child.pid!) - cpuBefore) / ((Date.now() - windowStart) / 1000);
    const during = proc.output().slice(outputAtFill);
    const faultLines = during.split('\n').filter((l) => l.includes('OOM'));
    console.info(
      `D1 figures: ${faultLines.length} lines naming OOM in ${Math.round((Date.now() - filledAt) / 1000)} s of fault; CPU ${(cpu * 100).toFixed(1)} % of a core while waiting`,
    );
    expect(linesMatching(during, /^worker error$/)).toEqual([]);
    // One line when it starts, then at most one a minute per cause (the worker's, the scheduler's).
    expect(faultLines.length).toBeGreaterThan(0);
    expect(faultLines.length).toBeLessThanOrEqual(4);

    const runsBefore = await succeeded();
    // Freeing the fill (16 MiB) brings used memory well under the lowered limit.
    await client.del(...filled);
    const freedAt = Date.now();
    await waitFor(async () => (await succeeded()) > runsBefore, 60_000, 'a run after memory was freed');
    const resumedMs = Date.now() - freedAt;
    await waitFor(async () => (await readyz(port)).status === 200, 60_000, '/readyz ready again');
    console.info(`D1 figures: a run succeeded ${(resumedMs / 1000).toFixed(1)} s after memory was freed`);

    // No slot run twice.
    const scopes = await query<{ scope: string; n: number }>(
      h.location,
      "SELECT scope, COUNT(*) AS n FROM job_runs WHERE job = 'supply' AND status = 'succeeded' GROUP BY scope HAVING COUNT(*) > 1",
    );
    expect(scopes).toEqual([]);
  }, 240_000);
});
