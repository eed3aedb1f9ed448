/**
 * The service's heartbeat, so that `status` can tell a running collector from a stopped one: each
 * `start` process writes `<prefix>:heartbeat:<host>:<pid>` (role, host, pid, start and last beat)
 * every BEAT_INTERVAL_MS with a TTL of BEAT_TTL_MS, so a process that dies disappears by itself;
 * `<prefix>:heartbeat-last` keeps the time of the latest beat of any process (for "no service seen
 * since …"), for LAST_SEEN_TTL_S. A clean stop deletes its own key at once.
 */
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { Role } from './jobs.js';

export const BEAT_INTERVAL_MS = 10_000;
/** Three beats missed: the process is gone (or cannot reach Redis). */
export const BEAT_TTL_MS = 3 * BEAT_INTERVAL_MS;
const LAST_SEEN_TTL_S = 30 * 86_400;

export interface Beat {
  role: Role;
  host: string;
  pid: number;
  /** ISO-8601 UTC. */
  startedAt: string;
  beatAt: string;
}

const beatKey = (prefix: string, host: string, pid: number) => `${prefix}:heartbeat:${host}:${pid}`;
const lastKey = (prefix: string) => `${prefix}:heartbeat-last`;

export interface HeartbeatOptions {
  redis: Redis;
  /** service.queuePrefix */
  prefix: string;
  role: Role;
  now?: () => number;
  /** @defaultValue BEAT_INTERVAL_MS */
  intervalMs?: number;
}

export interface Heartbeat {
  /** Stops beating and removes this process's key. */
  stop(): Promise<void>;
}

export function startHeartbeat(o: HeartbeatOptions): Heartbeat {
  const now = o.now ?? Date.now;
  const host = hostname();
  const key = beatKey(o.prefix, host, process.pid);
  const startedAt = new Date(now()).toISOString();
  const interval = o.intervalMs ?? BEAT_INTERVAL_MS;
  const ttl = Math.max(interval * 3, 1_000);
  let last: Promise<unknown> = Promise.resolve();
  const beat = () => {
    const beatAt = new Date(now()).toISOString();
    const value: Beat = { role: o.role, host, pid: process.pid, startedAt, beatAt };
    // Redis away: the connection reports the outage; a missed beat is what status should see.
    last = o.redis
      .multi()
      .set(key, JSON.stringify(value), 'PX', ttl)
      .set(lastKey(o.prefix), beatAt, 'EX', LAST_SEEN_TTL_S)
      .exec()
      .catch(() => undefined);
  };
  beat();
  const timer = setInterval(beat, interval);
  timer.unref();
  // A connection still connecting drops commands (no offline queue): beat as soon as it is up.
  o.redis.on('ready', beat);
  return {
    async stop() {
      clearInterval(timer);
      o.redis.off('ready', beat);
      await last;
      await o.redis.del(key).catch(() => undefined);
    },
  };
}

export interface ServiceSighting {
  /** The processes beating now, oldest start first. */
  processes: Beat[];
  /** The latest beat of any process (within 30 days), ISO-8601 UTC, or null. */
  lastSeenAt: string | null;
}

/** What `status` reads: the processes beating now and when one last beat. */
export async function readHeartbeats(redis: Redis, prefix: string): Promise<ServiceSighting> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}:heartbeat:*`, 'COUNT', 100);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  const values = keys.length > 0 ? await redis.mget(...keys) : [];
  const processes = values
    .flatMap((v) => {
      try {
        return v ? [JSON.parse(v) as Beat] : [];
      } catch {
        return [];
      }
    })
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.pid - b.pid);
  return { processes, lastSeenAt: await redis.get(lastKey(prefix)) };
}
