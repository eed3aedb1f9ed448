/**
 * A `start` that fails before serving (its metrics port taken) leaves nothing in Redis: no heartbeat,
 * no epoch, no queue keys, so `status` reports no service "seen" that never served.
 */
import { createServer, type Server } from 'node:net';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { probeService } from '../../../src/queue/probe.js';
import { TEST_REDIS_URL } from '../../support/queue.js';
import { type ServiceHarness, serviceHarness } from '../../support/service.js';

let h: ServiceHarness | undefined;
let taken: Server | undefined;
let redis: Redis | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await new Promise((resolve) => (taken ? taken.close(resolve) : resolve(undefined)));
  taken = undefined;
  redis?.disconnect();
  redis = undefined;
});

async function keysOf(prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis!.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  return found.sort();
}

describe('a start that fails before serving', () => {
  it('leaves the Redis prefix as it found it, and status sees no service', async () => {
    h = await serviceHarness({ redisUrl: TEST_REDIS_URL });
    redis = new Redis(TEST_REDIS_URL, { lazyConnect: true });
    await redis.connect();
    taken = createServer();
    await new Promise<void>((resolve) => taken!.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    const config = h.config(
      { jobs: { supply: { schedule: '* * * * *', runOnStart: true } } },
      { METRICS_PORT: String(port) },
    );
    const before = await keysOf(h.prefix);
    await expect(h.start(config)).rejects.toThrow(/EADDRINUSE/);
    expect(await keysOf(h.prefix)).toEqual(before);
    const probe = await probeService(config);
    expect(probe?.processes ?? []).toEqual([]);
    expect(probe?.lastSeenAt ?? null).toBeNull();
  });
});
