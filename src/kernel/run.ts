import { scrubSecrets } from '../escape/secrets.js';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';
import { finishJobRun, type Store, startJobRun } from '../store/index.js';
import { createMeter, type DataApiClient } from '../upstream/index.js';

/** What a job handler gets: the real instances, built once by the entry point. */
export interface JobContext {
  client: DataApiClient;
  store: Store;
  log: Logger;
  clock: Clock;
  signal: AbortSignal;
  /**
   * Counts rows a committed transaction wrote (new or changed). Call it right after each commit:
   * the run's `rows_written` is the sum, so a run that fails half-way still says what it committed.
   */
  countRows(n: number): void;
  /** Progress of long work (a backfill, a download), for a terminal; a no-op elsewhere. */
  progress: ProgressSink;
  /** What must never be stored or logged (the API key…): scrub upstream text with src/escape/secrets.ts. */
  secrets?: readonly string[];
}

/** What long work reports; the CLI draws it in a terminal, everything else ignores it. */
export interface ProgressSink {
  /** `done` of `total` (unknown total: undefined) units of the named task; `unit` e.g. 'pages', 'bytes'. */
  update(task: string, done: number, total?: number, unit?: string): void;
  /** The named task is over (its bar is removed). */
  end(task: string): void;
}

export const silentProgress: ProgressSink = { update: () => undefined, end: () => undefined };

/**
 * Follow-up work a run asks the queue for (an export's next status read): enqueued as a delayed
 * job when the run succeeds. The CLI's one-shot path does not use them.
 */
export interface Continuation {
  /** A job name of jobs/index.ts. */
  job: string;
  /** Job data: small and secret-free; merged over that job's payload built from the current config. */
  args: Record<string, unknown>;
  delayMs: number;
  /** Dedupe id: a continuation asked for twice (a retried run) is enqueued once. No ':' in it. */
  id: string;
}

/**
 * A failed run that still asks for follow-up work (an export FAILED upstream with ErrInternal: the
 * run fails so monitoring sees it, and a retry is scheduled). `unrecoverable`: retrying this same
 * run cannot help, so the queue does not retry it (the continuations are the retry).
 */
export class JobFailedError extends Error {
  override readonly name = 'JobFailedError';
  constructor(
    message: string,
    readonly options: { continuations?: Continuation[]; unrecoverable?: boolean; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
  }
}

export interface JobResult {
  continuations?: Continuation[];
}

/** A job: a plain function that knows nothing of BullMQ. `run <job>` and the worker both call it. */
export type JobHandler<P> = (payload: P, ctx: JobContext) => Promise<JobResult | undefined | void>;

export interface RunSummary {
  job: string;
  scope: string;
  /** Its `job_runs` row; undefined when the run could not even be recorded (the database is down). */
  runId: number | undefined;
  status: 'succeeded' | 'failed';
  rowsWritten: number;
  requests: number;
  computeUnits: number;
  durationMs: number;
  error?: Error | undefined;
  /** The error and its causes as one line, secrets scrubbed: what job_runs and the queue keep. */
  errorMessage?: string | undefined;
  continuations: Continuation[];
}

export interface RunJobDeps extends Omit<JobContext, 'signal' | 'countRows' | 'progress'> {
  /** Strings that must never reach the database or the logs, whatever an error says (the API key). */
  secrets?: readonly string[];
}

/**
 * Runs one job once: a `job_runs` row before and after, requests and compute units counted by a
 * meter of its own, and one log line with the outcome. Never throws; the summary says how it went.
 * A database that cannot record the run (it went away) fails the run, as the handler's own error
 * would: the queue retries it.
 */
export async function runJob<P>(
  job: string,
  handler: JobHandler<P>,
  payload: P,
  deps: RunJobDeps,
  options: { scope?: string; signal?: AbortSignal; progress?: ProgressSink } = {},
): Promise<RunSummary> {
  const scope = options.scope ?? 'all';
  const started = deps.clock.now();
  const meter = createMeter();
  let log = deps.log.child({ job, scope });
  let runId: number | undefined;
  let rowsWritten = 0;
  let continuations: Continuation[] = [];
  let error: Error | undefined;
  try {
    runId = await startJobRun(deps.store, job, scope, new Date(started).toISOString());
  } catch (err) {
    // Without its row the handler does not run: nothing it wrote could be told apart.
    error = new Error('could not record the start of the run in job_runs', { cause: err });
  }
  if (runId !== undefined) {
    log = log.child({ runId });
    const signal = options.signal ?? new AbortController().signal;
    const ctx: JobContext = {
      ...deps,
      log,
      signal,
      client: deps.client.scoped({ meter, signal }),
      countRows: (n) => {
        rowsWritten += n;
      },
      progress: options.progress ?? silentProgress,
    };
    try {
      continuations = (await handler(payload, ctx))?.continuations ?? [];
    } catch (err) {
      error = asError(err);
    }
  }
  const usage = meter.snapshot();
  const finished = deps.clock.now();
  const describe = (e: Error) => scrubSecrets(describeError(e), deps.secrets ?? []);
  if (runId !== undefined) {
    try {
      await finishJobRun(deps.store, runId, {
        status: error ? 'failed' : 'succeeded',
        finishedAt: new Date(finished).toISOString(),
        rowsWritten,
        requests: usage.requests,
        computeUnits: usage.computeUnits,
        error: error ? describe(error) : undefined,
      });
    } catch (err) {
      // The row stays `running`; the run fails whatever the handler did (what it committed stays).
      const recordError = new Error('could not record the end of the run in job_runs', { cause: err });
      if (error) log.error({ err: describe(recordError) }, recordError.message);
      error ??= recordError;
    }
  }
  const message = error ? describe(error) : undefined;
  const summary: RunSummary = {
    job,
    scope,
    runId,
    status: error ? 'failed' : 'succeeded',
    rowsWritten,
    requests: usage.requests,
    computeUnits: usage.computeUnits,
    durationMs: finished - started,
    error,
    errorMessage: message,
    // A JobFailedError may still ask for follow-ups; any other failure drops them.
    continuations: !error
      ? continuations
      : error instanceof JobFailedError
        ? (error.options.continuations ?? [])
        : [],
  };
  const line = {
    status: summary.status,
    rowsWritten,
    requests: usage.requests,
    computeUnits: usage.computeUnits,
    durationMs: summary.durationMs,
  };
  if (error) log.error({ ...line, err: message }, 'job run failed');
  else log.info(line, 'job run');
  return summary;
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** The error's message with its causes: "[GET] /v1/transactions: 503 …: caused by …". */
export function describeError(error: Error): string {
  const parts = [error.message];
  let cause = error.cause;
  for (let depth = 0; cause instanceof Error && depth < 3; depth++) {
    parts.push(`caused by ${cause.message}`);
    cause = cause.cause;
  }
  return parts.join(': ');
}
