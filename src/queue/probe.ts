/**
 * `status`'s look at the service through the queue's backend: the processes beating
 * (src/queue/heartbeat.ts), when one last beat, and the queue's counts. One short-lived connection
 * that gives up quickly: status answers from the database when the backend is away, and says so.
 */
import { Redis } from 'ioredis';
import type { Config } from '../config/index.js';
import { maskQueueUrl } from '../config/queue.js';
import { printableRedis, type RedisSettings, redisSetting } from '../config/redis.js';
import type { QueueBackend } from './backend.js';
import { type Beat, type MalformedBeat, readHeartbeats } from './heartbeat.js';
import { QUEUE_NAME } from './jobs.js';
import {
  describeRedisError,
  describeRedisMemory,
  type RedisMemory,
  readRedisMemory,
  redisMemoryNote,
  redisMemoryProblem,
} from './redis.js';
import { redisOptions } from './redis-options.js';
import { redisSharedState } from './redis-shared-state.js';

export interface QueueCountsNow {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

export interface ServiceProbe {
  /** `redis` or `postgres`. */
  backend: 'redis' | 'postgres';
  /** Where the backend is, password masked, and the variable that named it: `Redis redis://… (REDIS_URL)`. */
  where: string;
  /** REDIS_URL, its password masked (or the sentinels and master); null when the queue is on PostgreSQL. */
  redis: string | null;
  prefix: string;
  reachable: boolean;
  /** Why the backend could not be read, when it could not. */
  error: string | null;
  processes: Beat[];
  /** Heartbeat keys whose value is not a beat: shown as malformed. */
  malformed: MalformedBeat[];
  lastSeenAt: string | null;
  queue: QueueCountsNow | null;
  /**
   * Redis's memory (INFO memory): what it uses, its maxmemory and policy, and what is wrong with them
   * for BullMQ (`noeviction` required, headroom); null on PostgreSQL, or when Redis does not say.
   */
  memory: (RedisMemory & { summary: string; problem: string | null; note: string | null }) | null;
}

type ProbeTarget = Pick<Config, 'redis' | 'queue'> & { service: Pick<Config['service'], 'queuePrefix'> };

export function probeService(config: ProbeTarget, timeoutMs = 2_000): Promise<ServiceProbe> {
  return config.queue.kind === 'postgres'
    ? probePostgres(config.queue, config.service.queuePrefix, timeoutMs)
    : probeRedis(
        config.redis,
        config.queue.setting === 'QUEUE_URL' ? 'QUEUE_URL' : redisSetting(config.redis),
        config.service.queuePrefix,
        timeoutMs,
      );
}

const unreachable = {
  reachable: false,
  processes: [],
  malformed: [],
  lastSeenAt: null,
  queue: null,
  memory: null,
};

async function probeRedis(
  target: RedisSettings,
  setting: string,
  prefix: string,
  timeoutMs: number,
): Promise<ServiceProbe> {
  const base = {
    backend: 'redis' as const,
    where: `Redis ${printableRedis(target)} (${setting})`,
    redis: printableRedis(target),
    prefix,
  };
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
    const sighting = await readHeartbeats(redisSharedState(redis, prefix), prefix);
    const memory = await readRedisMemory(redis).catch(() => undefined);
    return {
      ...base,
      reachable: true,
      error: null,
      ...sighting,
      queue: await redisCounts(redis, prefix),
      memory: memory
        ? {
            ...memory,
            summary: describeRedisMemory(memory),
            problem: redisMemoryProblem(memory) ?? null,
            note: redisMemoryNote(memory) ?? null,
          }
        : null,
    };
  } catch (err) {
    return { ...base, ...unreachable, error: describeRedisError(firstError ?? (err as Error)) };
  } finally {
    redis.disconnect();
  }
}

async function probePostgres(
  target: { url: string; schema: string; setting: string },
  prefix: string,
  timeoutMs: number,
): Promise<ServiceProbe> {
  const base = {
    backend: 'postgres' as const,
    where: `PostgreSQL ${maskQueueUrl(target.url)} (${target.setting}), schema ${target.schema}`,
    redis: null,
    prefix,
  };
  // Imported here: on Redis, status loads neither pg nor the PostgreSQL backend.
  const { describePostgresError, postgresBackend, queuePool, queueSchemaExists } = await import(
    './postgres-backend.js'
  );
  const pool = queuePool(target, {
    name: 'glacier-collector:status',
    max: 2,
    connectTimeoutMs: timeoutMs,
    statementTimeoutMs: timeoutMs,
  });
  const silent = { warn: () => undefined, info: () => undefined } as unknown as Parameters<
    typeof postgresBackend
  >[1]['log'];
  const backend: QueueBackend = postgresBackend(target, {
    log: silent,
    pool,
    name: 'glacier-collector:status',
    connectTimeoutMs: timeoutMs,
  });
  try {
    // No `start` has run on this schema yet: nothing beats, nothing is queued (and status creates nothing).
    if (!(await queueSchemaExists(pool, target))) {
      return {
        ...base,
        reachable: true,
        error: null,
        processes: [],
        malformed: [],
        lastSeenAt: null,
        queue: { waiting: 0, active: 0, delayed: 0, failed: 0 },
        memory: null,
      };
    }
    const sighting = await readHeartbeats(backend.shared, prefix);
    const queue = backend.createQueue();
    try {
      return { ...base, reachable: true, error: null, ...sighting, queue: await counts(queue), memory: null };
    } finally {
      await queue.close().catch(() => undefined);
    }
  } catch (err) {
    return { ...base, ...unreachable, error: describePostgresError(err as Error) };
  } finally {
    await backend.close();
  }
}

/**
 * The queue's counts read as BullMQ's own `getJobCounts` reads them (its getCounts script: the wait
 * and active lists' lengths, the delayed and failed sets' sizes; a wait list's trailing `0:` marker of
 * BullMQ 4 is no job), with plain reads: status loads no BullMQ and writes nothing (the script pops a
 * marker it finds).
 */
async function redisCounts(redis: Redis, prefix: string): Promise<QueueCountsNow> {
  const key = (type: string) => `${prefix}:${QUEUE_NAME}:${type}`;
  const replies = await redis
    .multi()
    .llen(key('wait'))
    .lindex(key('wait'), -1)
    .llen(key('active'))
    .zcard(key('delayed'))
    .zcard(key('failed'))
    .exec();
  const at = (i: number): unknown => {
    const [err, value] = replies?.[i] ?? [new Error('the queue counts were not answered')];
    if (err) throw err;
    return value;
  };
  const wait = Number(at(0));
  const marker = at(1);
  return {
    waiting: typeof marker === 'string' && marker.startsWith('0:') ? Math.max(0, wait - 1) : wait,
    active: Number(at(2)),
    delayed: Number(at(3)),
    failed: Number(at(4)),
  };
}

async function counts(queue: {
  getJobCounts(...types: ('waiting' | 'active' | 'delayed' | 'failed')[]): Promise<Record<string, number>>;
}): Promise<QueueCountsNow> {
  const c = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed');
  return { waiting: c.waiting ?? 0, active: c.active ?? 0, delayed: c.delayed ?? 0, failed: c.failed ?? 0 };
}
