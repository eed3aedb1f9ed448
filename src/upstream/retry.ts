/**
 * The retry policy as data, and one pure function that says how long to wait before the next attempt.
 * The request loop (http.ts) decides *whether* to retry; this file decides *how long*.
 */

export interface RetryPolicy {
  /** Attempts per call, the first included. */
  maxAttempts: number;
  /** Backoff of the first retry (before jitter); doubles with each further retry. */
  baseDelayMs: number;
  /** Cap of the exponential backoff. */
  maxDelayMs: number;
  /**
   * Longest wait the client accepts from `retry-after` / `ratelimit-reset`. If the upstream asks for
   * more, the call gives up at once with the 429 (carrying `retryAfterMs`) instead of holding a job
   * and its connection for minutes: the queue reschedules the job, which is cheaper than sleeping.
   */
  maxRetryAfterMs: number;
  /** Statuses worth another attempt. Any other non-success status fails the call at once. */
  retryableStatuses: ReadonlySet<number>;
}

export const defaultRetryPolicy: RetryPolicy = {
  // Also the config's default (client.maxAttempts).
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 60_000,
  retryableStatuses: new Set([
    // Request Timeout: the server gave up waiting for our request (an idle keep-alive socket); resending is safe.
    408,
    // Too Many Requests: over the compute-unit budget; wait as told by retry-after / ratelimit-reset.
    429,
    // Internal Server Error, Bad Gateway, Service Unavailable, Gateway Timeout: the upstream or its
    // gateway failed transiently. (The only POST, export creation, may then create a second export
    // operation; that is harmless: the job polls the operation id it received.)
    500, 502, 503, 504,
  ]),
};

export interface RetryHints {
  /** The `retry-after` header: delay in seconds or an HTTP date. */
  retryAfter?: string | null | undefined;
  /** The `ratelimit-reset` header: seconds until the budget resets. */
  rateLimitReset?: string | null | undefined;
  /** Current time, to turn an HTTP date into a delay. */
  nowMs: number;
}

/** `ratelimit-reset` values this large are Unix times in seconds, not delays (some gateways send those). */
const EPOCH_SECONDS_THRESHOLD = 1_000_000_000;

function secondsToMs(value: string): number | undefined {
  if (!/^\d+(\.\d+)?$/.test(value)) return undefined;
  return Math.ceil(Number(value) * 1000);
}

/** The delay the upstream asked for, in ms, or undefined if it gave no usable hint. */
export function hintedDelayMs(hints: RetryHints): number | undefined {
  const retryAfter = hints.retryAfter?.trim();
  if (retryAfter) {
    const seconds = secondsToMs(retryAfter);
    if (seconds !== undefined) return seconds;
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - hints.nowMs);
  }
  const reset = hints.rateLimitReset?.trim();
  if (reset) {
    const ms = secondsToMs(reset);
    if (ms !== undefined) return ms >= EPOCH_SECONDS_THRESHOLD * 1000 ? Math.max(0, ms - hints.nowMs) : ms;
  }
  return undefined;
}

/**
 * Milliseconds to wait after failed attempt number `attempt` (1 = the first request) before the next.
 *
 * - With a `retry-after` (seconds or HTTP date) or, failing that, a `ratelimit-reset` (seconds): that
 *   delay plus a jitter of up to min(baseDelayMs, 1 s), so clients told the same instant do not all
 *   return at once; never more than `maxRetryAfterMs`.
 * - If the hint asks for more than `maxRetryAfterMs`: `Infinity`, meaning "give up now" (see RetryPolicy).
 * - Otherwise capped exponential backoff with equal jitter: with `d = min(maxDelayMs, baseDelayMs·2^(attempt-1))`,
 *   a delay in [d/2, d]. Equal rather than full jitter keeps a floor under the wait, so a struggling
 *   upstream is never hit again immediately.
 */
export function retryDelayMs(
  attempt: number,
  policy: RetryPolicy,
  hints: RetryHints,
  random: () => number,
): number {
  const hinted = hintedDelayMs(hints);
  if (hinted !== undefined) {
    if (hinted > policy.maxRetryAfterMs) return Number.POSITIVE_INFINITY;
    const jitter = Math.floor(random() * Math.min(policy.baseDelayMs, 1000));
    return Math.min(policy.maxRetryAfterMs, hinted + jitter);
  }
  const exponent = Math.max(0, Math.floor(attempt) - 1);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
