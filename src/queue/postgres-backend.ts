/**
 * The queue on PostgreSQL, no Redis needed: BullMQ's PostgreSQL backend
 * (https://docs.bullmq.io/guide/postgresql: its tables in a schema of its own, LISTEN/NOTIFY to wake
 * the workers), RateLimiterPostgres for the budget, and a table for the shared state, all in the
 * schema `<queuePrefix>_queue` (src/config/queue.ts), so the queue can live in the store's database.
 *
 * BullMQ's queue and each worker have pools of their own, built by BullMQ from QUEUE_URL with the
 * schema (a worker's LISTEN connection beside its pool); the shared state and the budget use the
 * collector's own small pool, its `search_path` pinned to the schema. `start` migrates the schema
 * (BullMQ's `runMigrations` and the collector's two tables, each under an advisory lock, so several
 * processes starting at once are fine).
 */

import type { ConnectionOptions } from 'node:tls';
import {
  createPostgresBackend,
  type JobProgress,
  type PostgresConnectionOptions,
  type PostgresQueueBackend,
  Queue,
  quoteSchemaName,
  runMigrations,
  Worker,
} from 'bullmq';
import pg from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { withoutSslParameters } from '../config/database.js';
import { describeSchemaMapping, maskQueueUrl } from '../config/queue.js';
import type { Logger } from '../runtime/logger.js';
import type {
  CollectorQueue,
  CollectorWorkerHandle,
  QueueBackend,
  QueueFault,
  SharedState,
} from './backend.js';
import { postgresJobOptions, QUEUE_NAME, type QueuedJobData } from './jobs.js';
import { guardedBackendFactory, keepLocks, type LockKeeper } from './postgres-locks.js';
import { type PostgresWatch, watchPostgresQueue } from './postgres-watch.js';

/** BullMQ's Worker on its PostgreSQL backend, for this collector's jobs. */
const PostgresWorker = Worker<
  QueuedJobData,
  unknown,
  string,
  PostgresQueueBackend,
  JobProgress,
  PostgresConnectionOptions
>;

export interface PostgresQueueTarget {
  /** QUEUE_URL, password included. */
  url: string;
  schema: string;
  /** node-postgres's `ssl` from the DATABASE_TLS_* files (src/config/queue.ts), if set. */
  ssl?: ConnectionOptions | undefined;
}

/** The database's clock in milliseconds: the time to live of every process's rows is counted on one clock. */
const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';
const SHARED = 'shared_state';
const BUDGET = 'budget';

export interface PostgresPoolOptions {
  /** Shown in pg_stat_activity. */
  name: string;
  max: number;
  /** Gives up connecting after this long (status's probe). */
  connectTimeoutMs?: number;
  /** Fails a statement after this long (status's probe). */
  statementTimeoutMs?: number;
}

/**
 * QUEUE_URL as node-postgres's config: the URL's own `options` (a search_path for the store, say) taken
 * out of it, since node-postgres lets the URL's win over the config's and the schema's search_path is
 * appended to them; with the TLS files, its `sslmode` too (it would override `ssl`).
 */
function connectionConfig(
  target: PostgresQueueTarget,
  searchPath: boolean,
): { connectionString: string; keepAlive: boolean; options?: string; ssl?: ConnectionOptions } {
  const url = new URL(target.ssl ? withoutSslParameters(target.url) : target.url);
  const given = url.searchParams.get('options');
  url.searchParams.delete('options');
  const path = searchPath ? `-c search_path=${quoteSchemaName(target.schema)}` : undefined;
  const options = [given, path].filter(Boolean).join(' ');
  return {
    connectionString: url.toString(),
    keepAlive: true,
    ...(options && { options }),
    ...(target.ssl && { ssl: target.ssl }),
  };
}

