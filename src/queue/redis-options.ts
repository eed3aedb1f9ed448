/**
 * ioredis's options for the service's connections, from the configured Redis (one URL, or Sentinel),
 * in one pure function: every connection the service, `status` and a test open is built here, so a
 * failover or TLS setting cannot be right on one and missing on another.
 *
 * Per BullMQ's production guidance (https://docs.bullmq.io/guide/going-to-production) and ioredis's
 * Sentinel and TLS sections:
 * - `worker`: `maxRetriesPerRequest: null`, so a blocking command waits out an outage or a failover
 *   instead of failing the worker (workers that stop silently after a failover: taskforcesh/bullmq#4378);
 * - `producer` (queue adds, the budget, readiness): no offline queue, so a call fails at once while
 *   Redis is away instead of piling up in memory;
 * - both reconnect for ever with capped, jittered backoff, and reconnect (resending the command) on
 *   `READONLY` (the master they knew was demoted to a replica: a failover, or a managed service's
 *   maintenance) and `LOADING` (a restarted server still reading its dataset): neither command ran,
 *   so sending it again is safe;
 * - with Sentinel, the master is asked of the sentinels at each (re)connection: a master that dies
 *   drops the connection, one demoted alive answers READONLY; either way the next connection goes to
 *   the promoted replica. (ioredis's `failoverDetector` is not used: `quit()` leaves its sentinel
 *   subscriptions open, and BullMQ's duplicated connections would keep a stopped process alive.)
 */
import { isIP } from 'node:net';
import type { RedisOptions } from 'ioredis';
import type { ClientTls } from '../config/client-tls.js';
import type { RedisSettings } from '../config/redis.js';
import { excerpt } from '../escape/excerpt.js';

export type RedisUse = 'worker' | 'producer';

const MAX_RECONNECT_DELAY_MS = 10_000;

/** Reconnect delay after `times` failed attempts: exponential from 200 ms, capped at 10 s, ±25 % jitter. */
export function reconnectDelayMs(times: number, random: () => number = Math.random): number {
  const capped = Math.min(MAX_RECONNECT_DELAY_MS, 200 * 2 ** Math.min(times, 10));
  return Math.round(capped * (0.75 + random() * 0.5));
}

/** ioredis's answer to a reply error: 2 = reconnect and send the command again; false = pass it on. */
export function reconnectOnError(err: Error): 2 | false {
  return /^(READONLY|LOADING)\b/.test(err.message) ? 2 : false;
}

/**
 * The longest a sentinel may take to answer `get-master-addr-by-name` before the next one is asked.
 * ioredis's connect timeout covers the TCP connection only (a stopped process's kernel still accepts
 * it), and it gives sentinel commands no timeout at all (`sentinelCommandTimeout` unset): a sentinel that
 * accepts connections but does not answer (SIGSTOPped, its host overloaded) held every connection
 * for good, and the next sentinel was never asked.
 */
export const SENTINEL_TIMEOUT_MS = 2_000;
/**
 * A TCP (and TLS) connection to a server or a sentinel (ioredis uses one timeout for both): one that
 * hangs is dropped, and the next sentinel asked or the server retried with back-off.
 */
export const CONNECT_TIMEOUT_MS = 5_000;

/** A host name is at most 253 characters (RFC 1035); a sentinel's answer is held to it. */
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?$/;

/**
 * A sentinel's answer to `get-master-addr-by-name`, as ioredis hands it to `natMap` ("host:port"),
 * checked before it is connected to: a host name or an IP address of sane length, a port in
 * 1..65535. A sentinel that answered port 99999 sent ioredis into a loop of failed connections with
 * no pause (a core, 35 MB/s of memory, SIGTERM unheard); one that named a 1 MiB host had it logged
 * whole. A bad answer throws, which ioredis reports as that sentinel's failure ("failed to connect
 * to sentinel … because …") and asks the next, with its back-off once none answered well.
 */
