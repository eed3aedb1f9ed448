import cron, { type ScheduledTask } from 'node-cron';
import type { Config } from '../config/index.js';
import type { Job } from '../kernel/job.js';
import type { Logger } from '../runtime/logger.js';
import type { CollectorQueue } from './backend.js';
import { backendFaultCause, createFaultLog, isConnectionError } from './backend-faults.js';

export interface SchedulerOptions {
  config: Config;
  jobs: readonly Job[];
  queue: CollectorQueue;
  log: Logger;
  now?: () => number;
  /** A slot that was not enqueued because the job's previous run is still waiting or running. */
  onSkippedSlot?: (job: string) => void;
  /**
   * Whether a job needs a run at start although its `runOnStart` is false (`Job.needsFirstRun`: a
   * first read the schedule would leave waiting). @defaultValue never
   */
  needsFirstRun?: (job: Job) => Promise<boolean>;
  /** How often the wall clock is compared with the monotonic one, and the step that counts. @defaultValue 1 s, 2 s */
  clockStep?: { checkMs: number; toleranceMs: number };
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
 *   logged and counted as skipped;
 * - an add that fails (Redis away, a failover) is tried again for up to ENQUEUE_RETRY_MS.
 */
/** Slots remembered per job: over two hours of a job every second, days of one every minute. */
const FIRED_MEMORY = 8_192;

/**
 * How long a slot whose add failed is tried again: a Sentinel failover or a Redis restart takes
 * seconds, and a slot added late still runs (and its data is caught up by the cursor anyway).
 */
const ENQUEUE_RETRY_MS = 60_000;
const ENQUEUE_RETRY_MAX_DELAY_MS = 5_000;
/** How long a stop waits for adds in flight. */
const STOP_WAIT_MS = 1_000;

export function createScheduler(o: SchedulerOptions): Scheduler {
  const tasks: ScheduledTask[] = [];
  const inFlight = new Set<Promise<void>>();
  /** Wakes the adds waiting to be tried again: `stop` ends them. */
  const wakeUps = new Set<() => void>();
  let stopping = false;
  const { timezone } = o.config.service;
  const addFaults = createFaultLog({ log: o.log, subject: 'the scheduler cannot add slots' });

  /**
   * Per job, the latest slot whose add is in flight or waiting to be tried again: a newer slot of the job supersedes it
   * (while the backend refuses, one add per job is retried, not one per slot fired meanwhile: a job
   * every second was 20 adds retried at once after 20 s; only one of them could be added anyway,
   * the job's deduplication id being its name).
   */
  const retrying = new Map<string, { superseded: boolean; wake: () => void }>();

  async function enqueue(job: Job, jobId: string, slot: Date): Promise<void> {
    const log = o.log.child({ job: job.name, slot: slot.toISOString() });
    const giveUpAt = Date.now() + ENQUEUE_RETRY_MS;
    const previous = retrying.get(job.name);
    if (previous) {
      previous.superseded = true;
      previous.wake();
    }
    const self: { superseded: boolean; wake: () => void } = { superseded: false, wake: () => undefined };
    retrying.set(job.name, self);
    try {
      await tryAdding();
    } finally {
      if (retrying.get(job.name) === self) retrying.delete(job.name);
    }

    async function tryAdding(): Promise<void> {
      for (let attempt = 0; ; attempt++) {
        if (self.superseded) {
          log.debug('slot not enqueued: a newer slot of the job was fired while the queue refused adds');
          o.onSkippedSlot?.(job.name);
          return;
        }
        try {
          const added = await o.queue.add(
            job.name,
            { slot: slot.toISOString(), args: {} },
            // Retention and retries: the queue's default job options (its backend's).
            { jobId, deduplication: { id: job.name } },
          );
          if (added.id !== jobId) {
            log.info(
              { pending: added.id },
              'slot skipped: the previous run of this job is still waiting or running',
            );
            o.onSkippedSlot?.(job.name);
          } else {
            log.debug({ jobId, attempt }, 'slot enqueued');
          }
          return;
        } catch (err) {
          // Redis is away (a restart, a Sentinel failover): the connection logs the outage once. The
          // add is tried again, as the same job id, so an add that did reach Redis is not doubled.
          const delay = Math.min(ENQUEUE_RETRY_MAX_DELAY_MS, 250 * 2 ** attempt);
          if (stopping || Date.now() + delay > giveUpAt) {
            log.debug({ err: (err as Error).message }, 'slot not enqueued');
            // An error answer (Redis full: OOM) is no outage the connection reports: said here, at
            // most once a minute per cause.
            if (!stopping && !isConnectionError(err as Error)) {
              addFaults.seen(backendFaultCause(err as Error), err as Error);
            }
            return;
          }
          if (self.superseded) continue;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(done, delay);
            function done() {
              clearTimeout(timer);
              wakeUps.delete(done);
              resolve();
            }
            self.wake = done;
            wakeUps.add(done);
          });
        }
      }
    }
  }

  function fire(job: Job, jobId: string, slot: Date): void {
    const p = enqueue(job, jobId, slot).finally(() => inFlight.delete(p));
    inFlight.add(p);
  }

  /**
   * Per job, the slots fired lately (the latest FIRED_MEMORY): a clock stepped back never fires a
   * slot again, and the slots a step forward skipped still fire if the clock comes back over them.
   */
  const fired = new Map<string, { set: Set<number>; order: number[] }>();
  /** Missed slots per job, logged as one line per burst (a clock stepped forward misses many). */
  const missed = new Map<string, { count: number; first: Date; last: Date }>();
  let missedFlush: NodeJS.Immediate | undefined;

  function onSlot(job: Job, slot: Date): void {
    const seen = fired.get(job.name) ?? { set: new Set<number>(), order: [] };
    fired.set(job.name, seen);
    const t = slot.getTime();
    if (seen.set.has(t)) {
      o.log.debug({ job: job.name, slot: slot.toISOString() }, 'slot already fired (the clock went back)');
      return;
    }
    seen.set.add(t);
    seen.order.push(t);
    if (seen.order.length > FIRED_MEMORY) seen.set.delete(seen.order.shift()!);
    fire(job, slotJobId(job.name, slot), slot);
  }

  function onMissed(job: Job, slot: Date): void {
    const m = missed.get(job.name);
    if (m) {
      m.count++;
      m.last = slot;
    } else missed.set(job.name, { count: 1, first: slot, last: slot });
    missedFlush ??= setImmediate(() => {
      missedFlush = undefined;
      for (const [name, m] of missed) {
        o.log.warn(
          { job: name, slots: m.count, first: m.first.toISOString(), last: m.last.toISOString() },
          'slots missed: the event loop was blocked or the clock stepped forward',
        );
      }
      missed.clear();
    });
  }

  function schedule(): void {
    for (const job of o.jobs) {
      const when = job.scheduled ? job.schedule(o.config) : undefined;
      if (!when?.enabled) continue;
      const task = cron.schedule(when.schedule, (ctx) => onSlot(job, ctx.date), {
        timezone,
        name: `glacier-${job.name}`,
        suppressMissedWarning: true,
      });
      task.on('execution:missed', (ctx) => onMissed(job, ctx.date));
      tasks.push(task);
    }
  }

  async function unschedule(): Promise<void> {
    for (const task of tasks.splice(0)) {
      await task.stop();
      await task.destroy();
    }
  }

  // node-cron waits for its next slot on a timer: after the clock steps back it would wait for the
  // wall clock to come back to that slot, skipping slots never fired (a step forward, then back).
  // So a step is noticed (wall time against monotonic time), logged once, and the triggers are
  // planned again from the new time; `fired` keeps a slot already fired from firing twice.
  const watch = o.clockStep ?? { checkMs: 1_000, toleranceMs: 2_000 };
  let clockTimer: NodeJS.Timeout | undefined;
  let skew = Date.now() - performance.now();
  let replanning: Promise<void> | undefined;
  function checkClock(): void {
    const now = Date.now() - performance.now();
    const step = now - skew;
    skew = now;
    if (Math.abs(step) < watch.toleranceMs || replanning) return;
    o.log.warn(
      { stepMs: Math.round(step), now: new Date().toISOString() },
      `the system clock stepped ${step > 0 ? 'forward' : 'back'} by ${Math.round(Math.abs(step) / 1000)} s: slots planned again from the new time (none fires twice)`,
    );
    replanning = unschedule()
      .then(schedule)
      .finally(() => {
        replanning = undefined;
      });
  }

  /** Fires the job's first run at start when it needs one; a failed check only logs (the schedule stays). */
  function firstRun(job: Job, now: Date): void {
    const check = (o.needsFirstRun?.(job) ?? Promise.resolve(false))
      .then((needed) => {
        if (!needed || stopping) return;
        o.log.info({ job: job.name }, 'first run at start: a configured stream was never read');
        fire(job, `${job.name}|start|${now.getTime()}`, now);
      })
      .catch((err: unknown) =>
        o.log.warn({ job: job.name, err }, 'cannot tell whether a first run is needed'),
      )
      .finally(() => inFlight.delete(check));
    inFlight.add(check);
  }

  return {
    start() {
      const now = new Date(o.now?.() ?? Date.now());
      schedule();
      for (const job of o.jobs) {
        const when = job.scheduled ? job.schedule(o.config) : undefined;
        if (!when?.enabled) continue;
        if (when.runOnStart) fire(job, `${job.name}|start|${now.getTime()}`, now);
        else if (o.needsFirstRun) firstRun(job, now);
        o.log.info({ job: job.name, schedule: when.schedule, timezone }, 'scheduled');
      }
      clockTimer = setInterval(checkClock, watch.checkMs);
      clockTimer.unref();
    },
    async stop() {
      stopping = true;
      for (const wake of [...wakeUps]) wake();
      clearInterval(clockTimer);
      await replanning;
      await unschedule();
      if (missedFlush) clearImmediate(missedFlush);
      // An add still in flight waits for a backend that is away (its connection never came up):
      // it is let go after a second, not waited for until the shutdown deadline abandons it. Its slot
      // was not added, so nothing runs twice; the next slot runs after the restart.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...inFlight]),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, STOP_WAIT_MS);
        }),
      ]);
      clearTimeout(timer);
      if (inFlight.size > 0) o.log.debug({ adds: inFlight.size }, 'slot adds in flight let go at shutdown');
    },
  };
}

/** The BullMQ job id of a cron slot: job name and slot time. (BullMQ ids cannot contain ':'.) */
export function slotJobId(job: string, slot: Date): string {
  return `${job}|${slot.getTime()}`;
}
