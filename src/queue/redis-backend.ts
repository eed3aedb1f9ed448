/**
 * The queue on Redis (the default): BullMQ's Redis backend over the service's two connections
 * (redis.ts), RateLimiterRedis for the budget, and plain keys under `<prefix>:` for the shared state
 * (redis-shared-state.ts).
 */
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { CollectorQueue, CollectorWorkerHandle, QueueBackend } from './backend.js';
import { QUEUE_NAME, type QueuedJobData, redisJobOptions } from './jobs.js';
import { checkRedisMemory, checkRedisWrites, type RedisConnections } from './redis.js';
import { redisSharedState } from './redis-shared-state.js';

export function redisBackend(conns: RedisConnections, prefix: string, setting: string): QueueBackend {
  const { producer } = conns;
  return {
    ...redisSharedParts(producer, prefix),
    where: `Redis ${conns.where} (${setting})`,
    checkName: 'redis',
    lossMessage:
      'Redis lost its data (flushed, or restarted without persistence): recreating today’s compute-unit spending from job_runs; the next slots run as scheduled',
    createQueue(): CollectorQueue {
      const queue = new Queue<QueuedJobData>(QUEUE_NAME, {
        connection: producer,
        prefix,
        defaultJobOptions: redisJobOptions,
      });
      queue.on('error', () => undefined); // the connection reports outages, once each
      return queue;
    },
    createWorker(processor, options): CollectorWorkerHandle {
      const worker = new Worker<QueuedJobData>(QUEUE_NAME, processor, {
        ...options,
        connection: conns.worker,
        prefix,
      });
      // Its scheduler's typing keeps the Redis connection type: the handle is the same object.
      return worker as unknown as CollectorWorkerHandle;
    },
    isUp: () => conns.isUp(),
    ping: (timeoutMs) => conns.ping(timeoutMs),
    onReconnect(fn) {
      producer.on('ready', fn);
      if (producer.status === 'ready') queueMicrotask(fn);
      return () => void producer.off('ready', fn);
    },
    checkSettings: () => checkRedisMemory(producer),
    checkClaim: (timeoutMs) => checkRedisWrites(producer, `${prefix}:readyz:${process.pid}`, timeoutMs),
    async removeAll() {
      let cursor = '0';
      do {
        const [next, keys] = await producer.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) await producer.unlink(...keys);
      } while (cursor !== '0');
    },
    noteRateLimit: async () => undefined,
    knownFault: () => false,
    // BullMQ keeps locks, the stalled-check marker and the limiter as keys with a time to live: Redis's clock.
    watchReading: () => undefined,
    close: () => conns.close(),
  };
}

/** What the budget needs of a Redis connection (the service's, or a benchmark's or a test's own). */
export function redisSharedParts(
  redis: Redis,
  prefix: string,
): Pick<QueueBackend, 'name' | 'shared' | 'createLimiter'> {
  return {
    name: 'Redis',
    shared: redisSharedState(redis, prefix),
    createLimiter: (o) =>
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${prefix}:${o.keyPrefix}`,
        points: o.points,
        duration: o.duration,
      }),
  };
}