/** A pool whose every connection works in the queue's schema (the collector's own tables). */
export function queuePool(target: PostgresQueueTarget, o: PostgresPoolOptions): pg.Pool {
  const pool = new pg.Pool({
    ...connectionConfig(target, true),
    max: o.max,
    application_name: o.name,
    ...(o.connectTimeoutMs !== undefined && { connectionTimeoutMillis: o.connectTimeoutMs }),
    ...(o.statementTimeoutMs !== undefined && { statement_timeout: o.statementTimeoutMs }),
  });
  // A client BullMQ holds out of the pool emits on itself when the server drops it (the pool hears
  // idle clients only): unheard, the process would end. Its query fails with it; the pool drops it.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * BullMQ's schema and the collector's tables, created or brought up to date; several processes may
 * run it at once. With `prefix`, the schema is claimed for that `service.queuePrefix`: another prefix
 * of the same schema (`sec5-x` and `sec5_x` are both `sec5_x_queue`) is refused
 * (QueuePrefixCollisionError), since each collector would fail the other's jobs. Errors name
 * QUEUE_URL (its password masked).
 */
export async function migrateQueueSchema(
  pool: pg.Pool,
  target: PostgresQueueTarget,
  prefix?: string,
): Promise<void> {
  const client = await pool.connect();
  try {
    await runMigrations(client, target.schema);
    const schema = quoteSchemaName(target.schema);
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`glacier-collector:${target.schema}`]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.${SHARED} (key text PRIMARY KEY, value text NOT NULL, expires_at bigint)`,
    );
    // rate-limiter-flexible's own table shape (RateLimiterPostgres), created here under the lock.
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.${BUDGET} (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`,
    );
    if (prefix !== undefined) {
      await client.query(
        `INSERT INTO ${schema}.${SHARED} (key, value, expires_at) VALUES ($1, $2, NULL) ON CONFLICT (key) DO NOTHING`,
        [PREFIX_KEY, prefix],
      );
      const { rows } = await client.query<{ value: string }>(
        `SELECT value FROM ${schema}.${SHARED} WHERE key = $1`,
        [PREFIX_KEY],
      );
      const owner = rows[0]?.value;
      if (owner !== undefined && owner !== prefix) {
        throw new QueuePrefixCollisionError(prefix, owner, target.schema);
      }
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** The shared-state key naming the `service.queuePrefix` a schema belongs to. */
const PREFIX_KEY = 'queue-prefix';

/** Two queue prefixes that name one PostgreSQL schema: one collector's jobs would be the other's. */
export class QueuePrefixCollisionError extends Error {
  constructor(prefix: string, owner: string, schema: string) {
    super(
      `service.queuePrefix "${prefix}" and "${owner}" both map to the PostgreSQL schema ${schema}, which "${owner}" already uses: ` +
        `each collector would take the other's jobs. Give this collector a prefix whose schema differs (${describeSchemaMapping()}), ` +
        `or the same prefix "${owner}" if it is the same collector`,
    );
    this.name = 'QueuePrefixCollisionError';
  }
}

/** The prefix owning a schema, if a `start` has claimed it. */
export async function queueSchemaOwner(
  pool: pg.Pool,
  target: PostgresQueueTarget,
): Promise<string | undefined> {
  if (!(await queueSchemaExists(pool, target))) return undefined;
  const { rows } = await pool.query<{ value: string }>(
    `SELECT value FROM ${quoteSchemaName(target.schema)}.${SHARED} WHERE key = $1`,
    [PREFIX_KEY],
  );
  return rows[0]?.value;
}

/** The tables `status` reads exist: some `start` has migrated this schema. */
export async function queueSchemaExists(pool: pg.Pool, target: PostgresQueueTarget): Promise<boolean> {
  const { rows } = await pool.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [
    `${quoteSchemaName(target.schema)}.${SHARED}`,
  ]);
  return rows[0]?.t != null;
}

/** "connect ECONNREFUSED 127.0.0.1:5432" rather than an AggregateError with a stack. */
export function describePostgresError(err: Error): string {
  if (err instanceof AggregateError && err.errors.length > 0)
    return describePostgresError(err.errors[0] as Error);
  return err.message || err.name;
}

export interface PostgresBackendOptions {
  log: Logger;
  /** The collector's own pool (shared state, budget): closed with the backend. */
  pool: pg.Pool;
  /** Shown in pg_stat_activity. */
  name: string;
  /** Gives up connecting after this long (status's probe). */
  connectTimeoutMs?: number;
  /**
   * The service's backend: watches the clocks, the schema and a read-only database
   * (postgres-watch.ts), its workers claiming only while all is well; status's probe does not.
   */
  watch?: { prefix: string; intervalMs?: number };
}

/** A worker's pause after an error of its loop (BullMQ's default: 15 s, the whole of the resume budget). */
const RUN_RETRY_DELAY_MS = 3_000;

/** BullMQ's lock duration when none is given. */
const DEFAULT_LOCK_MS = 30_000;

/** Connections of the queue's own pool (adds, counts). */
const QUEUE_POOL = 3;

export function postgresBackend(target: PostgresQueueTarget, o: PostgresBackendOptions): QueueBackend {
  const { pool, log } = o;
  const where = `PostgreSQL ${maskQueueUrl(target.url)} (QUEUE_URL), schema ${target.schema}`;
  // BullMQ builds its own pools from a config (a pool it is given is assumed to be in schema "bullmq"):
  // the queue's, and each worker's with its LISTEN connection beside it.
  const bullConfig = (max: number) => ({
    connection: {
      ...connectionConfig(target, false),
      schema: target.schema,
      max,
      application_name: o.name,
      ...(o.connectTimeoutMs !== undefined && { connectionTimeoutMillis: o.connectTimeoutMs }),
    },
  });
  let up = true;
  const reconnectListeners = new Set<() => void>();
  // An outage is logged once, and its end once: every query in between fails on its own.
  const sawError = (err: Error) => {
    if (!up) return;
    up = false;
    log.warn(
      `the queue's PostgreSQL is not reachable at ${maskQueueUrl(target.url)} (QUEUE_URL): ${describePostgresError(err)}; retrying, /readyz says not ready until then.`,
    );
  };
  const sawAnswer = () => {
    if (up) return;
    up = true;
    log.info(`the queue's PostgreSQL answers again at ${maskQueueUrl(target.url)}`);
    for (const fn of reconnectListeners) fn();
  };
  pool.on('error', sawError);
  const query = async <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => {
    try {
      const result = await pool.query<R>(text, values);
      sawAnswer();
      return result;
    } catch (err) {
      if (isConnectionError(err)) sawError(err as Error);
      throw err;
    }
  };
  const watch: PostgresWatch | undefined =
    o.watch &&
    watchPostgresQueue({
      query,
      schema: target.schema,
      log,
      recreate: async () => {
        await migrateQueueSchema(pool, target, o.watch!.prefix);
        // As after an outage: the epoch check notices the loss (and restores the day's budget) now.
        for (const fn of reconnectListeners) fn();
      },
      ...(o.watch.intervalMs !== undefined && { intervalMs: o.watch.intervalMs }),
    });
  let closed: Promise<void> | undefined;
  return {
    name: 'PostgreSQL',
    where,
    checkName: 'queue',
    shared: postgresSharedState(query),
    lossMessage:
      'the queue’s PostgreSQL schema lost its data (dropped or restored): recreating today’s compute-unit spending from job_runs; the next slots run as scheduled',
    createQueue(): CollectorQueue {
      const queue = new Queue<
        QueuedJobData,
        unknown,
        string,
        QueuedJobData,
        unknown,
        string,
        PostgresQueueBackend,
        PostgresConnectionOptions
      >(
        QUEUE_NAME,
        { ...bullConfig(QUEUE_POOL), defaultJobOptions: postgresJobOptions },
        createPostgresBackend,
      );
      queue.on('error', () => undefined); // the pool reports outages, once each
      return queue as unknown as CollectorQueue;
    },
    createWorker(processor, options): CollectorWorkerHandle {
      if (!watch) {
        return new PostgresWorker(
          QUEUE_NAME,
          processor,
          { runRetryDelay: RUN_RETRY_DELAY_MS, ...options, ...bullConfig((options.concurrency ?? 1) + 1) },
          createPostgresBackend,
        ) as unknown as CollectorWorkerHandle;
      }
      // The locks on the database's clock, the end of a run held over a read-only database
      // (postgres-locks.ts): BullMQ's own lock renewal is off.
      const keeper = keepLocks({
        query,
        schema: target.schema,
        queue: QUEUE_NAME,
        lockMs: options.lockDuration ?? DEFAULT_LOCK_MS,
      });
      let closing!: () => void;
      const whenClosing = new Promise<void>((resolve) => {
        closing = resolve;
      });
      const worker = new PostgresWorker(
        QUEUE_NAME,
        async (job, token, signal) => {
          const id = job.id;
          if (id && token) keeper.hold(id, token);
          try {
            return await processor(job, token, signal);
          } finally {
            if (id) keeper.settled(id);
          }
        },
        {
          runRetryDelay: RUN_RETRY_DELAY_MS,
          ...options,
          ...bullConfig((options.concurrency ?? 1) + 1),
          skipLockRenewal: true,
          autorun: false,
        },
        guardedBackendFactory({ watch, keeper, closing: whenClosing }),
      ) as unknown as CollectorWorkerHandle;
      // Runs finishing within the shutdown grace keep their locks: the keeper stops once closed.
      worker.once('closing', () => closing());
      worker.once('closed', () => keeper.stop());
      // A worker paused while it blocked on LISTEN waits for the next NOTIFY: BullMQ's own, sent now.
      const wake = () =>
        void query(`SELECT pg_notify('bullmq_jobs', $1)`, [QUEUE_NAME]).catch(() => undefined);
      gate(worker, watch, keeper, options.lockDuration, wake);
      return worker;
    },
    createLimiter(l) {
      return new RateLimiterPostgres({
        storeClient: pool,
        storeType: 'pool',
        schemaName: target.schema,
        tableName: BUDGET,
        tableCreated: true,
        clearExpiredByTimeout: false,
        keyPrefix: l.keyPrefix,
        points: l.points,
        duration: l.duration,
      });
    },
    isUp: () => up,
    async ping(timeoutMs = 1_000) {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          query('SELECT 1').then(() => {
            const problem = watch?.problem();
            if (problem) throw new Error(problem);
          }),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
      } catch (err) {
        throw new Error(`PostgreSQL at ${maskQueueUrl(target.url)}: ${describePostgresError(err as Error)}`, {
          cause: err,
        });
      } finally {
        clearTimeout(timer);
      }
    },
    onReconnect(fn) {
      reconnectListeners.add(fn);
      // The pool is open (start migrated through it): this is the first connection, as Redis's 'ready'.
      if (up) queueMicrotask(fn);
      return () => void reconnectListeners.delete(fn);
    },
    checkSettings: async () => undefined,
    async noteRateLimit(ms) {
      await this.shared.lengthen(RATE_LIMIT_KEY, ms);
    },
    knownFault(err) {
      if (!watch || !WATCHED_FAULT.test(err.message)) return false;
      void watch.check(); // said once, by the watch, at its next look: now
      return true;
    },
    watchReading: () => watch?.reading(),
    async removeAll() {
      await query(`DROP SCHEMA IF EXISTS ${quoteSchemaName(target.schema)} CASCADE`);
    },
    close() {
      closed ??= (async () => {
        watch?.stop();
        pool.off('error', sawError);
        pool.on('error', () => undefined);
        await pool.end();
      })();
      return closed;
    },
  };
}

