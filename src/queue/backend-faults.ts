/**
 * What the queue's backend answers when it answers with an error rather than going away: Redis at
 * `maxmemory` under `noeviction` (`OOM command not allowed…`), a server that answers `-ERR` to
 * BullMQ's scripts, a TLS handshake that fails at every reconnect, a sentinel whose answer is not an
 * address. Each is a *cause* with a fixed name (a metric label, a log line's `cause`), reported as
 * the issue asks of a backend fault: one line at warn when it starts, at most one a minute while it
 * lasts (with how many were not logged), one at info when it ends, and a counter per cause.
 *
 * The text quoted is the backend's, so it is bounded like upstream text (src/escape/excerpt.ts): a
 * sentinel naming a 1 MiB host logs 200 characters of it.
 */
import { excerpt } from '../escape/excerpt.js';
import type { Logger } from '../runtime/logger.js';

/**
 * - `oom`: Redis refuses writes (used memory above `maxmemory`, policy `noeviction`);
 * - `readonly`: a replica, or a server that cannot persist (`MISCONF`), refuses writes;
 * - `busy`: a script or the server's loading blocks every command (`BUSY`, `LOADING`);
 * - `tls`: the TLS handshake fails (certificate not trusted, wrong name);
 * - `sentinel`: a sentinel does not answer in time, or answers with no valid address;
 * - `other`: any other error reply (`-ERR …`, `NOSCRIPT`, `WRONGTYPE`).
 */
export const BACKEND_FAULT_CAUSES = ['oom', 'readonly', 'busy', 'tls', 'sentinel', 'other'] as const;
export type BackendFaultCause = (typeof BACKEND_FAULT_CAUSES)[number];

/** One line a minute per cause at most, while it lasts. */
export const FAULT_LOG_INTERVAL_MS = 60_000;

const TLS_CODES =
  /^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|ERR_TLS_CERT_ALTNAME_INVALID|ERR_SSL_.*|EPROTO)$/;

/**
 * Connection errors: logged once per outage by the connection itself (src/queue/redis.ts; the
 * PostgreSQL pool's: a connection terminated, the server shutting down, a pool that cannot connect),
 * and waited out by BullMQ. Everything else the backend answers is a fault of a cause below.
 */
const CONNECTION_ERROR =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EPIPE|EHOSTUNREACH|Connection is closed|Connection terminated|terminating connection|the database system is (shutting down|starting up|not yet accepting connections)|timeout exceeded when trying to connect|enableOfflineQueue|max retries per request|All sentinels are unreachable|Stream isn't writeable/;

export function isConnectionError(err: Error): boolean {
  return CONNECTION_ERROR.test(err.message ?? '');
}

/** The cause of a backend's error. */
export function backendFaultCause(err: Error): BackendFaultCause {
  const code = String((err as { code?: unknown }).code ?? '');
  const message = err.message ?? '';
  if (
    TLS_CODES.test(code) ||
    /certificate|Hostname\/IP does not match|SSL routines|wrong version number/i.test(message)
  )
    return 'tls';
  if (/\bsentinel\b/i.test(message)) return 'sentinel';
  if (/\bOOM\b/.test(message)) return 'oom';
  if (/\b(READONLY|MISCONF)\b/.test(message)) return 'readonly';
  if (/\b(BUSY|LOADING)\b/.test(message)) return 'busy';
  return 'other';
}

/** What the operator can do about each cause, in the line that reports it. */
const HINTS: Record<BackendFaultCause, string> = {
  oom: 'free memory in Redis or raise its maxmemory (the policy must stay noeviction)',
  readonly: 'the server refuses writes: point the collector at the master, or fix its persistence (MISCONF)',
  busy: 'the server is busy (a long script, or loading its dataset)',
  tls: 'check REDIS_TLS_CA_FILE and the server certificate’s name',
  sentinel: 'check REDIS_SENTINELS and what each sentinel answers for REDIS_SENTINEL_MASTER',
  other: 'the backend answered with an error',
};

export interface FaultLog {
  /** A fault of `cause` seen now (logged at once, then at most once a minute while it lasts). */
  seen(cause: BackendFaultCause, err: Error | string): void;
  /** The fault of `cause` is over (a line at info, when it was logged); no-op otherwise. */
  ended(cause: BackendFaultCause): void;
  /** The causes in force, each with its last message (bounded) and since when. */
  current(): { cause: BackendFaultCause; message: string; sinceMs: number }[];
}

export interface FaultLogOptions {
  log: Logger;
  /** What the faults are of, in each line: `Redis redis://…`, `the worker`. */
  subject: string;
  /** Counted per cause on every sighting (the metric). */
  onFault?: (cause: BackendFaultCause) => void;
  now?: () => number;
  /** @defaultValue FAULT_LOG_INTERVAL_MS */
  intervalMs?: number;
}

export function createFaultLog(o: FaultLogOptions): FaultLog {
  const now = o.now ?? Date.now;
  const interval = o.intervalMs ?? FAULT_LOG_INTERVAL_MS;
  const open = new Map<
    BackendFaultCause,
    { sinceMs: number; loggedAt: number; unlogged: number; total: number; message: string }
  >();
  return {
    seen(cause, err) {
      o.onFault?.(cause);
      const message = excerpt(typeof err === 'string' ? err : err.message || err.name);
      const t = now();
      const fault = open.get(cause);
      if (!fault) {
        open.set(cause, { sinceMs: t, loggedAt: t, unlogged: 0, total: 1, message });
        o.log.warn({ cause, err: message }, `${o.subject}: ${message}: ${HINTS[cause]}`);
        return;
      }
      fault.total++;
      fault.message = message;
      if (t - fault.loggedAt < interval) {
        fault.unlogged++;
        return;
      }
      o.log.warn(
        { cause, err: message, since: new Date(fault.sinceMs).toISOString(), repeated: fault.unlogged + 1 },
        `${o.subject}: still ${message} (${fault.unlogged + 1} times since the last line): ${HINTS[cause]}`,
      );
      fault.loggedAt = t;
      fault.unlogged = 0;
    },
    ended(cause) {
      const fault = open.get(cause);
      if (!fault) return;
      open.delete(cause);
      o.log.info(
        { cause, downForMs: now() - fault.sinceMs, times: fault.total },
        `${o.subject}: ${cause} fault over`,
      );
    },
    current: () => [...open].map(([cause, f]) => ({ cause, message: f.message, sinceMs: f.sinceMs })),
  };
}

/** The pause after `times` consecutive faults: exponential from 1 s, capped at `capMs`, ±25 % jitter. */
export function faultBackoffMs(times: number, capMs = 30_000, random: () => number = Math.random): number {
  const base = Math.min(capMs, 1_000 * 2 ** Math.max(0, Math.min(times - 1, 10)));
  return Math.round(base * (0.75 + random() * 0.5));
}
