/**
 * A failed run's outcome, decided once: what the queue does next (retry with backoff, hold the whole
 * queue for a delay, or give up) and the reason metrics count it under. The worker maps the action
 * to BullMQ's vocabulary; `job_runs` keeps the message; `glacier_job_failures_total` the reason.
 */
import {
  BudgetExhaustedError,
  isUnrecoverable,
  PageTokenRepeatedError,
  UpstreamHttpError,
  UpstreamNetworkError,
  UpstreamResponseError,
} from '../upstream/index.js';
import { JobFailedError } from './job.js';

/** The `reason` label of `glacier_job_failures_total` (docs/metrics.md): a bounded set. */
export const FAILURE_REASONS = [
  'rate_limited',
  'client_error',
  'server_error',
  'network',
  'malformed_response',
  'aborted',
  'other',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

export type FailureAction =
  /** Another attempt may pass (a 5xx, a network fault, a database that went away): backoff. */
  | { action: 'retry' }
  /** The key's limit (a 429 the call could not wait out, the day's budget spent): hold everything that long. */
  | { action: 'rate-limit'; delayMs: number }
  /** Retrying this same run cannot help (400, 401, 403, 404, a malformed body, a bad job). */
  | { action: 'give-up' };

export type Failure = FailureAction & { reason: FailureReason };

/** When a 429 says nothing of when to come back. */
const DEFAULT_RATE_LIMIT_MS = 60_000;

/** How deep the cause chain is read: wrappers add a level each, never many. */
const MAX_DEPTH = 5;

/**
 * Walks the error and its causes once. The first error the collector knows decides the action (a
 * plain wrapper such as "could not record the end of the run" passes the decision on to its
 * cause); the first upstream error, or an abort, names the reason.
 */
export function classifyFailure(error: unknown): Failure {
  let decided: FailureAction | undefined;
  let reason: FailureReason | undefined;
  let err = error;
  for (let depth = 0; err instanceof Error && depth < MAX_DEPTH && !(decided && reason); depth++) {
    decided ??= actionOf(err);
    reason ??= reasonOf(err);
    err = err.cause;
  }
  return { ...(decided ?? { action: 'retry' }), reason: reason ?? 'other' };
}

/** The metrics' reason alone (kept for readers of one error, such as the docs' examples). */
export function failureReason(error: unknown): FailureReason {
  return classifyFailure(error).reason;
}

function actionOf(err: Error): FailureAction | undefined {
  if (err instanceof JobFailedError) {
    return err.options.unrecoverable ? { action: 'give-up' } : { action: 'retry' };
  }
  if (err instanceof BudgetExhaustedError) return { action: 'rate-limit', delayMs: err.retryAfterMs };
  if (err instanceof UpstreamHttpError && err.status === 429) {
    return { action: 'rate-limit', delayMs: err.retryAfterMs ?? DEFAULT_RATE_LIMIT_MS };
  }
  if (isUnrecoverable(err)) return { action: 'give-up' };
  if (
    err instanceof UpstreamHttpError ||
    err instanceof UpstreamResponseError ||
    err instanceof UpstreamNetworkError
  ) {
    return { action: 'retry' };
  }
  return undefined;
}

function reasonOf(err: Error): FailureReason | undefined {
  if (err instanceof UpstreamHttpError) {
    if (err.status === 429) return 'rate_limited';
    return err.status >= 500 ? 'server_error' : 'client_error';
  }
  if (err instanceof UpstreamNetworkError) return 'network';
  if (err instanceof UpstreamResponseError || err instanceof PageTokenRepeatedError) {
    return 'malformed_response';
  }
  if (err.name === 'AbortError') return 'aborted';
  return undefined;
}