/** What BullMQ's queries fail with when the schema is gone or the database read-only. */
const WATCHED_FAULT =
  /(relation|function|schema|type) \S.* does not exist|read-only transaction|recovery is in progress/;

/** The shared-state key whose time to live is the collector's own rate limit of the queue (postgres-watch.ts reads it). */
const RATE_LIMIT_KEY = 'rate-limit';

/**
 * A worker that claims only while the watch sees nothing wrong: not started before the first look,
 * paused (no claim, no stalled check; its running jobs go on) while the watch refuses, resumed after.
 * After a read-only database its locks are extended first, and it resumes one look of the watch
 * later: every process's watch has seen the database writable by then and extended its own locks,
 * so no stalled check (which runs at once on resume) takes a job whose lock lapsed meanwhile.
 * Whatever stopped it (a resume racing the end of BullMQ's main loop), a worker found neither
 * running nor paused while nothing is refused is started again at the next look.
 */
function gate(
  worker: CollectorWorkerHandle,
  watch: PostgresWatch,
  keeper: LockKeeper,
  lockDurationMs: number | undefined,
  wake: () => void,
): void {
  if (lockDurationMs !== undefined) watch.setLockDuration(lockDurationMs);
  let closing = false;
  let started = false;
  let resumeTimer: NodeJS.Timeout | undefined;
  const heal = setInterval(() => {
    if (!started || closing || worker.closing || watch.problem() || resumeTimer) return;
    if (!worker.isRunning() && !worker.isPaused()) void worker.resume().then(wake);
  }, watch.intervalMs);
  heal.unref();
  worker.once('closing', () => {
    closing = true;
    clearTimeout(resumeTimer);
    clearInterval(heal);
  });
  const resume = () => {
    resumeTimer = undefined;
    if (closing || worker.closing || watch.problem()) return;
    if (!worker.isRunning() || worker.isPaused()) void worker.resume().then(wake);
  };
  const apply = (refusal: string | undefined, ended: ReadonlySet<QueueFault>) => {
    if (closing || worker.closing) return;
    clearTimeout(resumeTimer);
    resumeTimer = undefined;
    if (refusal) {
      void worker.pause(true);
      return;
    }
    if (!ended.has('read_only')) return resume();
    void keeper.extendNow().then(() => {
      if (closing) return;
      resumeTimer = setTimeout(resume, watch.intervalMs);
      resumeTimer.unref();
    });
  };
  void watch.refusal().then((refusal) => {
    watch.onChange(apply);
    if (closing || worker.closing) return;
    started = true;
    if (refusal) {
      // Paused before it ever ran: resume() starts it.
      void worker.pause(true);
      return;
    }
    worker.run().catch((err: Error) => worker.emit('error', err));
  });
}

