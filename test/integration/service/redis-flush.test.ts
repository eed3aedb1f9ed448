import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { type PrivateRedis, startPrivateRedis } from '../../support/redis-server.js';
import { captureLog, jobRuns, type ServiceHarness, serviceHarness, waitFor } from '../../support/service.js';

let h: ServiceHarness | undefined;
let redis: PrivateRedis | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await redis?.stop();
  redis = undefined;
});

describe('a Redis that loses its data', () => {
  it('flushed under a running service: noticed and logged once, today’s spending restored from job_runs, the next slots run once each', async () => {
    // A Redis of the test's own: FLUSHALL on the shared one would empty every other test's keys.
    redis = await startPrivateRedis();
    h = await serviceHarness({ redisUrl: redis.url });
    const { log, text } = captureLog('info');
    const svc = await h.start(
      h.config({ jobs: { supply: { schedule: '* * * * * *' } }, budget: { computeUnitsPerDay: 100_000 } }),
      { log, redisCheckIntervalMs: 100 },
    );
    const succeeded = async () => (await jobRuns(svc)).filter((r) => r.status === 'succeeded');
    await waitFor(async () => (await succeeded()).length >= 2, 15_000, 'two runs');

    const admin = new Redis(redis.url);
    try {
      await admin.flushall();
    } finally {
      admin.disconnect();
    }
    const spentBefore = (await succeeded()).length; // supply: 1 CU a run
    await waitFor(() => /Redis lost its data/.test(text()), 15_000, 'the loss noticed');
    await waitFor(
      async () => (await succeeded()).length >= spentBefore + 2,
      15_000,
      'two runs after the flush',
    );

    expect(text().match(/Redis lost its data/g)).toHaveLength(1);
    // The day's window holds the runs before the flush again, not only those after it (a run in
    // flight at the flush may have its unit charged before it and recorded after the restore).
    const total = (await succeeded()).length;
    const snapshot = await svc.budget!.snapshot();
    expect(snapshot.perDay - snapshot.remainingDay).toBeGreaterThanOrEqual(total - 1);
    // No slot ran twice, and none was left running.
    const runs = await jobRuns(svc);
    expect(new Set(runs.map((r) => r.scope)).size).toBe(runs.length);
    expect(runs.filter((r) => r.status === 'failed')).toEqual([]);
  });
});
