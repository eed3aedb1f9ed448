/**
 * The locks of the jobs a worker runs on the PostgreSQL queue, kept on the database's clock, and
 * the end of a run held until the database takes it. Two faults of BullMQ's PostgreSQL backend
 * (6.7) that the watch (postgres-watch.ts) cannot undo by pausing a worker:
 *
 * - **A clock behind the database's.** BullMQ's lock manager extends each running job's lock to
 *   `Date.now() + lockDuration` of the worker's own clock, and only when its own clock says the
 *   last extension is old: a clock stepped back 60 s extends nothing for 60 s, then extends into
 *   the past. Another worker's stalled check takes the job: a slot run twice. So BullMQ's
 *   renewal is off (`skipLockRenewal`) and the keeper here extends the locks of the jobs this
 *   worker holds to the database's `clock_timestamp()` + the lock duration, on a timer of the
 *   monotonic clock (Node's timers), every third of the lock duration and at each claim.
 * - **A database turned read-only under a run.** Its end (`moveToCompleted`, `moveToFailed`) is
 *   refused; BullMQ gives up at once and the job stays `active`, holding the job's deduplication
 *   key: every later slot of the job is skipped until the stalled check takes the job back
 *   (2 × stalledJobTimeout after the database is writable), and then the slot runs again. So the
 *   end of a run waits for the watch to see the database writable and is tried again then; the
 *   job's lock is kept meanwhile (the keeper's first extension after the fault comes before any
 *   worker resumes, see `gate` in postgres-backend.ts).
 */
import type { BackendFactory, PostgresConnectionOptions, PostgresQueueBackend } from 'bullmq';
import { createPostgresBackend, quoteSchemaName } from 'bullmq';
import type pg from 'pg';
import { isConnectionError } from './backend-faults.js';
import type { PostgresWatch } from './postgres-watch.js';

type Query = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<pg.QueryResult<R>>;

const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

/** What the database answers while it cannot take a write (a standby, `default_transaction_read_only`). */
export const READ_ONLY_FAULT = /read-only transaction|recovery is in progress/;

export interface LockKeeper {
  /** A job this worker started: its lock is kept from now on (one extension at once). */
  hold(id: string, token: string): void;
  /** The job's processor is done: its lock is let go unless its end is being recorded within the lock duration. */
  settled(id: string): void;
  /** The job's end is being recorded (kept until `release`). */
  ending(id: string): void;
  /** The job's end recorded (or given up): its lock is no longer kept. */
  release(id: string): void;
  /** Extends every lock held now (before the workers resume after a fault). */
  extendNow(): Promise<void>;
  stop(): void;
}

export function keepLocks(o: { query: Query; schema: string; queue: string; lockMs: number }): LockKeeper {
  const held = new Map<string, string>();
  const ends = new Set<string>();
  const lets = new Set<NodeJS.Timeout>();
  const sql = `UPDATE ${quoteSchemaName(o.schema)}.job AS j SET locked_until_ms = ${NOW_MS} + $4::bigint
      FROM unnest($2::text[], $3::text[]) AS t(id, token)
     WHERE j.queue = $1 AND j.id = t.id AND j.state = 'active' AND j.lock_token = t.token`;
  const extend = async (entries: [string, string][]): Promise<void> => {
    if (entries.length === 0) return;
    try {
      await o.query(sql, [o.queue, entries.map((e) => e[0]), entries.map((e) => e[1]), o.lockMs]);
    } catch {
      // Unreachable or read-only: the pool and the watch say so; the next tick tries again.
    }
  };
  const timer = setInterval(() => void extend([...held]), Math.max(250, Math.floor(o.lockMs / 3)));
  timer.unref();
  const release = (id: string) => {
    held.delete(id);
    ends.delete(id);
  };
  return {
    hold(id, token) {
      held.set(id, token);
      void extend([[id, token]]);
    },
    settled(id) {
      // BullMQ records the end at once; one it never records (it gave up, or closes) must not be
      // kept alive by the keeper: its lock then lapses into the stalled check, as BullMQ's would.
      const t = setTimeout(() => {
        lets.delete(t);
        if (!ends.has(id)) release(id);
      }, o.lockMs);
      t.unref();
      lets.add(t);
    },
    ending(id) {
      ends.add(id);
    },
    release,
    extendNow: () => extend([...held]),
    stop() {
      clearInterval(timer);
      for (const t of lets) clearTimeout(t);
      lets.clear();
      held.clear();
      ends.clear();
    },
  };
}

/**
 * The operations that end a run (BullMQ's `IQueueBackend`), each releasing the job's lock: the first
 * two take the job, the others its id.
 */
const ENDS = [
  'moveToCompleted',
  'moveToFailed',
  'moveToDelayed',
  'retryJob',
  'moveJobFromActiveToWait',
  'moveToWaitingChildren',
] as const;

/**
 * What a run's end waits out: a read-only database, or one that is away or restarting (BullMQ
 * retries only ECONNREFUSED itself: "the database system is not yet accepting connections" left
 * the job `active`).
 */
const WAITED_OUT = (err: Error) => READ_ONLY_FAULT.test(err.message ?? '') || isConnectionError(err);

/**
 * BullMQ's factory for a worker's backend, whose ends of a run wait out a read-only database (and
 * release the run's lock from the keeper once recorded). Once the worker closes, a wait gives up with
 * the database's error, as BullMQ would have at once.
 */
export function guardedBackendFactory(o: {
  watch: PostgresWatch;
  keeper: LockKeeper;
  /** Resolves when the worker starts closing. */
  closing: Promise<void>;
}): BackendFactory<PostgresQueueBackend, PostgresConnectionOptions> {
  return (name, opts, factoryOpts) => {
    const backend = createPostgresBackend(name, opts, factoryOpts);
    let closing = false;
    void o.closing.then(() => {
      closing = true;
    });
    for (const op of ENDS) {
      const original = backend[op].bind(backend) as (...args: unknown[]) => Promise<unknown>;
      const jobIdOf = (args: unknown[]) =>
        typeof args[0] === 'string' ? args[0] : String((args[0] as { id?: string }).id);
      (backend as unknown as Record<string, unknown>)[op] = async (...args: unknown[]) => {
        const id = jobIdOf(args);
        o.keeper.ending(id);
        try {
          for (;;) {
            try {
              return await original(...args);
            } catch (err) {
              if (closing || !WAITED_OUT(err as Error)) throw err;
              await Promise.race([o.watch.untilWritable(), o.closing]);
              if (closing) throw err;
            }
          }
        } finally {
          o.keeper.release(id);
        }
      };
    }
    return backend;
  };
}
