/**
 * What BullMQ's PostgreSQL backend cannot see for itself, looked at every couple of seconds by one
 * query on the collector's own pool:
 *
 * - **The clocks.** BullMQ 6's PostgreSQL backend passes `Date.now()` of each process into its SQL
 *   for every lock, the stalled-check marker (`meta.stalled-check`) and the limiter window
 *   (`rate_limit.expire_at_ms`); nothing in its public API takes another clock. A process whose clock
 *   is ahead takes the jobs others run (its stalled check sees their locks expired) and poisons the
 *   marker and the window for everyone; one behind lets its own locks lapse. So the watch measures
 *   this process's offset from the database's clock (`clock_timestamp()`, half the round trip
 *   allowed for) and, beyond `maxOffsetMs`, the workers of this process claim nothing and run no
 *   stalled check (BullMQ's `pause`) until the clocks agree again. A process whose clock agrees
 *   resets what a skewed one left in the future: a stalled-check marker, a limiter window beyond
 *   the collector's own rate limits, a lock held longer than the lock duration.
 * - **The schema.** Dropped (the demo's cleanup, `removeAll`, an operator), it is re-created
 *   (BullMQ's migrations and the collector's tables, under their advisory locks): the epoch check
 *   then notices the loss and restores the day's budget.
 * - **A read-only database** (a standby after a failover, `default_transaction_read_only`): no
 *   claim until it is writable again.
 *
 * Each fault is one line at warn when it starts and one at info when it ends; `/readyz` says it
 * (the queue check) and the metrics show it.
 */
import { quoteSchemaName } from 'bullmq';
import type pg from 'pg';
import type { Logger } from '../runtime/logger.js';
import type { QueueFault, QueueWatchReading } from './backend.js';
import { QUEUE_NAME, workerLimiter } from './jobs.js';

/** How far this process's clock may be from the database's before its workers stop claiming. */
export const MAX_CLOCK_OFFSET_MS = 5_000;
/** How often the watch looks. */
export const WATCH_INTERVAL_MS = 2_000;

export interface PostgresWatch {
  /** One look now (the timer calls it too; tests). */
  check(): Promise<void>;
  /** Why this process must not claim now, or undefined: the first look is awaited. */
  refusal(): Promise<string | undefined>;
  /** The reason of the last look, without waiting (undefined: none, or no look yet). */
  problem(): string | undefined;
  reading(): QueueWatchReading;
  /**
   * `fn(refusal, ended)` on every change of refusal (undefined: claim again); `ended`: the faults
   * over since the last change.
   */
  onChange(fn: (refusal: string | undefined, ended: ReadonlySet<QueueFault>) => void): () => void;
  /**
   * Resolves once a look finds the database writable (at once if the look made now does), or the
   * watch stops; a look that fails waits for the next one.
   */
  untilWritable(): Promise<void>;
  /** How often it looks. */
  readonly intervalMs: number;
  /** The lock duration of this process's workers, for the reset of locks held too long. */
  setLockDuration(ms: number): void;
  stop(): void;
}

export interface PostgresWatchOptions {
  /** The collector's pool, through the backend's outage bookkeeping. */
  query: <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<pg.QueryResult<R>>;
  schema: string;
  log: Logger;
  /** Re-creates the schema (BullMQ's migrations and the collector's tables). */
  recreate: () => Promise<void>;
  /** Local time: `Date.now`, what BullMQ reads (tests). */
  now?: () => number;
  maxOffsetMs?: number;
  intervalMs?: number;
}

const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

