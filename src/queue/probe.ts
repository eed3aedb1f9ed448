/**
 * `status`'s look at the service through Redis: the processes beating (src/queue/heartbeat.ts),
 * when one last beat, and the queue's counts. One short-lived connection that gives up quickly:
 * status answers from the database when Redis is away, and says so.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { printableRedis, type RedisSettings } from '../config/redis.js';
import { type Beat, type MalformedBeat, readHeartbeats } from './heartbeat.js';
import { QUEUE_NAME } from './jobs.js';
import { describeRedisError, maskRedisUrl } from './redis.js';
import { redisOptions } from './redis-options.js';

export interface QueueCountsNow {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

export interface ServiceProbe {
  /** REDIS_URL, its password masked. */
  redis: string;
  prefix: string;
  reachable: boolean;
  /** Why Redis could not be read, when it could not. */
  error: string | null;
  processes: Beat[];
  /** Heartbeat keys whose value is not a beat: shown as malformed. */
  malformed: MalformedBeat[];
  lastSeenAt: string | null;
  queue: QueueCountsNow | null;
}

export async function probeService(
  target: string | RedisSettings,
  prefix: string,
  timeoutMs = 2_000,
): Promise<ServiceProbe> {
  const base = { redis: typeof target === 'string' ? maskRedisUrl(target) : printableRedis(target), prefix };
  const redis = new Redis({
    ...redisOptions(target, 'producer', 'glacier-collector:status'),
    lazyConnect: true,
    sentinelRetryStrategy: () => null,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
    connectionName: 'glacier-collector:status',
  });
  // Reported below, once: the first error says why (ECONNREFUSED…), not "Connection is closed".
  let firstError: Error | undefined;
  redis.on('error', (err: Error) => {
    firstError ??= err;
  });
  try {
    await redis.connect();
    const sighting = await readHeartbeats(redis, prefix);
    // Reading only: BullMQ's Queue writes its `<prefix>:collector:meta` hash on creation unless told
    // not to, which left a key behind under the prefix of a collector that never ran.
    const queue = new Queue(QUEUE_NAME, { connection: redis, prefix, skipMetasUpdate: true });
    queue.on('error', () => undefined);
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed');
    return {
      ...base,
      reachable: true,
      error: null,
      ...sighting,
      queue: {
        waiting: counts.waiting ?? 0,
        active: counts.active ?? 0,
        delayed: counts.delayed ?? 0,
        failed: counts.failed ?? 0,
      },
    };
  } catch (err) {
    return {
      ...base,
      reachable: false,
      error: describeRedisError(firstError ?? (err as Error)),
      processes: [],
      malformed: [],
      lastSeenAt: null,
      queue: null,
    };
  } finally {
    redis.disconnect();
  }
}
