import { Redis } from 'ioredis';
import { untrustedCertificateHint } from '../config/client-tls.js';
import { printableRedis, type RedisSettings, redisSetting } from '../config/redis.js';
import { maskUrlPassword } from '../config/url-password.js';
import { excerpt } from '../escape/excerpt.js';
import type { Logger } from '../runtime/logger.js';
import { createFaultLog } from './backend-faults.js';
import { redisOptions, redisSettingsOf } from './redis-options.js';

export { reconnectDelayMs } from './redis-options.js';

/**
 * The service's Redis connections, `worker` and `producer`, with the options of redis-options.ts
 * (BullMQ's production guidance, Sentinel, TLS). Redis itself must run with
 * `maxmemory-policy noeviction` (checked at start: BullMQ's keys must never be evicted).
 *
 * An outage is logged once, with where the service looked and how to get a Redis, and its end once:
 * the reconnect attempts in between are silent (no stack traces, no flood).
 */
export interface RedisConnections {
  producer: Redis;
  worker: Redis;
  /** REDIS_URL with its password masked, or the sentinels and master name. */
  readonly where: string;
  /** True while the producer connection is ready. */
  isUp(): boolean;
  /** PING within `timeoutMs`; the readiness check. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export function maskRedisUrl(url: string): string {
  return maskUrlPassword(url) ?? '(unparseable REDIS_URL)';
}

/** `target`: REDIS_URL, or the settings of src/config/redis.ts (Sentinel, passwords, TLS). */
export function connectRedis(
  target: string | RedisSettings,
  log: Logger,
  name = 'glacier-collector',
): RedisConnections {
  const settings = redisSettingsOf(target);
  const where = printableRedis(settings);
  const producer = new Redis(redisOptions(settings, 'producer', name));
  const worker = new Redis(redisOptions(settings, 'worker', name));

  let up = false;
  let downSince: number | undefined;
  let lastError = '';
  const onError = (err: Error) => {
    const tlsHint = untrustedCertificateHint(err, 'REDIS_TLS_CA_FILE', settings.tls?.caFile);
    lastError = tlsHint ? `${describeRedisError(err)}: ${tlsHint}` : describeRedisError(err);
    if (downSince !== undefined) return;
    downSince = Date.now();
    up = false;
    log.warn(
      `Redis is not reachable at ${where} (${redisSetting(settings)}): ${lastError}. Start one with \`redis-server\`, ` +
        'or `docker compose up -d redis`; retrying in the background (up to every 10 s), /readyz says not ready until then.',
    );
  };
  const onReady = () => {
    up = true;
    if (downSince !== undefined) {
      log.info({ downForMs: Date.now() - downSince }, `Redis is back at ${where}`);
      downSince = undefined;
    }
  };
  for (const conn of [producer, worker]) conn.on('error', onError);
  // A sentinel that did not answer in time, or answered no valid address, while another may have:
  // ioredis asks the next one and says so in this event (no error, when the next one answered).
  // Two causes, each its own line a minute: a first ask that timed out (its timer runs from the
  // connection's creation, through the start-up's own work on a loaded host) hid the lie that
  // followed for a minute.
  const subject = `Redis Sentinel (${redisSetting(settings)})`;
  const sentinelLies = createFaultLog({ log, subject });
  const sentinelSilences = createFaultLog({ log, subject });
  for (const conn of [producer, worker]) {
    conn.on('sentinelError', (err: Error) => {
      const text = describeRedisError(err);
      const faults = /invalid master address/.test(text) ? sentinelLies : sentinelSilences;
      faults.seen('sentinel', text);
    });
  }
  producer.on('ready', onReady);
  producer.on('close', () => {
    up = false;
  });

  let closed: Promise<void> | undefined;
  return {
    producer,
    worker,
    where,
    isUp: () => up,
    async ping(timeoutMs = 1_000) {
      let timer: NodeJS.Timeout | undefined;
      let onReady: (() => void) | undefined;
      try {
        await new Promise<void>((resolve, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
          // A connection still (re)connecting has no offline queue: wait for it to be ready first.
          const send = () => producer.ping().then(() => resolve(), reject);
          if (producer.status === 'ready') send();
          else {
            onReady = send;
            producer.once('ready', onReady);
          }
        });
      } catch (err) {
        throw new Error(`Redis at ${where}: ${describeRedisError(err as Error)}`, { cause: err });
      } finally {
        clearTimeout(timer);
        if (onReady) producer.off('ready', onReady);
      }
    },
    close() {
      closed ??= (async () => {
        for (const conn of [producer, worker]) {
          conn.removeAllListeners('error');
          conn.removeAllListeners('sentinelError');
          conn.on('error', () => undefined);
          // quit() waits for pending replies; disconnect() when the server is gone anyway.
          if (conn.status === 'ready') await conn.quit().catch(() => conn.disconnect());
          else conn.disconnect();
        }
      })();
      return closed;
    },
  };
}

/**
 * "connect ECONNREFUSED 127.0.0.1:6379" rather than an AggregateError with a stack. Bounded like
 * upstream text (a sentinel or a server chooses what an error says: a 1 MiB host name was logged whole).
 */
export function describeRedisError(err: Error): string {
  if (err instanceof AggregateError && err.errors.length > 0)
    return describeRedisError(err.errors[0] as Error);
  return excerpt(err.message || err.name, BACKEND_TEXT_LENGTH);
}

/** Characters of a backend's error text quoted at most. */
export const BACKEND_TEXT_LENGTH = 400;

/** What INFO memory says of Redis's memory (INFO works where managed services disable CONFIG). */
export interface RedisMemory {
  usedBytes: number;
  /** 0: no limit (Redis grows until the kernel or the container stops it). */
  maxmemoryBytes: number;
  policy: string;
}

export async function readRedisMemory(redis: Redis): Promise<RedisMemory | undefined> {
  const info = await redis.info('memory');
  const field = (name: string) => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
  const used = Number(field('used_memory'));
  const max = Number(field('maxmemory'));
  const policy = field('maxmemory_policy');
  if (!Number.isFinite(used) || !Number.isFinite(max) || !policy) return undefined;
  return { usedBytes: used, maxmemoryBytes: max, policy: excerpt(policy, 40) };
}

/** Below this share of `maxmemory` left, `start` and `status` warn: the next burst of jobs may not fit. */
export const LOW_HEADROOM = 0.1;

/** "12.0 MiB used of 64.0 MiB (81 % headroom), maxmemory-policy noeviction", or with no limit. */
export function describeRedisMemory(m: RedisMemory): string {
  const limit =
    m.maxmemoryBytes > 0
      ? `of ${mib(m.maxmemoryBytes)} maxmemory (${Math.max(0, Math.floor((1 - m.usedBytes / m.maxmemoryBytes) * 100))} % headroom)`
      : 'with no maxmemory';
  return `${mib(m.usedBytes)} used ${limit}, maxmemory-policy ${m.policy}`;
}

/**
 * What is wrong with Redis's memory settings for BullMQ, or undefined:
 * - a policy other than `noeviction` silently drops job keys under memory pressure;
 * - less than LOW_HEADROOM of `maxmemory` left: Redis refuses writes once full (the worker then
 *   backs off and `/readyz` says so).
 */
export function redisMemoryProblem(m: RedisMemory): string | undefined {
  if (m.policy !== 'noeviction') {
    return `BullMQ needs maxmemory-policy "noeviction" (set it in redis.conf or with CONFIG SET), or jobs can be lost under memory pressure`;
  }
  if (m.maxmemoryBytes > 0 && m.usedBytes >= m.maxmemoryBytes * (1 - LOW_HEADROOM)) {
    return `less than ${LOW_HEADROOM * 100} % left: Redis refuses writes once full (the worker then waits); free memory or raise maxmemory`;
  }
  return undefined;
}

/**
 * Without `maxmemory`, Redis grows until the kernel (or its container's limit) kills it, losing what
 * it held since its last save; with a limit and `noeviction` it refuses writes instead. Advice, not
 * a fault (many a development Redis runs without).
 */
export function redisMemoryNote(m: RedisMemory): string | undefined {
  return m.maxmemoryBytes === 0
    ? 'no maxmemory: set one below the memory Redis may use (its container’s limit), so that a full Redis refuses writes instead of being killed'
    : undefined;
}

/**
 * Checked at start (and after each reconnection, once): a warning to log, or undefined when the
 * settings are right or cannot be read.
 */
export async function checkRedisMemory(redis: Redis): Promise<string | undefined> {
  try {
    const m = await readRedisMemory(redis);
    const problem = m && redisMemoryProblem(m);
    return problem && `Redis memory: ${describeRedisMemory(m)}: ${problem}`;
  } catch {
    // INFO refused (renamed by a managed service): nothing to check.
    return undefined;
  }
}

/**
 * The readiness check that the worker can claim: BullMQ claims with a script that writes, and Redis
 * refuses writes when full (`OOM command not allowed…`) while it still answers PING. A key of the
 * process's own, under the prefix, written with a short time to live.
 */
export async function checkRedisWrites(redis: Redis, key: string, timeoutMs = 1_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      redis.set(key, '1', 'PX', 10_000),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } catch (err) {
    throw new Error(
      `Redis refuses the writes that claiming a job takes: ${describeRedisError(err as Error)}`,
      {
        cause: err,
      },
    );
  } finally {
    clearTimeout(timer);
  }
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** How long a close waits for a BullMQ queue or worker still setting up its connections. */
const SET_UP_WAIT_MS = 2_000;

/**
 * Waits (at most `limitMs`) until a BullMQ queue or worker has set up its connections. Closing one
 * before that makes BullMQ emit "Connection is closed" from a connection it has already stripped of
 * its listeners, an unhandled error that ends the process (taskforcesh/bullmq#2437: "closing before
 * the connection was established"): a stop signal right after start-up exited 1. With Redis away,
 * the wait ends at the limit and the close goes on.
 */
export async function untilSetUp(
  target: { waitUntilReady(): Promise<unknown> },
  limitMs = SET_UP_WAIT_MS,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, limitMs);
  });
  try {
    await Promise.race([
      target.waitUntilReady().then(
        () => undefined,
        () => undefined,
      ),
      limit,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
