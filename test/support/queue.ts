/**
 * The queue matrix: the service tests run once on Redis and once on PostgreSQL (vitest.config.ts's
 * `queue-postgres` project), selected by `QUEUE`, as the store tests are by `STORE`. On PostgreSQL a
 * test's queue lives in the schema of its own prefix (`<prefix>_queue`) in database `test`, dropped
 * on cleanup; on Redis, under its own key prefix.
 */
import { Redis } from 'ioredis';
import pg from 'pg';
import { loadConfig } from '../../src/config/index.js';
import { queueSchema } from '../../src/config/queue.js';
import type { CollectorQueue, SharedState } from '../../src/queue/backend.js';
import { openQueueBackend } from '../../src/queue/open-backend.js';
import { migrateQueueSchema, postgresSharedState, queuePool } from '../../src/queue/postgres-backend.js';
import { redisSharedState } from '../../src/queue/redis-shared-state.js';
import { createLogger } from '../../src/runtime/logger.js';
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
  await deleteRedisPrefix(redisUrl, prefix);
}

/** Removes every key of a test's (or a benchmark's) prefix from a Redis. */
export async function deleteRedisPrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: () => null, lazyConnect: true });
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

/**
 * Runs `fn` with the shared state (heartbeats, epoch, pause) of a test's prefix, on a connection of its
 * own. On PostgreSQL the queue's schema is created first if no service has yet.
 */
export async function withSharedState<T>(
  prefix: string,
  fn: (shared: SharedState) => Promise<T>,
): Promise<T> {
  if (onPostgresQueue) {
    const target = { url: TEST_POSTGRES_URL, schema: queueSchema(prefix) };
    const pool = queuePool(target, { name: 'glacier-test', max: 1 });
    try {
      await migrateQueueSchema(pool, target);
    } finally {
      await pool.end();
    }
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

/** True when nothing of a test's prefix is in the backend: no key, or no queue schema. */
export async function queueIsEmpty(prefix: string): Promise<boolean> {
  if (onPostgresQueue) {
    return withPostgres(async (c) => {
      const { rows } = await c.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [queueSchema(prefix)]);
      return rows.length === 0;
    });
  }
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    return (await redis.keys(`${prefix}:*`)).length === 0;
  } finally {
    redis.disconnect();
  }
}

/** Everything stored under a test's prefix, as text: each key's value, or each row of the queue's schema. */
export async function dumpQueue(prefix: string): Promise<string[]> {
  if (onPostgresQueue) {
    return withPostgres(async (c) => {
      const schema = queueSchema(prefix);
      const { rows: tables } = await c.query<{ name: string }>(
        'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1',
        [schema],
      );
      const dumps: string[] = [];
      for (const { name } of tables) {
        const { rows } = await c.query<{ dump: string | null }>(
          `SELECT json_agg(t)::text AS dump FROM "${schema}"."${name}" t`,
        );
        if (rows[0]?.dump) dumps.push(rows[0].dump);
      }
      return dumps;
    });
  }
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    const dumps: string[] = [];
    for (const k of await redis.keys(`${prefix}:*`)) {
      const type = await redis.type(k);
      dumps.push(
        type === 'hash'
          ? JSON.stringify(await redis.hgetall(k))
          : type === 'string'
            ? String(await redis.get(k))
            : type === 'list'
              ? JSON.stringify(await redis.lrange(k, 0, -1))
              : type === 'zset'
                ? JSON.stringify(await redis.zrange(k, 0, -1))
                : type === 'stream'
                  ? JSON.stringify(await redis.xrange(k, '-', '+'))
                  : JSON.stringify(await redis.smembers(k).catch(() => [])),
      );
    }
    return dumps;
  } finally {
    redis.disconnect();
  }
}

/** The collector's BullMQ queue of a test's prefix, to look at (counts, jobs), on the matrix's backend. */
export async function openTestQueue(
  prefix: string,
): Promise<{ queue: CollectorQueue; close(): Promise<void> }> {
  const config = loadConfig({ env: queueEnv(), file: { service: { queuePrefix: prefix } } });
  const backend = await openQueueBackend(config, createLogger({ level: 'silent' }), 'glacier-test');
  const queue = backend.createQueue();
  return {
    queue,
    async close() {
      await queue.close();
      await backend.close();
    },
  };
}
