import type { Queue } from 'bullmq';
import cron, { type ScheduledTask } from 'node-cron';
import type { Config } from '../config/index.js';
import type { Job } from '../kernel/job.js';
import type { Logger } from '../runtime/logger.js';
import { type QueuedJobData, retention, retries, slotJobId } from './jobs.js';

export interface SchedulerOptions {
  config: Config;
  jobs: readonly Job[];
  queue: Queue<QueuedJobData>;
  log: Logger;
  now?: () => number;
  /** A slot that was not enqueued because the job's previous run is still waiting or running. */
  onSkippedSlot?: (job: string) => void;
}

export interface Scheduler {
  start(): void;
  /** Stops every trigger and waits for the adds in flight. */
  stop(): Promise<void>;
}

/**
 * node-cron fires; BullMQ runs. Each firing adds one BullMQ job:
 * - its id is (job, slot), so two schedulers, a restart or a tick delivered twice add it once;
 * - its deduplication id is the job's name, so while a run of that job is still waiting or active
 *   the new slot is not added at all: no overlap, no backlog behind a slow run. Such a slot is
 *   logged and counted as skipped.
 */
export function createScheduler(o: SchedulerOptions): Scheduler {
  const tasks: ScheduledTask[] = [];
  const inFlight = new Set<Promise<void>>();
  const { timezone } = o.config.service;

  async function enqueue(job: Job, jobId: string, slot: Date): Promise<void> {
    const log = o.log.child({ job: job.name, slot: slot.toISOString() });
    try {
      const added = await o.queue.add(
        job.name,
        { slot: slot.toISOString(), args: {} },
        { ...retention, ...retries, jobId, deduplication: { id: job.name } },
      );
      if (added.id !== jobId) {
        log.info(
          { pending: added.id },
          'slot skipped: the previous run of this job is still waiting or running',
        );
        o.onSkippedSlot?.(job.name);
      } else {
        log.debug({ jobId }, 'slot enqueued');
      }
    } catch (err) {
      // Redis is away: the connection logs the outage once; each lost slot is a debug line.
      log.debug({ err: (err as Error).message }, 'slot not enqueued');
    }
  }

  function fire(job: Job, jobId: string, slot: Date): void {
    const p = enqueue(job, jobId, slot).finally(() => inFlight.delete(p));
    inFlight.add(p);
  }

  return {
    start() {
      const now = new Date(o.now?.() ?? Date.now());
      for (const job of o.jobs) {
        const when = job.scheduled ? job.schedule(o.config) : undefined;
        if (!when?.enabled) continue;
        const task = cron.schedule(
          when.schedule,
          (ctx) => fire(job, slotJobId(job.name, ctx.date), ctx.date),
          {
            timezone,
            name: `glacier-${job.name}`,
            suppressMissedWarning: true,
          },
        );
        task.on('execution:missed', (ctx) =>
          o.log.warn(
            { job: job.name, slot: ctx.date.toISOString() },
            'slot missed: the event loop was blocked',
          ),
        );
        tasks.push(task);
        if (when.runOnStart) fire(job, `${job.name}|start|${now.getTime()}`, now);
        o.log.info({ job: job.name, schedule: when.schedule, timezone }, 'scheduled');
      }
    },
    async stop() {
      for (const task of tasks.splice(0)) {
        await task.stop();
        await task.destroy();
      }
      await Promise.allSettled([...inFlight]);
    },
  };
}
