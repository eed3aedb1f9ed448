import type { JobsOptions } from 'bullmq';
import type { JobArgs } from '../kernel/job.js';

/** What one `start` process runs: the scheduler, the workers, or both. */
export const roles = ['all', 'scheduler', 'worker'] as const;
export type Role = (typeof roles)[number];

/** The one BullMQ queue every job runs on; `service.queuePrefix` separates collectors sharing a Redis. */
export const QUEUE_NAME = 'collector';

/** What a BullMQ job carries: which slot fired it and its args. Never a secret, never the payload
 * (the worker builds the payload from its own config, so a config change applies to queued jobs). */
export interface QueuedJobData {
  /** ISO time of the cron slot, or of the start-up run. */
  slot?: string;
  args: JobArgs;
}

/** A failed run is tried again with exponential backoff (with jitter) before it counts as failed. */
export const retries = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 15_000, jitter: 0.5 },
} satisfies JobsOptions;

/** Completed slot jobs are kept a day (at least an hour: their id, job + slot, is what dedupes a slot
 * fired twice by two schedulers or a restart, and a tick never arrives an hour late); failed ones a week. */
const KEEP_COMPLETED_S = 24 * 3600;
const KEEP_FAILED_S = 7 * 24 * 3600;
/** Redis's memory bound: at most this many completed and this many failed jobs are kept. */
export const KEPT_JOBS_ON_REDIS = 2_000;

/**
 * What every job added on Redis carries (the queue's default job options): its retries, and a
 * retention by age and count (Redis holds the kept jobs in memory).
 */
export const redisJobOptions = {
  removeOnComplete: { age: KEEP_COMPLETED_S, count: KEPT_JOBS_ON_REDIS },
  removeOnFail: { age: KEEP_FAILED_S, count: KEPT_JOBS_ON_REDIS },
  ...retries,
} satisfies JobsOptions;

/**
 * The same on PostgreSQL, the retention by age alone: BullMQ's PostgreSQL backend applies a count on
 * every finished job as `DELETE … WHERE id NOT IN (the newest <count>)` (its `apply_retention`), a
 * scan of every kept job per job (10,000 no-op jobs: `npm run bench -- service`), and two workers
 * finishing at once deadlock on the rows both delete. Kept jobs are rows on disk there, and a day
 * of this collector's jobs is small.
 */
export const postgresJobOptions = {
  removeOnComplete: { age: KEEP_COMPLETED_S },
  removeOnFail: { age: KEEP_FAILED_S },
  ...retries,
} satisfies JobsOptions;

/**
 * The workers' limiter: `queue.rateLimit()` holds jobs back only on a worker with one (a 429 the
 * budget could not wait out); high enough never to limit on its own.
 */
export const workerLimiter = { max: 10_000, duration: 1_000 };
