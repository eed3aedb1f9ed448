/**
 * The export lifecycle's decisions as pure functions: when a window may be asked for (again), how
 * long to wait before the next status read, and how long before a retry.
 */
import type { ClaimDecision, LatestClaim } from '../store/index.js';
import { defaultRetryPolicy, retryDelayMs } from '../upstream/retry.js';

/**
 * How long a claim without an operation id holds its window. A claim is taken just before the POST
 * and completed as soon as it answers, so one still empty after this long was cut short by a crash
 * (or a kill) between the two: the window is claimed again. It must exceed the longest POST call
 * (`client.callTimeout`, 2 minutes by default), or a slow POST could be doubled.
 */
export const CLAIM_LEASE_MS = 15 * 60_000;

/**
 * The first status read comes this soon after the POST (or `pollInterval`, if shorter): a small
 * export is done in seconds, and waiting a whole `pollInterval` for it made `run exports` wait 30 s
 * for a file ready in 5.
 */
export const FIRST_POLL_MS = 2_000;
/** Growth of the delay from the first read up to `pollInterval`: 2 s, 4 s, 8 s, 16 s, then 30 s. */
const RAMP_GROWTH = 2;
/** Growth of the delay past `pollInterval`, up to `maxPollInterval`. */
const POLL_GROWTH = 1.5;

export interface LifecycleSettings {
  pollInterval: number;
  maxPollInterval: number;
  timeout: number;
  maxRetries: number;
  retryDelay: number;
}

/**
 * Delay before status read number `reads + 1`: soon after the POST, doubling up to `pollInterval`
 * (2 s, 4 s, 8 s, 16 s, then 30 s by default), then growing 1.5 times a read up to
 * `maxPollInterval`. Against a fixed short interval it reads a long export a few dozen times fewer
 * (compute units); against starting at `pollInterval`, it reads any export four more times at most
 * and sees a small one done within seconds.
 */
export function pollDelayMs(
  reads: number,
  s: Pick<LifecycleSettings, 'pollInterval' | 'maxPollInterval'>,
): number {
  const first = Math.min(FIRST_POLL_MS, s.pollInterval);
  // The reads before the delay reaches pollInterval.
  const ramp = Math.ceil(Math.log(s.pollInterval / first) / Math.log(RAMP_GROWTH) - 1e-9);
  if (reads < ramp) return Math.round(Math.min(s.pollInterval, first * RAMP_GROWTH ** reads));
  const past = Math.min(reads - ramp, 64);
  return Math.round(Math.min(s.maxPollInterval, s.pollInterval * POLL_GROWTH ** past));
}

/** Longest backoff before a retry: retryDelay doubled per retry already made, at most a day. */
const MAX_RETRY_DELAY_MS = 86_400_000;

/**
 * Delay before retry number `attempt` of a window (after its try number `attempt` failed): the
 * upstream client's backoff function with this section's base delay, jittered within [d/2, d].
 */
export function retryBackoffMs(
  attempt: number,
  s: Pick<LifecycleSettings, 'retryDelay'>,
  random = Math.random,
): number {
  return retryDelayMs(
    attempt,
    { ...defaultRetryPolicy, baseDelayMs: s.retryDelay, maxDelayMs: MAX_RETRY_DELAY_MS },
    { nowMs: 0 },
    random,
  );
}

/** Why a failed try may or may not be retried. */
export function isRetryableFailure(op: {
  status: string;
  code: string | null;
  gaveUpAt: string | null;
}): boolean {
  if (op.gaveUpAt) return true;
  return op.status === 'FAILED' && op.code !== 'ErrInvalidRequest';
}

/**
 * Judges a window's newest claim: take it (attempt 1, or the next attempt after a retryable
 * failure whose backoff has passed), take over a claim abandoned by a crash, or leave it alone.
 * `backoffPassed` is skipped for a retry the queue already delayed.
 */
export function decideClaim(
  latest: LatestClaim | undefined,
  s: Pick<LifecycleSettings, 'maxRetries' | 'retryDelay'>,
  nowMs: number,
  options: { ignoreBackoff?: boolean } = {},
): ClaimDecision {
  if (!latest) return { claim: 1 };
  const { claim, operation: op } = latest;
  if (claim.error) return { skip: `the API refused it: ${claim.error}` };
  if (!op) {
    return nowMs - Date.parse(claim.claimedAt) > CLAIM_LEASE_MS
      ? { claim: claim.attempt, takeOver: true }
      : { skip: 'being created by another run' };
  }
  if (!isRetryableFailure(op)) {
    if (op.status === 'FAILED')
      return { skip: 'it failed with ErrInvalidRequest: change the definition to try again' };
    return { skip: op.status === 'RUNNING' ? 'running' : 'done' };
  }
  if (claim.attempt > s.maxRetries) return { skip: `no retries left after ${claim.attempt} tries` };
  if (!options.ignoreBackoff) {
    const failedAt = Date.parse(op.gaveUpAt ?? op.polledAt ?? op.recordedAt);
    // The smallest backoff the jitter can give: the queue's delayed retry is never refused.
    const earliest = failedAt + retryBackoffMs(claim.attempt, s, () => 0);
    if (nowMs < earliest) return { skip: 'waiting for its retry backoff' };
  }
  return { claim: claim.attempt + 1 };
}
