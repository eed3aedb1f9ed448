import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { queueSchema } from '../../../src/config/queue.js';
import { onPostgresQueue } from '../../support/queue.js';
import { type PrivateRedis, startPrivateRedis } from '../../support/redis-server.js';
import { captureLog, jobRuns, type ServiceHarness, serviceHarness, waitFor } from '../../support/service.js';
import { withPostgres } from '../../support/store.js';

let h: ServiceHarness | undefined;
let redis: PrivateRedis | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await redis?.stop();
  redis = undefined;
});

/** What the log says when the loss is noticed. */
const LOSS = onPostgresQueue ? /the queue’s PostgreSQL schema lost its data/g : /Redis lost its data/g;

describe('a queue backend that loses its data', () => {
  it('flushed under a running service: noticed and logged once, today’s spending restored from job_runs, the next slots run once each', async () => {
    // A Redis of the test's own: FLUSHALL on the shared one would empty every other test's keys.
    // On PostgreSQL the test's schema is its own: its shared state and budget rows are emptied.
    redis = onPostgresQueue ? undefined : await startPrivateRedis();
    h = await serviceHarness(redis ? { redisUrl: redis.url } : {});
    const { log, text } = captureLog('info');
    const svc = await h.start(
      h.config({ jobs: { supply: { schedule: '* * * * * *' } }, budget: { computeUnitsPerDay: 100_000 } }),
      { log, redisCheckIntervalMs: 100 },
    );
    const succeeded = async () => (await jobRuns(svc)).filter((r) => r.status === 'succeeded');
    await waitFor(async () => (await succeeded()).length >= 2, 15_000, 'two runs');

    if (redis) {
      const admin = new Redis(redis.url);
      try {
        await admin.flushall();
      } finally {
        admin.disconnect();
      }
    } else {
      const schema = queueSchema(h.prefix);
      await withPostgres((c) =>
        c.query(`DELETE FROM "${schema}".shared_state; DELETE FROM "${schema}".budget`),
      );
    }
    const spentBefore = (await succeeded()).length; // supply: 1 CU a run
    await waitFor(() => new RegExp(LOSS.source).test(text()), 15_000, 'the loss noticed');
    await waitFor(
      async () => (await succeeded()).length >= spentBefore + 2,
      15_000,
      'two runs after the flush',
    );

    expect(text().match(LOSS)).toHaveLength(1);
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
