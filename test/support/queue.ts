/**
 * The queue matrix: the service tests run once on Redis and once on PostgreSQL (vitest.config.ts's
 * `queue-postgres` project), selected by `QUEUE`, as the store tests are by `STORE`. On PostgreSQL a
 * test's queue lives in the schema of its own prefix (`<prefix>_queue`) in database `test`, dropped
 * on cleanup; on Redis, under its own key prefix.
 */
import { Redis } from 'ioredis';
import pg from 'pg';
import { queueSchema } from '../../src/config/queue.js';
import type { SharedState } from '../../src/queue/backend.js';
import { postgresSharedState } from '../../src/queue/postgres-backend.js';
import { redisSharedState } from '../../src/queue/redis-backend.js';
import { TEST_POSTGRES_URL, withPostgres } from './store.js';

export type QueueKind = 'redis' | 'postgres';
export const QUEUE: QueueKind = process.env.QUEUE === 'postgres' ? 'postgres' : 'redis';
export const onPostgresQueue = QUEUE === 'postgres';
export const TEST_REDIS_URL = 'redis://127.0.0.1:6379';

/** What selects the test's queue backend: QUEUE_URL on PostgreSQL, REDIS_URL (default: the shared Redis) otherwise. */
export function queueEnv(redisUrl = TEST_REDIS_URL): Record<string, string> {
  return onPostgresQueue ? { QUEUE_URL: TEST_POSTGRES_URL } : { REDIS_URL: redisUrl };
}

/** The backend's name as the service's messages give it. */
export const queueBackendName = onPostgresQueue ? 'PostgreSQL' : 'Redis';

/** Removes everything of a test's prefix: its keys, or its queue schema. */
export async function removeQueue(prefix: string, redisUrl = TEST_REDIS_URL): Promise<void> {
  if (onPostgresQueue) {
    await withPostgres((c) => c.query(`DROP SCHEMA IF EXISTS "${queueSchema(prefix)}" CASCADE`));
    return;
  }
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, retryStrategy: () => null, lazyConnect: true });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } catch {
    // A private Redis already stopped: nothing to clean.
  } finally {
    redis.disconnect();
  }
}

/** Runs `fn` with the shared state (heartbeats, epoch, pause) of a test's prefix, on a connection of its own. */
export async function withSharedState<T>(prefix: string, fn: (shared: SharedState) => Promise<T>): Promise<T> {
  if (onPostgresQueue) {
    const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await client.connect();
    try {
      await client.query(`SET search_path TO "${queueSchema(prefix)}"`);
      return await fn(postgresSharedState((text, values) => client.query(text, values)));
    } finally {
      await client.end();
    }
  }
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    return await fn(redisSharedState(redis, prefix));
  } finally {
    redis.disconnect();
  }
}
