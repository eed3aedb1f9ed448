import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import { finishJobRun, type Store, startJobRun } from './store/index.js';
import { createMeter, type DataApiClient } from './upstream/index.js';

/** What a job handler gets: the real instances, built once by the entry point. */
export interface JobContext {
  client: DataApiClient;
  store: Store;
  log: Logger;
  clock: Clock;
  signal: AbortSignal;
}

export interface JobResult {
  rowsWritten: number;
}

/** A job: a plain function that knows nothing of BullMQ. `run <job>` and the worker both call it. */
export type JobHandler<P> = (payload: P, ctx: JobContext) => Promise<JobResult>;

export interface RunSummary {
  job: string;
  scope: string;
  runId: number;
  status: 'succeeded' | 'failed';
  rowsWritten: number;
  requests: number;
  computeUnits: number;
  durationMs: number;
  error?: Error | undefined;
}

export interface RunJobDeps extends Omit<JobContext, 'signal'> {
  /** Strings that must never reach the database or the logs, whatever an error says (the API key). */
  secrets?: readonly string[];
}

/**
 * Runs one job once: a `job_runs` row before and after, requests and compute units counted by a
 * meter of its own, and one log line with the outcome. Never throws; the summary says how it went.
 */
export async function runJob<P>(
  job: string,
  handler: JobHandler<P>,
  payload: P,
  deps: RunJobDeps,
  options: { scope?: string; signal?: AbortSignal } = {},
): Promise<RunSummary> {
  const scope = options.scope ?? 'all';
  const started = deps.clock.now();
  const runId = startJobRun(deps.store, job, scope, new Date(started).toISOString());
  const meter = createMeter();
  const signal = options.signal ?? new AbortController().signal;
  const log = deps.log.child({ job, scope, runId });
  const ctx: JobContext = { ...deps, log, signal, client: deps.client.scoped({ meter, signal }) };
  let rowsWritten = 0;
  let error: Error | undefined;
  try {
    rowsWritten = (await handler(payload, ctx)).rowsWritten;
  } catch (err) {
    error = err instanceof Error ? err : new Error(String(err));
  }
  const usage = meter.snapshot();
  const finished = deps.clock.now();
  const message = error ? scrub(describeError(error), deps.secrets ?? []) : undefined;
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
  };
  finishJobRun(deps.store, runId, {
    status: summary.status,
    finishedAt: new Date(finished).toISOString(),
    rowsWritten,
    requests: usage.requests,
    computeUnits: usage.computeUnits,
    error: message,
  });
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

function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join('***');
  return out;
}