export function checkSentinelAnswer(key: string): { host: string; port: number } {
  const colon = key.lastIndexOf(':');
  const host = colon < 0 ? key : key.slice(0, colon);
  const portText = colon < 0 ? '' : key.slice(colon + 1);
  const port = Number(portText);
  const problems: string[] = [];
  if (!(isIP(host) || HOST_NAME.test(host))) {
    problems.push(
      `host "${excerpt(host, 80)}"${host.length > 80 ? ` (${host.length} characters)` : ''} is not a host name or IP address`,
    );
  }
  if (!/^\d{1,5}$/.test(portText) || port < 1 || port > 65_535) {
    problems.push(`port "${excerpt(portText, 20)}" is not in 1..65535`);
  }
  if (problems.length > 0) {
    throw new Error(`the sentinel named an invalid master address: ${problems.join('; ')}`);
  }
  return { host, port };
}

/** `target` as settings: a URL alone is read as REDIS_URL. */
export function redisSettingsOf(target: RedisSettings | string): RedisSettings {
  return typeof target === 'string' ? { kind: 'url', url: target } : target;
}

/** The options of one connection to `target` (a URL alone is read as REDIS_URL). */
export function redisOptions(
  target: RedisSettings | string,
  use: RedisUse,
  connectionName = 'glacier-collector',
): RedisOptions {
  const settings = redisSettingsOf(target);
  const common: RedisOptions = {
    connectionName,
    retryStrategy: (times) => reconnectDelayMs(times),
    reconnectOnError,
    connectTimeout: CONNECT_TIMEOUT_MS,
    // Connect now: the service logs an outage at once rather than at its first command.
    lazyConnect: false,
    ...(use === 'worker'
      ? { maxRetriesPerRequest: null }
      : { enableOfflineQueue: false, maxRetriesPerRequest: 1 }),
  };
  if (settings.kind === 'sentinel') {
    const tls = settings.tls && tlsOptions(settings.tls);
    return {
      ...common,
      sentinels: settings.sentinels.map((n) => ({ host: n.host, port: n.port })),
      name: settings.master,
      role: 'master',
      sentinelRetryStrategy: (times) => reconnectDelayMs(times),
      // Each sentinel is bounded (its connection by connectTimeout, its answer by this), so a frozen
      // one is skipped for the next.
      sentinelCommandTimeout: SENTINEL_TIMEOUT_MS,
      // Every answer is checked before use (a function natMap sees each master address ioredis resolves).
      natMap: checkSentinelAnswer,
      // The sentinels asked are the ones configured: peers a sentinel reports are not added (their
      // addresses would be unchecked, and a lying sentinel could name any).
      updateSentinels: false,
      ...(settings.sentinelPassword !== undefined && { sentinelPassword: settings.sentinelPassword }),
      ...(settings.password !== undefined && { password: settings.password }),
      // TLS to the sentinels and to the master they name, with the same CA and client certificate.
      ...(tls && { tls, sentinelTLS: tls, enableTLSForSentinelMode: true }),
    };
  }
  const url = new URL(settings.url);
  const db = url.pathname.replace(/^\//, '');
  const password = url.password ? decodeURIComponent(url.password) : settings.password;
  return {
    ...common,
    // WHATWG keeps an IPv6 host in brackets; a socket wants it bare.
    host: url.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1',
    port: url.port ? Number(url.port) : 6379,
    ...(db && { db: Number(db) }),
    ...(url.username && { username: decodeURIComponent(url.username) }),
    ...(password !== undefined && { password }),
    ...(url.protocol === 'rediss:' && { tls: settings.tls ? tlsOptions(settings.tls) : {} }),
  };
}

function tlsOptions(tls: ClientTls): NonNullable<RedisOptions['tls']> {
  return {
    ...(tls.ca && { ca: tls.ca }),
    ...(tls.cert && { cert: tls.cert }),
    ...(tls.key && { key: tls.key }),
  };
}
