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

/**
 * Completed and failed jobs are removed after a bounded count and age. Completed slot jobs are kept
 * an hour at least: their id (job + slot) is what dedupes a slot fired twice (two schedulers, a
 * restart within the same second), and a tick never arrives an hour late.
 */
export const retention = {
  removeOnComplete: { age: 24 * 3600, count: 2_000 },
  removeOnFail: { age: 7 * 24 * 3600, count: 2_000 },
} satisfies JobsOptions;

/** A failed run is tried again with exponential backoff (with jitter) before it counts as failed. */
export const retries = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 15_000, jitter: 0.5 },
} satisfies JobsOptions;
