/** Time as a dependency: jobs, the client's backoff and the simulator's "alive" data all read it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/**
 * `Date.now` itself, which needs no `this`: a reader of `clock.now()` on a run has nothing of this
 * file to open. (A fake `Date` installed later is not seen: tests pass a manual clock instead.)
 */
export const systemClock: Clock = { now: Date.now };

/** A clock that only moves when told to: for tests and for the simulator's reproducible runs. */
export interface ManualClock extends Clock {
  set(ms: number): void;
  advance(ms: number): void;
}

export function createManualClock(startMs: number): ManualClock {
  let current = startMs;
  return {
    now: () => current,
    set: (ms) => {
      current = ms;
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

/**
 * Unix milliseconds as ISO-8601 UTC, or `invalid: <value>` when no date holds it (a time a past
 * version or a hostile upstream left in the database): readers show it rather than fail on it.
 */
export function isoOfMs(ms: unknown): string {
  const date = new Date(Number(ms));
  return Number.isNaN(date.getTime()) ? `invalid: ${String(ms)}` : date.toISOString();
}

/** Unix seconds as ISO-8601 UTC, or `invalid: <value>` (see isoOfMs). */
export function isoOfSeconds(seconds: unknown): string {
  const n = Number(seconds);
  return Number.isFinite(n)
    ? isoOfMs(n * 1000).replace(/^invalid: .*/, `invalid: ${String(seconds)}`)
    : `invalid: ${String(seconds)}`;
}
