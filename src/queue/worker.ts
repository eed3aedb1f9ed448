import { hostname } from 'node:os';
import { type Job as BullJob, RateLimitError, UnrecoverableError } from 'bullmq';
import type { Config } from '../config/index.js';
import { findJob, type JobList, type RunDeps, type RunSummary, runJob } from '../kernel/index.js';
import type { Logger } from '../runtime/logger.js';
import type { CollectorQueue, CollectorWorkerHandle, QueueBackend } from './backend.js';
import {
  type BackendFaultCause,
  backendFaultCause,
  createFaultLog,
  faultBackoffMs,
  isConnectionError,
} from './backend-faults.js';
import { type QueuedJobData, workerLimiter } from './jobs.js';
import { untilSetUp } from './redis.js';

export interface WorkerOptions {
  config: Config;
  jobs: JobList;
  /** Where the worker takes its jobs from (on Redis, its connection with `maxRetriesPerRequest: null`). */
  backend: Pick<QueueBackend, 'createWorker' | 'noteRateLimit' | 'knownFault'>;
  /** Where continuations are added. */
  queue: CollectorQueue;
  deps: RunDeps;
  log: Logger;
  onRun?: (summary: RunSummary) => void;
  /** Every error answer of the backend the worker sees (the metric). */
  onBackendFault?: (cause: BackendFaultCause) => void;
  /**
   * Whether the backend answers now (`QueueBackend.isUp`): a close while it does not drops the
   * connections rather than wait for them. @defaultValue always up
   */
  backendUp?: () => boolean;
  /** The longest pause after an error answer of the backend. @defaultValue FAULT_BACKOFF_CAP_MS */
  faultBackoffCapMs?: number;
}

/**
 * The longest pause of the worker after an error answer: short enough that it claims again within
 * seconds of the backend's recovery (the bound: 15 s), long enough to cost nothing meanwhile.
 */
export const FAULT_BACKOFF_CAP_MS = 10_000;

export interface CollectorWorker {
  readonly worker: CollectorWorkerHandle;
  /** Runs in progress. */
  active(): number;
  /**
   * Why the worker cannot claim jobs now (it is pausing after an error answer of the backend), or
   * undefined: `/readyz`'s `worker` check.
   */
  claimProblem(): string | undefined;
  /**
   * Stops taking jobs, lets the active ones finish for up to `graceMs`, then aborts them (their
   * job_runs rows say "interrupted") and closes.
   */
  close(graceMs: number): Promise<void>;
}

/**
 * The queue layer: a thin adapter from a BullMQ job to the kernel's `runJob` (the same run path and
 * `job_runs` rows as `run <job>`) and from the run's classified outcome back to BullMQ's vocabulary:
 * - success: its continuations (an export's next status read) become delayed jobs;
 * - `rate-limit` (a 429 the call could not wait out, the day's budget spent): the whole queue is
 *   rate limited for that long (`queue.rateLimit` + `RateLimitError`: no attempt is used);
 * - `give-up` (400, 401, 403, 404, a malformed body, an unconfigured job): `UnrecoverableError`;
 * - `retry`: a plain error, retried with backoff (`retries` in jobs.ts).
 */
