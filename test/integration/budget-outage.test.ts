/**
 * The compute-unit budget while its Redis is away (a Sentinel failover, a restart): a request waits
 * for it to answer again instead of failing its run, and fails with an error that says so once the
 * outage outlasts OUTAGE_WAIT_MS. A Redis of the test's own, stopped and started again.
 */
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createSharedBudget, OUTAGE_WAIT_MS } from '../../src/queue/budget.js';
import { redisSharedParts } from '../../src/queue/redis-backend.js';
import { redisOptions } from '../../src/queue/redis-options.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { createLogger } from '../../src/runtime/logger.js';
import { abortableSleep } from '../../src/runtime/sleep.js';
import { type PrivateRedis, startPrivateRedis } from '../support/redis-server.js';
import { waitFor } from '../support/service.js';

let server: PrivateRedis | undefined;
let redis: Redis | undefined;
afterEach(async () => {
  redis?.disconnect();
  redis = undefined;
  await server?.stop();
  server = undefined;
});

async function budgetOnPrivateRedis(sleep: (ms: number, signal?: AbortSignal) => Promise<void>) {
  server = await startPrivateRedis();
  // The service's producer connection: no offline queue, a call fails at once while Redis is away.
  redis = new Redis(redisOptions(server.url, 'producer', 'glacier-test'));
  redis.on('error', () => undefined);
  const budget = createSharedBudget({
    backend: redisSharedParts(redis, 'glc-outage'),
    prefix: 'budget',
    perMinute: 1_000,
    perDay: 100_000,
    clock: createManualClock(Date.UTC(2026, 0, 1, 12)),
    log: createLogger({ level: 'silent', pretty: false }),
    sleep,
  });
  return { server, budget };
}

describe('the compute-unit budget while its Redis is away', () => {
  it('a request waits for Redis to answer again, then takes its units', async () => {
    let waits = 0;
    const { server: s, budget } = await budgetOnPrivateRedis((ms, signal) => {
      waits++;
      return abortableSleep(ms, signal);
    });
    await budget.acquire('transactions', 10, new AbortController().signal);
    await s.stop();
    const acquired = budget.acquire('transactions', 10, new AbortController().signal);
    await waitFor(async () => waits >= 2, 10_000, 'the request to wait for Redis');
    await s.start();
    await acquired;
    // The server came back empty: only the second request's units are in its window.
    expect((await budget.snapshot()).remainingMinute).toBe(990);
  });

  it('a Redis that stays away fails the request after the outage bound, naming the budget and Redis', async () => {
    let waited = 0;
    const { server: s, budget } = await budgetOnPrivateRedis(async (ms) => {
      waited += ms;
    });
    await s.stop();
    await expect(budget.acquire('transactions', 10, new AbortController().signal)).rejects.toThrow(
      /^the compute-unit budget's Redis did not answer for 30 s: /,
    );
    expect(waited).toBeLessThanOrEqual(OUTAGE_WAIT_MS);
    expect(waited).toBeGreaterThan(OUTAGE_WAIT_MS / 2);
  });
});
