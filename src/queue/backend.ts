/**
 * The one seam between the service and where its queue lives: Redis (redis-backend.ts) or
 * PostgreSQL through BullMQ's own backend (postgres-backend.ts). Everything the service shares
 * between its processes goes through it: BullMQ's queue and workers, the compute-unit limiter
 * (budget.ts), and a few small keys with a time to live (`SharedState`: the heartbeats, the 429
 * pause, the epoch marker). Callers ask the backend; none switches on its kind.
 */
import type { IQueueBackend, JobProgress, Processor, Queue, Worker, WorkerOptions } from 'bullmq';
import type { RateLimiterStoreAbstract } from 'rate-limiter-flexible';
import type { QueuedJobData } from './jobs.js';

/**
 * BullMQ types a queue by its backend's connection options (ioredis's or node-postgres's), invariantly:
 * no type but `any` holds both. Nothing outside the backends passes a connection.
 */
// biome-ignore lint/suspicious/noExplicitAny: see above.
type AnyConnection = any;

/** The collector's queue, whichever backend holds it. */
export type CollectorQueue = Queue<
  QueuedJobData,
  unknown,
  string,
  QueuedJobData,
  unknown,
  string,
  IQueueBackend,
  AnyConnection
>;
export type CollectorWorkerHandle = Worker<
  QueuedJobData,
  unknown,
  string,
  IQueueBackend,
  JobProgress,
  unknown
>;
export type CollectorProcessor = Processor<QueuedJobData, unknown, string>;

/**
 * Small values every process of one collector shares, each under a key relative to the collector's
 * prefix (`heartbeat:<host>:<pid>`, `epoch`, `budget:paused`): Redis keys under `<prefix>:`, or the
 * rows of a table in the queue's PostgreSQL schema. A time to live is counted by the backend's clock.
 */
export interface SharedState {
  /** Sets each key, replacing its value and time to live (none: kept until deleted). */
  put(entries: readonly { key: string; value: string; ttlMs?: number }[]): Promise<void>;
  /** Sets `key` unless it holds a value; true when this call set it. */
  putIfAbsent(key: string, value: string): Promise<boolean>;
  /** Sets `key` to live `ttlMs` from now, or longer if it already does: a time to live never shortens. */
  lengthen(key: string, ttlMs: number): Promise<void>;
  /** Milliseconds `key` has left to live; 0 when it holds no value. */
  ttlMs(key: string): Promise<number>;
  get(key: string): Promise<string | null>;
  /** Every key starting with `start` and its value, keys relative to the prefix. */
  list(start: string): Promise<[key: string, value: string][]>;
  del(key: string): Promise<void>;
}

/** A fault of the queue's backend that stops this process claiming jobs (PostgreSQL: postgres-watch.ts). */
export type QueueFault = 'clock_skew' | 'schema_missing' | 'read_only';
export const QUEUE_FAULTS: readonly QueueFault[] = ['clock_skew', 'schema_missing', 'read_only'];

export interface QueueWatchReading {
  /** The backend's clock minus this process's, in ms; undefined before the first answer. */
  offsetMs: number | undefined;
  faults: ReadonlySet<QueueFault>;
}

export interface LimiterOptions {
  /** Relative to the collector's prefix, e.g. `budget:cu`. */
  keyPrefix: string;
  points: number;
  /** Seconds. */
  duration: number;
}

export interface QueueBackend {
  /** `Redis` or `PostgreSQL`, for messages. */
  readonly name: string;
  /** Where it is, password masked, with the variable that named it: `Redis redis://… (REDIS_URL)`. */
  readonly where: string;
  /** The readiness check's name: `redis`, or `queue` on PostgreSQL. */
  readonly checkName: string;
  readonly shared: SharedState;
  createQueue(): CollectorQueue;
  createWorker(
    processor: CollectorProcessor,
    options: Omit<WorkerOptions, 'connection' | 'prefix'>,
  ): CollectorWorkerHandle;
  createLimiter(options: LimiterOptions): RateLimiterStoreAbstract;
  /** True while the backend answers (as far as its connections know). */
  isUp(): boolean;
  /** One round trip within `timeoutMs`: the readiness check. */
  ping(timeoutMs?: number): Promise<void>;
  /** Calls `fn` each time the backend is reachable again after an outage; returns the unsubscribe. */
  onReconnect(fn: () => void): () => void;
  /**
   * That a worker could claim a job now, beyond `ping` (Redis answers PING while it refuses the writes
   * a claim takes): `/readyz`'s `worker` check. Without it, the worker check looks at the worker alone.
   */
  checkClaim?(timeoutMs?: number): Promise<void>;
  /** What the operator should fix in the backend's own settings (Redis's eviction policy and maxmemory), if anything. */
  checkSettings(): Promise<string | undefined>;
  /** Removes everything of this collector's prefix from the backend: the demo's cleanup, once stopped. */
  removeAll(): Promise<void>;
  /** What a loss of the backend's data (flushed, restored) is called in the log line that reports it. */
  readonly lossMessage: string;
  /**
   * Tells the backend the queue was rate limited for `ms` by the collector itself (a 429, the day's
   * budget spent): on PostgreSQL, how long a limiter window may legitimately last (postgres-watch.ts).
   */
  noteRateLimit(ms: number): Promise<void>;
  /**
   * True when `err` (from BullMQ's worker or queue) comes of a fault the backend watches and reports
   * itself, once (PostgreSQL: the schema gone, the database read-only): not to be logged again.
   */
  knownFault(err: Error): boolean;
  /** This process's clock against the backend's and the faults it sees (PostgreSQL); undefined on Redis. */
  watchReading(): QueueWatchReading | undefined;
  close(): Promise<void>;
}
