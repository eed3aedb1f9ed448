import { hostname } from 'node:os';
import { type Job as BullJob, type Queue, RateLimitError, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../config/index.js';
import type { Job } from '../kernel/job.js';
import { JobFailedError, type RunJobDeps, type RunSummary, runJob } from '../kernel/run.js';
import type { Logger } from '../runtime/logger.js';
import { failAbandonedRuns } from '../store/index.js';
import { isUnrecoverable, UpstreamHttpError } from '../upstream/index.js';
import { BudgetExhaustedError } from './budget.js';
import { QUEUE_NAME, type QueuedJobData, retention, retries } from './jobs.js';

export interface WorkerOptions {
  config: Config;
  jobs: readonly Job[];
  /** A connection with `maxRetriesPerRequest: null` (BullMQ duplicates it for blocking reads). */
  connection: Redis;
  /** Where continuations are added. */
  queue: Queue<QueuedJobData>;
  deps: RunJobDeps;
  log: Logger;
  onRun?: (summary: RunSummary) => void;
}

export interface CollectorWorker {
  readonly worker: Worker<QueuedJobData>;
  /** Runs in progress. */
  active(): number;
  /**
   * Stops taking jobs, lets the active ones finish for up to `graceMs`, then aborts them (their
   * job_runs rows say "interrupted") and closes.
   */
  close(graceMs: number): Promise<void>;
}

/**
 * The queue layer: a thin adapter from a BullMQ job to `runJob` (the same handlers and `job_runs`
 * rows as `run <job>`) and from the run's outcome back to BullMQ's vocabulary:
 * - success: its continuations (an export's next status read) become delayed jobs;
 * - a 429 the call could not wait out, or the day's budget spent: the whole queue is rate limited
 *   for that long (`queue.rateLimit` + `RateLimitError`: the job waits without using an attempt);
 * - what retrying cannot fix (400, 401, 403, 404, a malformed body, an unconfigured job):
 *   `UnrecoverableError`, no further attempt;
 * - anything else: a plain error, retried with backoff (`retries` in jobs.ts).
 */
export function createCollectorWorker(o: WorkerOptions): CollectorWorker {
  const running = new Map<string, AbortController>();
  // Shown as each job's `processedBy`: which host and process runs (or ran) it.
  const workerName = `${hostname()}:${globalThis.process.pid}`;

  async function process(job: BullJob<QueuedJobData>): Promise<Record<string, number>> {
    const def = o.jobs.find((j) => j.name === job.name);
    if (!def) throw new UnrecoverableError(`unknown job "${job.name}"`);
    const prepared = def.prepare(o.config, job.data.args);
    if (!prepared) throw new UnrecoverableError(`jobs.${def.configKey} is not configured`);

    const scope = job.data.slot ? `slot ${job.data.slot}` : `job ${job.id}`;
    if (job.stalledCounter > 0) {
      // Taken over from a worker that stopped holding it: the run it started says so, rather than
      // `running` for ever.
      const marked = await failAbandonedRuns(o.deps.store, {
        job: def.name,
        scope,
        at: new Date().toISOString(),
        error: `interrupted: its worker stopped before the run finished; the job was taken over by ${workerName}`,
      });
      if (marked > 0)
        o.log.warn({ job: def.name, scope, runs: marked }, 'run of a stopped worker marked failed');
    }

    const abort = new AbortController();
    const key = job.id ?? `${job.name}-${Date.now()}`;
    running.set(key, abort);
    let summary: RunSummary;
    try {
      summary = await runJob(def.name, (_: undefined, ctx) => prepared.run(ctx), undefined, o.deps, {
        scope,
        signal: abort.signal,
      });
    } finally {
      running.delete(key);
    }
    o.onRun?.(summary);
    for (const c of summary.continuations) {
      await o.queue.add(c.job, { args: c.args }, { ...retention, ...retries, jobId: c.id, delay: c.delayMs });
    }
    if (summary.status === 'succeeded') {
      return {
        rowsWritten: summary.rowsWritten,
        requests: summary.requests,
        computeUnits: summary.computeUnits,
      };
    }
    throw await queueError(summary, (ms) => o.queue.rateLimit(ms));
  }

  const worker = new Worker<QueuedJobData>(QUEUE_NAME, process, {
    connection: o.connection,
    prefix: o.config.service.queuePrefix,
    concurrency: o.config.service.concurrency,
    // A job whose worker died (killed with -9, its host gone) goes back to the queue once its lock
    // expires: BullMQ's defaults are both 30 s.
    name: workerName,
    lockDuration: o.config.service.stalledJobTimeout,
    stalledInterval: o.config.service.stalledJobTimeout,
    // Needed for queue.rateLimit() to hold jobs back; high enough never to limit on its own.
    limiter: { max: 10_000, duration: 1_000 },
    autorun: true,
  });
  worker.on('error', (err) => {
    // Connection errors are logged once per outage by the connection itself.
    if (!/ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|Connection is closed/.test(err.message)) {
      o.log.error({ err: err.message }, 'worker error');
    }
  });
  worker.on('failed', (job, err) => {
    if (job && !(err instanceof RateLimitError)) {
      o.log.debug({ jobId: job.id, attemptsMade: job.attemptsMade, err: err.message }, 'queued job failed');
    }
  });

  let closing: Promise<void> | undefined;
  return {
    worker,
    active: () => running.size,
    close(graceMs) {
      closing ??= (async () => {
        const closed = worker.close();
        let timer: NodeJS.Timeout | undefined;
        const grace = new Promise<'grace'>((resolve) => {
          timer = setTimeout(() => resolve('grace'), graceMs);
        });
        if ((await Promise.race([closed.then(() => 'closed' as const), grace])) === 'grace') {
          o.log.warn(
            { active: running.size, graceMs },
            'shutdown grace period over: interrupting active jobs',
          );
          for (const abort of running.values()) abort.abort(new Error('interrupted by shutdown'));
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
  const err = summary.error;
  const message = summary.errorMessage ?? 'failed';
  const waitMs =
    err instanceof BudgetExhaustedError
      ? err.retryAfterMs
      : err instanceof UpstreamHttpError && err.status === 429
        ? (err.retryAfterMs ?? 60_000)
        : undefined;
  if (waitMs !== undefined) {
    // The whole queue waits, not only this job; the job goes back to waiting without using an attempt.
    await rateLimit(waitMs);
    return new RateLimitError(message);
  }
  const unrecoverable =
    isUnrecoverable(err) || (err instanceof JobFailedError && err.options.unrecoverable === true);
  return unrecoverable ? new UnrecoverableError(message) : new Error(message);
}