/** A connection refused, reset or timed out, rather than an SQL error. */
function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return (
    (typeof e.code === 'string' && /^(ECONN|ETIMEDOUT|ENOTFOUND|EPIPE|57P0)/.test(e.code)) ||
    /Connection terminated|timeout exceeded when trying to connect/.test(e.message ?? '')
  );
}

type Query = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<pg.QueryResult<R>>;

/**
 * The shared state as rows of `shared_state`: an expired row reads as absent, and is deleted on the
 * next write (at most a handful of rows: one per process and a few keys).
 */
export function postgresSharedState(query: Query): SharedState {
  const live = `(expires_at IS NULL OR expires_at > ${NOW_MS})`;
  return {
    async put(entries) {
      if (entries.length === 0) return;
      const values: unknown[] = [];
      const rows = entries.map((e, i) => {
        values.push(e.key, e.value, e.ttlMs === undefined ? null : Math.max(1, Math.ceil(e.ttlMs)));
        return `($${i * 3 + 1}, $${i * 3 + 2}, ${NOW_MS} + $${i * 3 + 3}::bigint)`;
      });
      // The rows of processes gone (their heartbeats), before the write: one statement could not both.
      await query(`DELETE FROM ${SHARED} WHERE expires_at <= ${NOW_MS}`);
      await query(
        `INSERT INTO ${SHARED} (key, value, expires_at) VALUES ${rows.join(', ')}
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
        values,
      );
    },
    async putIfAbsent(key, value) {
      const { rows } = await query(
        `INSERT INTO ${SHARED} (key, value, expires_at) VALUES ($1, $2, NULL)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = NULL
           WHERE ${SHARED}.expires_at <= ${NOW_MS}
         RETURNING key`,
        [key, value],
      );
      return rows.length > 0;
    },
    async lengthen(key, ttlMs) {
      await query(
        `INSERT INTO ${SHARED} (key, value, expires_at) VALUES ($1, '1', ${NOW_MS} + $2::bigint)
         ON CONFLICT (key) DO UPDATE SET expires_at = CASE
           WHEN ${SHARED}.expires_at IS NULL THEN NULL
           ELSE greatest(${SHARED}.expires_at, excluded.expires_at) END`,
        [key, Math.max(1, Math.ceil(ttlMs))],
      );
    },
    async ttlMs(key) {
      const { rows } = await query<{ ms: string | null }>(
        `SELECT expires_at - ${NOW_MS} AS ms FROM ${SHARED} WHERE key = $1 AND expires_at > ${NOW_MS}`,
        [key],
      );
      return Math.max(0, Number(rows[0]?.ms ?? 0));
    },
    async get(key) {
      const { rows } = await query<{ value: string }>(
        `SELECT value FROM ${SHARED} WHERE key = $1 AND ${live}`,
        [key],
      );
      return rows[0]?.value ?? null;
    },
    async list(start) {
      const { rows } = await query<{ key: string; value: string }>(
        `SELECT key, value FROM ${SHARED} WHERE starts_with(key, $1) AND ${live} ORDER BY key`,
        [start],
      );
      return rows.map((r) => [r.key, r.value]);
    },
    async del(key) {
      await query(`DELETE FROM ${SHARED} WHERE key = $1`, [key]);
    },
  };
}
