import { RateLimiterRes, type RateLimiterStoreAbstract } from 'rate-limiter-flexible';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';
import { abortableSleep } from '../runtime/sleep.js';
import { BudgetExhaustedError, type ComputeUnitBudget, type EndpointName } from '../upstream/index.js';
import type { QueueBackend } from './backend.js';

/**
 * The compute-unit budget of one API key, shared by every worker through the queue's backend (Redis
 * or PostgreSQL): each request takes
 * its endpoint's units before it is sent, so N workers together stay within the key's limits.
 *
 * - Windows are aligned to the clock (the minute, the UTC day), as the API counts them: each window
 *   is its own rate-limiter-flexible key (`m<minute>`, `d<day>`), so two windows never overlap and a
 *   burst at a window's end cannot double up with the next one's.
 * - A request that does not fit waits for the next minute; one that does not fit today fails the
 *   call with BudgetExhaustedError (the queue holds every job until the day turns).
 * - A 429 from the API pauses every holder of the budget for its `retry-after`: one shared key whose
 *   time to live is the pause.
 * - A backend that does not answer (a Sentinel failover, a restart) is waited out for up to
 *   OUTAGE_WAIT_MS, each call tried again with backoff, before the request fails with an error that
 *   says so: a run writing during a failover goes on instead of failing.
 */
export interface SharedBudget extends ComputeUnitBudget {
  snapshot(): Promise<BudgetSnapshot>;
  /** Milliseconds the budget is paused for after a 429 (0 when not paused). */
  pausedForMs(): Promise<number>;
  /**
   * Today's (UTC) spending as the database records it, for a queue backend that lost it (Redis
   * flushed, or restarted without persistence): added to the day's window where the backend holds less.
   */
  restoreDay(spent: number): Promise<void>;
}

export interface BudgetSnapshot {
  perMinute: number;
  perDay: number;
  remainingMinute: number;
  remainingDay: number;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/**
 * How long a request waits for the budget's backend to answer again: a Sentinel failover takes a few
 * seconds (down-after-milliseconds plus the election), a Redis or PostgreSQL restart a few more.
 */
export const OUTAGE_WAIT_MS = 30_000;
const OUTAGE_RETRY_MAX_DELAY_MS = 2_000;

export interface BudgetOptions {
  backend: Pick<QueueBackend, 'createLimiter' | 'shared' | 'name'>;
  /** Key prefix under the collector's, e.g. `budget`. */
  prefix: string;
  perMinute: number;
  perDay: number;
  clock: Clock;
  log: Logger;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export function createSharedBudget(o: BudgetOptions): SharedBudget {
  const sleep = o.sleep ?? abortableSleep;
  const minute = o.backend.createLimiter({ keyPrefix: `${o.prefix}:cu`, points: o.perMinute, duration: 60 });
  const day = o.backend.createLimiter({ keyPrefix: `${o.prefix}:cu`, points: o.perDay, duration: 86_400 });
  const { shared } = o.backend;
  const pauseKey = `${o.prefix}:paused`;
  const minuteKey = (now: number) => `m${Math.floor(now / MINUTE_MS)}`;
  const dayKey = (now: number) => `d${Math.floor(now / DAY_MS)}`;

  /**
   * `call`, tried again with backoff while the backend does not answer, for up to OUTAGE_WAIT_MS of
   * waiting; a refusal of the limiter (RateLimiterRes) is an answer. (A consume whose reply was lost
   * with the connection is counted twice: the budget errs on the side of spending less.)
   */
  async function answered<T>(call: () => Promise<T>, signal: AbortSignal): Promise<T> {
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        if (err instanceof RateLimiterRes) throw err;
        const delay = Math.min(OUTAGE_RETRY_MAX_DELAY_MS, 100 * 2 ** attempt);
        if (waited + delay > OUTAGE_WAIT_MS) {
          throw new Error(
            `the compute-unit budget's ${o.backend.name} did not answer for ${OUTAGE_WAIT_MS / 1_000} s: ${(err as Error).message}`,
            { cause: err },
          );
        }
        await sleep(delay, signal);
        waited += delay;
      }
    }
  }

  /** Consumes `cu`; undefined on success, else the RateLimiterRes of the refusal (points given back). */
  async function take(
    limiter: RateLimiterStoreAbstract,
    key: string,
    cu: number,
    signal: AbortSignal,
  ): Promise<RateLimiterRes | undefined> {
    try {
      await answered(() => limiter.consume(key, cu), signal);
      return undefined;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      // A refused consume still counted its points: give them back so the window stays exact.
      await answered(() => limiter.reward(key, cu), signal);
      return err;
    }
  }

  const pausedForMs = () => shared.ttlMs(pauseKey);

  return {
    pausedForMs,
    async acquire(endpoint: EndpointName, cu: number, signal: AbortSignal) {
      if (cu > o.perMinute) {
        throw new Error(
          `${endpoint} costs ${cu} CU, more than budget.computeUnitsPerMinute (${o.perMinute})`,
        );
      }
      for (;;) {
        signal.throwIfAborted();
        const paused = await answered(pausedForMs, signal);
        if (paused > 0) {
          await sleep(paused, signal);
          continue;
        }
        const now = o.clock.now();
        if (await take(day, dayKey(now), cu, signal)) {
          throw new BudgetExhaustedError(o.perDay, DAY_MS - (now % DAY_MS));
        }
        if (!(await take(minute, minuteKey(now), cu, signal))) return;
        await answered(() => day.reward(dayKey(now), cu), signal);
        await sleep(MINUTE_MS - (now % MINUTE_MS) + 5, signal);
      }
    },
    pause(delayMs) {
      const ms = Math.max(1, Math.ceil(delayMs));
      // Only ever lengthen a pause.
      shared
        .lengthen(pauseKey, ms)
        .catch((err: Error) =>
          o.log.warn({ err: err.message }, `could not share a 429 pause through ${o.backend.name}`),
        );
      o.log.warn({ pauseMs: ms }, 'the API answered 429: every worker pauses');
    },
    async restoreDay(spent) {
      const key = dayKey(o.clock.now());
      const held = (await day.get(key))?.consumedPoints ?? 0;
      if (spent > held) await day.penalty(key, spent - held);
    },
    async snapshot() {
      const now = o.clock.now();
      const [m, d] = await Promise.all([minute.get(minuteKey(now)), day.get(dayKey(now))]);
      return {
        perMinute: o.perMinute,
        perDay: o.perDay,
        remainingMinute: Math.max(0, o.perMinute - (m?.consumedPoints ?? 0)),
        remainingDay: Math.max(0, o.perDay - (d?.consumedPoints ?? 0)),
      };
    },
  };
}