export function watchPostgresQueue(o: PostgresWatchOptions): PostgresWatch {
  const now = o.now ?? Date.now;
  const bound = o.maxOffsetMs ?? MAX_CLOCK_OFFSET_MS;
  const schema = quoteSchemaName(o.schema);
  const faults = new Map<QueueFault, string>();
  const listeners = new Set<(refusal: string | undefined, ended: ReadonlySet<QueueFault>) => void>();
  /** Waiting for a look that finds the database writable. */
  let writableWaiters: (() => void)[] = [];
  /** The faults over since the last change of refusal. */
  const ended = new Set<QueueFault>();
  let offsetMs: number | undefined;
  let lockMs = 30_000;
  let refused: string | undefined;
  let running: Promise<void> | undefined;
  let first: Promise<void> | undefined;
  let stopped = false;

  const set = (fault: QueueFault, why: string | undefined, endedLine: string) => {
    const was = faults.get(fault);
    if (why === undefined) {
      if (was === undefined) return;
      faults.delete(fault);
      ended.add(fault);
      o.log.info(endedLine);
      return;
    }
    faults.set(fault, why);
    if (was === undefined) o.log.warn({ fault }, why);
  };

  const publish = () => {
    const now = [...faults.values()][0];
    if (now === refused) return;
    refused = now;
    const over = new Set(ended);
    ended.clear();
    for (const fn of listeners) fn(refused, over);
  };
  const wakeWritable = () => {
    const waiters = writableWaiters;
    writableWaiters = [];
    for (const fn of waiters) fn();
  };

  async function look(): Promise<void> {
    const sent = now();
    const { rows } = await o.query<{ db_ms: string; job: string | null; read_only: boolean }>(
      `SELECT ${NOW_MS} AS db_ms, to_regclass($1) AS job,
              current_setting('transaction_read_only') = 'on' OR pg_is_in_recovery() AS read_only`,
      [`${schema}.job`],
    );
    const received = now();
    const row = rows[0]!;
    // The database read its clock somewhere in the round trip: the offset is known to ± half of it.
    offsetMs = Number(row.db_ms) - (sent + received) / 2;
    const slack = (received - sent) / 2;
    const skewed = Math.abs(offsetMs) - slack > bound;
    const seconds = (Math.abs(offsetMs) / 1000).toFixed(1);
    set(
      'clock_skew',
      skewed
        ? `this process's clock is ${seconds} s ${offsetMs < 0 ? 'ahead of' : 'behind'} the queue database's (at most ${bound / 1000} s allowed): its workers claim no job until the clocks agree (BullMQ's PostgreSQL backend keeps locks and markers in each process's clock); fix the host's time sync (NTP)`
        : undefined,
      `this process's clock agrees with the queue database's again (${seconds} s apart): its workers claim jobs again`,
    );
    if (row.job === null) {
      set(
        'schema_missing',
        `the queue's schema ${o.schema} is gone (dropped or restored without it): re-creating it; no job is claimed until then`,
        `the queue's schema ${o.schema} is back: jobs are claimed again`,
      );
      publish();
      await o.recreate();
      return;
    }
    set('schema_missing', undefined, `the queue's schema ${o.schema} is back: jobs are claimed again`);
    set(
      'read_only',
      row.read_only
        ? `the queue's database is read-only (a standby, or default_transaction_read_only): no job is claimed until it is writable`
        : undefined,
      `the queue's database is writable again: jobs are claimed again`,
    );
    publish();
    if (!row.read_only) wakeWritable();
    if (!skewed && !row.read_only) await resetPoisoned();
  }

  /**
   * What a process whose clock ran ahead left in the future, put back on the database's clock. A
   * healthy process may be `bound` ahead, so only beyond twice that; a limiter window may last as
   * long as the collector's own rate limit (`rate-limit` in the shared state) or the workers' window.
   */
  async function resetPoisoned(): Promise<void> {
    const tolerance = 2 * bound;
    const { rows } = await o.query<{ what: string; n: string }>(
      `WITH now AS (SELECT ${NOW_MS} AS ms),
       marker AS (
         DELETE FROM ${schema}.meta WHERE queue = $1 AND field = 'stalled-check'
           AND value ~ '^[0-9]+$' AND value::bigint > (SELECT ms FROM now) + $2::bigint
         RETURNING 1),
       limiter AS (
         DELETE FROM ${schema}.rate_limit WHERE queue = $1
           AND expire_at_ms > greatest(
             (SELECT ms FROM now) + $4::bigint,
             coalesce((SELECT expires_at FROM ${schema}.shared_state WHERE key = 'rate-limit'), 0))
             + $2::bigint
         RETURNING 1),
       locks AS (
         UPDATE ${schema}.job SET locked_until_ms = (SELECT ms FROM now) + $3::bigint
          WHERE queue = $1 AND state = 'active'
            AND locked_until_ms > (SELECT ms FROM now) + $3::bigint + $2::bigint
         RETURNING 1)
       SELECT 'the stalled-check marker' AS what, count(*) AS n FROM marker
       UNION ALL SELECT 'the limiter window', count(*) FROM limiter
       UNION ALL SELECT 'locks of running jobs', count(*) FROM locks`,
      [QUEUE_NAME, tolerance, lockMs, workerLimiter.duration],
    );
    const reset = rows.filter((r) => Number(r.n) > 0);
    if (reset.length > 0) {
      o.log.warn(
        { reset: Object.fromEntries(reset.map((r) => [r.what, Number(r.n)])) },
        `reset what a process with a clock ahead of the database's left in the future: ${reset.map((r) => r.what).join(', ')}`,
      );
    }
  }

  const check = (): Promise<void> => {
    running ??= look()
      .catch(() => {
        // Unreachable or failing: the pool's own outage line says so; the faults seen stay as they were.
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  first = check();
  const intervalMs = o.intervalMs ?? WATCH_INTERVAL_MS;
  const timer = setInterval(() => {
    if (!stopped) void check();
  }, intervalMs);
  timer.unref();

  return {
    check,
    intervalMs,
    async refusal() {
      await first;
      return refused;
    },
    problem: () => refused,
    reading: () => ({ offsetMs, faults: new Set(faults.keys()) }),
    onChange(fn) {
      listeners.add(fn);
      return () => void listeners.delete(fn);
    },
    async untilWritable() {
      if (stopped) return;
      const writable = new Promise<void>((resolve) => writableWaiters.push(resolve));
      await check();
      await writable;
    },
    setLockDuration(ms) {
      lockMs = ms;
    },
    stop() {
      stopped = true;
      clearInterval(timer);
      listeners.clear();
      wakeWritable();
    },
  };
}