export function createCollectorWorker(o: WorkerOptions): CollectorWorker {
  let active = 0;
  // Shown as each job's `processedBy`: which host and process runs (or ran) it.
  const workerName = `${hostname()}:${globalThis.process.pid}`;

  async function process(
    job: BullJob<QueuedJobData>,
    _token?: string,
    signal?: AbortSignal,
  ): Promise<Record<string, number>> {
    const def = findJob(o.jobs, job.name);
    if (!def) throw new UnrecoverableError(`unknown job "${job.name}"`);
    active++;
    let summary: RunSummary;
    try {
      summary = await runJob(def, o.deps, {
        config: o.config,
        args: job.data.args,
        scope: job.data.slot ? `slot ${job.data.slot}` : `job ${job.id}`,
        ...(signal && { signal }),
        // Taken over from a worker that stopped holding it: the run that worker started says so.
        ...(job.stalledCounter > 0 && { takenOverBy: workerName }),
      });
    } finally {
      active--;
    }
    o.onRun?.(summary);
    for (const c of summary.continuations) {
      // Retention and retries: the queue's default job options (its backend's).
      await o.queue.add(c.job, { args: c.args }, { jobId: c.id, delay: c.delayMs });
    }
    if (summary.status === 'succeeded') {
      return {
        rowsWritten: summary.rowsWritten,
        requests: summary.requests,
        computeUnits: summary.computeUnits,
      };
    }
    throw await queueError(summary, async (ms) => {
      // Noted first: the PostgreSQL watch resets a limiter window longer than what was noted.
      await o.backend.noteRateLimit(ms);
      await o.queue.rateLimit(ms);
    });
  }

  const worker = o.backend.createWorker(process, {
    concurrency: o.config.service.concurrency,
    // A job whose worker died (killed with -9, its host gone) goes back to the queue once its lock
    // expires: BullMQ's defaults are both 30 s.
    name: workerName,
    lockDuration: o.config.service.stalledJobTimeout,
    stalledInterval: o.config.service.stalledJobTimeout,
    limiter: workerLimiter,
    autorun: true,
  });
  // An error answer (Redis at maxmemory: `OOM command not allowed…`; `-ERR`) makes BullMQ's main
  // loop emit it and ask again at once, with no pause (its retry delay is for connection errors
  // only): tens of thousands of lines a second. The worker pauses instead, for a capped, jittered
  // back-off, and resumes; the fault is logged once a minute per cause and counted.
  const faults = createFaultLog({
    log: o.log,
    subject: 'the worker cannot claim jobs',
    ...(o.onBackendFault && { onFault: o.onBackendFault }),
  });
  const cap = o.faultBackoffCapMs ?? FAULT_BACKOFF_CAP_MS;
  let consecutive = 0;
  let pausedUntil: number | undefined;
  let resumeTimer: NodeJS.Timeout | undefined;
  let quietTimer: NodeJS.Timeout | undefined;
  let stopped = false;
  // Whether a fault was logged since the last recovery: a worker that claims jobs with none (every
  // run) leaves the fault log alone.
  let faulted = false;
  const recovered = () => {
    if (!faulted) return;
    clearTimeout(quietTimer);
    quietTimer = undefined;
    if (pausedUntil !== undefined) return;
    consecutive = 0;
    faulted = false;
    for (const f of faults.current()) faults.ended(f.cause);
  };
  worker.on('error', (err) => {
    if (o.backend.knownFault(err)) return; // the backend says it, once
    if (isConnectionError(err)) return;
    const cause = backendFaultCause(err);
    // A failed handshake or a lying sentinel is a connection that does not come up: the connection
    // logs it once per outage and retries with its own back-off (BullMQ passes each attempt's error
    // on to the worker: a line per reconnect, before); pausing the worker would only delay recovery.
    if (cause === 'tls' || cause === 'sentinel') {
      o.onBackendFault?.(cause);
      return;
    }
    faults.seen(cause, err);
    faulted = true;
    if (stopped || pausedUntil !== undefined) return;
    consecutive++;
    const delay = faultBackoffMs(consecutive, cap);
    pausedUntil = Date.now() + delay;
    clearTimeout(quietTimer);
    void worker.pause(true).catch(() => undefined);
    resumeTimer = setTimeout(() => {
      pausedUntil = undefined;
      if (stopped) return;
      void worker.resume();
      // An idle worker may claim nothing for a while (it blocks waiting for a job): no new error
      // within two of its block times is a recovery too.
      quietTimer = setTimeout(recovered, 10_000);
    }, delay);
  });
  worker.on('active', recovered);
  worker.on('drained', recovered);
  worker.on('failed', (job, err) => {
    if (job && !(err instanceof RateLimitError)) {
      o.log.debug({ jobId: job.id, attemptsMade: job.attemptsMade, err: err.message }, 'queued job failed');
    }
  });

  let closing: Promise<void> | undefined;
  return {
    worker,
    active: () => active,
    claimProblem() {
      const [fault] = faults.current();
      if (!fault || (pausedUntil === undefined && quietTimer === undefined)) return undefined;
      const since = new Date(fault.sinceMs).toISOString();
      return `the worker cannot claim jobs since ${since} (${fault.cause}): ${fault.message}`;
    },
    close(graceMs) {
      closing ??= (async () => {
        stopped = true;
        clearTimeout(resumeTimer);
        clearTimeout(quietTimer);
        pausedUntil = undefined;
        await untilSetUp(worker);
        if (o.backendUp && !o.backendUp()) {
          // The backend is away (down, a TLS handshake that fails, no sentinel naming a valid
          // master): BullMQ's graceful close waits for connections that never come (it took the
          // whole deadline and was abandoned). Nothing can be handed back to it anyway: runs in
          // progress are interrupted (their job_runs rows say so, and their locks expire into the
          // stalled check), then the connections are dropped.
          if (active > 0) {
            worker.cancelAllJobs('interrupted by shutdown');
            const until = Date.now() + graceMs;
            while (active > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
          }
          await worker.close(true);
          return;
        }
        const closed = worker.close();
        let timer: NodeJS.Timeout | undefined;
        const grace = new Promise<'grace'>((resolve) => {
          timer = setTimeout(() => resolve('grace'), graceMs);
        });
        if ((await Promise.race([closed.then(() => 'closed' as const), grace])) === 'grace') {
          o.log.warn({ active, graceMs }, 'shutdown grace period over: interrupting active jobs');
          // Each active processor's signal aborts; its run records "interrupted by shutdown".
          worker.cancelAllJobs('interrupted by shutdown');
          await closed;
        }
        clearTimeout(timer);
      })();
      return closing;
    },
  };
}

/** The error a failed run gives BullMQ (its message is the scrubbed one job_runs keeps). */
async function queueError(summary: RunSummary, rateLimit: (ms: number) => Promise<void>): Promise<Error> {
  const message = summary.errorMessage ?? 'failed';
  const failure = summary.failure ?? { action: 'retry' };
  switch (failure.action) {
    case 'rate-limit':
      // The whole queue waits, not only this job; the job goes back to waiting without using an attempt.
      await rateLimit(failure.delayMs);
      return new RateLimitError(message);
    case 'give-up':
      return new UnrecoverableError(message);
    case 'retry':
      return new Error(message);
    default: {
      const never: never = failure;
      throw new Error(`unknown failure action ${JSON.stringify(never)}`);
    }
  }
}
