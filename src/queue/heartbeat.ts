/**
 * The service's heartbeat, so that `status` can tell a running collector from a stopped one: each
 * `start` process writes `heartbeat:<host>:<pid>` (role, host, pid, start and last beat) in the queue
 * backend's shared state (in Redis, `<prefix>:heartbeat:<host>:<pid>`) every BEAT_INTERVAL_MS with a
 * TTL of BEAT_TTL_MS, so a process that dies disappears by itself; `heartbeat-last` keeps the time of
 * the latest beat of any process (for "no service seen since …"), for LAST_SEEN_TTL_S. A clean stop
 * deletes its own key at once.
 */
import { hostname } from 'node:os';
import type { QueueBackend, SharedState } from './backend.js';
import { type Role, roles } from './jobs.js';

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

const BEAT_KEYS = 'heartbeat:';
const beatKey = (host: string, pid: number) => `${BEAT_KEYS}${host}:${pid}`;
const LAST_KEY = 'heartbeat-last';

export interface HeartbeatOptions {
  backend: Pick<QueueBackend, 'shared' | 'onReconnect'>;
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
  const key = beatKey(host, process.pid);
  const { shared } = o.backend;
  const startedAt = new Date(now()).toISOString();
  const interval = o.intervalMs ?? BEAT_INTERVAL_MS;
  const ttl = Math.max(interval * 3, 1_000);
  let last: Promise<unknown> = Promise.resolve();
  const beat = () => {
    const beatAt = new Date(now()).toISOString();
    const value: Beat = { role: o.role, host, pid: process.pid, startedAt, beatAt };
    // The backend away: its connection reports the outage; a missed beat is what status should see.
    last = shared
      .put([
        { key, value: JSON.stringify(value), ttlMs: ttl },
        { key: LAST_KEY, value: beatAt, ttlMs: LAST_SEEN_TTL_S * 1000 },
      ])
      .catch(() => undefined);
  };
  beat();
  const timer = setInterval(beat, interval);
  timer.unref();
  // A connection still connecting drops commands (no offline queue): beat as soon as it is up.
  const unsubscribe = o.backend.onReconnect(beat);
  return {
    async stop() {
      clearInterval(timer);
      unsubscribe();
      await last;
      await shared.del(key).catch(() => undefined);
    },
  };
}

/** A heartbeat key whose value is not a beat this version writes (another version, a hand edit): shown, never trusted. */
export interface MalformedBeat {
  key: string;
  /** The start of the value as stored (at most 80 characters), for the operator to look at. */
  excerpt: string;
}

export interface ServiceSighting {
  /** The processes beating now, oldest start first. */
  processes: Beat[];
  /** Heartbeat keys whose value could not be read as a beat. */
  malformed: MalformedBeat[];
  /** The latest beat of any process (within 30 days), ISO-8601 UTC, or null. */
  lastSeenAt: string | null;
}

/**
 * What `status` reads: the processes beating now and when one last beat. A malformed key is named as
 * the operator finds it: `<prefix>:heartbeat:…`.
 */
export async function readHeartbeats(shared: SharedState, prefix: string): Promise<ServiceSighting> {
  const processes: Beat[] = [];
  const malformed: MalformedBeat[] = [];
  for (const [key, value] of await shared.list(BEAT_KEYS)) {
    const beat = readBeat(value);
    if (beat) processes.push(beat);
    else malformed.push({ key: `${prefix}:${key}`, excerpt: value.slice(0, 80) });
  }
  processes.sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.pid - b.pid);
  return { processes, malformed, lastSeenAt: await shared.get(LAST_KEY) };
}

/** A stored beat checked field by field (`status` prints them), or undefined. */
function readBeat(value: string): Beat | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (raw === null || typeof raw !== 'object') return undefined;
  const b = raw as Record<string, unknown>;
  const isTime = (x: unknown): x is string =>
    typeof x === 'string' && x.length <= 40 && !Number.isNaN(Date.parse(x));
  if (
    !roles.includes(b.role as Role) ||
    typeof b.host !== 'string' ||
    b.host.length === 0 ||
    b.host.length > 255 ||
    !Number.isSafeInteger(b.pid) ||
    (b.pid as number) <= 0 ||
    !isTime(b.startedAt) ||
    !isTime(b.beatAt)
  ) {
    return undefined;
  }
  return {
    role: b.role as Role,
    host: b.host,
    pid: b.pid as number,
    startedAt: b.startedAt,
    beatAt: b.beatAt,
  };
}
