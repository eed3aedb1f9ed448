import { Redis } from 'ioredis';
import { untrustedCertificateHint } from '../config/client-tls.js';
import { printableRedis, type RedisSettings, redisSetting } from '../config/redis.js';
import { maskUrlPassword } from '../config/url-password.js';
import type { Logger } from '../runtime/logger.js';
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

/** "connect ECONNREFUSED 127.0.0.1:6379" rather than an AggregateError with a stack. */
export function describeRedisError(err: Error): string {
  if (err instanceof AggregateError && err.errors.length > 0)
    return describeRedisError(err.errors[0] as Error);
  return err.message || err.name;
}

/**
 * BullMQ needs `maxmemory-policy noeviction`: under memory pressure any other policy silently drops
 * job keys. Returns a warning to log, or undefined when the policy is right or cannot be read
 * (managed Redis services often disable CONFIG).
 */
export async function checkEvictionPolicy(redis: Redis): Promise<string | undefined> {
  try {
    const reply = (await redis.config('GET', 'maxmemory-policy')) as string[];
    const policy = reply[1];
    if (policy && policy !== 'noeviction') {
      return `Redis maxmemory-policy is "${policy}": BullMQ needs "noeviction" (set it in redis.conf or with CONFIG SET), or jobs can be lost under memory pressure`;
    }
  } catch {
    // CONFIG disabled: nothing to check.
  }
  return undefined;
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
