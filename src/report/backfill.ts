import { historyMs } from '../config/durations.js';
import { isoOfMs } from '../runtime/clock.js';
import { endpoints } from '../upstream/endpoints.js';

/**
 * How far the first backfill of each rewards batch got, and when it should end. The first run of
 * a batch reads its whole history newest first, `maxPages` pages per run, and each page's cursor
 * carries the progress (src/sync/newest-first.ts), so this reads it back from the database.
 *
 * The estimate (docs/collection.md, "How long a first backfill takes"): a started batch's rewards
 * per second of history so far, times the history still to read (down to the history start),
 * gives its pages left; a batch not started yet is assumed to hold `ASSUMED_REWARDS_PER_ID_PER_DAY`.
 * Pages × 100 compute units is what is left to spend; the time is the longer of what the budget
 * allows (per minute, and per UTC day from what today's runs spent) and what the schedule allows
 * (`maxPages` pages per batch per run).
 */

/**
 * Avalanche's Primary Network launched on 2020-09-21 (mainnet; Fuji with it): no reward ended
 * before, so it is the history start when none is given.
 */
export const NETWORK_LAUNCH_MS = Date.UTC(2020, 8, 21);

/**
 * Rewards per address or node id per day when nothing is known yet (`plan`, a batch not started):
 * a stake ends at the earliest 14 days after it starts (the Primary Network's minimum staking
 * period), and a node id's delegation pays two outputs (the delegator's reward and the fee).
 */
export const ASSUMED_REWARDS_PER_ID_PER_DAY = { addresses: 1 / 14, nodeIds: 2 / 14 } as const;

const DAY_SECONDS = 86_400;
const PAGE_CU = endpoints.rewards.computeUnits;

/** `--history <duration>` as the history start (Unix ms), or the network's launch without one. */
export function historyStart(history: string | undefined, nowMs: number): number {
  if (history === undefined) return NETWORK_LAUNCH_MS;
  const ms = historyMs(history);
  if (ms === undefined) {
    throw new RangeError(`--history "${history}": not a number of days; use e.g. 730d (two years)`);
  }
  return nowMs - ms;
}

export interface BatchBackfill {
  kind: 'addresses' | 'nodeIds';
  /** 1-based position among the run's batches (the metric's `batch` label). */
  batch: number;
  ids: number;
  /** The batch's first address or node id, to tell batches apart. */
  firstId: string;
  /** Some page of it was read. */
  started: boolean;
  complete: boolean;
  pages: number;
  rewards: number;
  /** End time of the oldest reward reached, ISO-8601 UTC. */
  oldestReward: string | null;
  /** Estimated pages still to read (0 once complete). */
  pagesLeft: number;
}

export interface BackfillEstimate {
  computeUnitsLeft: number;
  pagesLeft: number;
  /** What the budget allows, seconds: per-minute pace, and the per-day budget left today then whole days. */
  budgetSeconds: number;
  /** What the schedule allows, seconds: runs needed (maxPages per batch each) × the schedule's interval. */
  scheduleSeconds: number;
  /** From now: the wait for the run that reads the next pages, then the budget's or the schedule's pace. */
  seconds: number;
  /** Seconds until that run starts (the job's next slot when none is going). */
  waitSeconds?: number;
  limitedBy: 'budget' | 'schedule' | 'nothing left';
  /** now + seconds, ISO-8601 UTC; null when complete. */
  finishesAt: string | null;
}

export interface RewardsBackfill {
  network: string;
  currency: string;
  /** Where the estimate assumes the history starts, ISO-8601 UTC. */
  historyStart: string;
  complete: boolean;
  batches: BatchBackfill[];
  budget: { computeUnitsPerMinute: number; computeUnitsPerDay: number; spentToday: number };
  estimate: BackfillEstimate;
}

/** Pages a batch of `ids` ids holds over `seconds` of history, at the assumed rate. */
export function assumedPages(
  kind: 'addresses' | 'nodeIds',
  ids: number,
  seconds: number,
  pageSize: number,
): number {
  const rewards = ids * ASSUMED_REWARDS_PER_ID_PER_DAY[kind] * (Math.max(0, seconds) / DAY_SECONDS);
  return Math.max(1, Math.ceil(rewards / pageSize));
}

/** Pages left of a started, incomplete batch: its density so far over the history still unread. */
export function pagesLeftOf(
  progress: { items: number; oldestSec: number; newestSec: number },
  historyStartSec: number,
  pageSize: number,
): number | undefined {
  const span = progress.newestSec - progress.oldestSec;
  if (span <= 0 || progress.items === 0) return undefined;
  const left = (progress.items / span) * Math.max(0, progress.oldestSec - historyStartSec);
  // A cursor holding no usable time (written by an earlier version from a hostile answer).
  if (!Number.isFinite(left)) return undefined;
  // Not complete: at least the page that finds the end.
  return Math.max(1, Math.ceil(left / pageSize));
}

/**
 * Seconds to spend `cu` compute units at `perMinute`, within `perDay` per UTC day of which
 * `spentToday` is gone.
 */
export function budgetSeconds(
  cu: number,
  b: { perMinute: number; perDay: number; spentToday: number; nowMs: number },
): number {
  if (cu <= 0) return 0;
  const toMidnight = (DAY_SECONDS * 1000 - (b.nowMs % (DAY_SECONDS * 1000))) / 1000;
  const paced = (units: number) => (units / b.perMinute) * 60;
  const today = Math.min(Math.max(0, b.perDay - b.spentToday), (b.perMinute * toMidnight) / 60);
  if (cu <= today) return paced(cu);
  const perFullDay = Math.min(b.perDay, b.perMinute * 1440);
  const rest = cu - today;
  const days = Math.ceil(rest / perFullDay) - 1;
  return toMidnight + days * DAY_SECONDS + paced(rest - days * perFullDay);
}

export function estimateBackfill(
  batches: readonly Pick<BatchBackfill, 'pagesLeft'>[],
  o: {
    perMinute: number;
    perDay: number;
    spentToday: number;
    nowMs: number;
    maxPages: number;
    runsPerDay: number;
    /**
     * When the run that reads the next pages starts: the job's next slot (status), or now when a run
     * is going or one fires at start. @defaultValue nowMs
     */
    startMs?: number | undefined;
  },
): BackfillEstimate {
  const pagesLeft = batches.reduce((n, b) => n + b.pagesLeft, 0);
  const computeUnitsLeft = pagesLeft * PAGE_CU;
  const budget = budgetSeconds(computeUnitsLeft, o);
  const runs = Math.max(0, ...batches.map((b) => Math.ceil(b.pagesLeft / o.maxPages)));
  // The run in progress or the next one reads the first maxPages: later ones wait for the schedule.
  const schedule = runs > 1 && o.runsPerDay > 0 ? ((runs - 1) * DAY_SECONDS) / o.runsPerDay : 0;
  const waitSeconds = Math.max(0, ((o.startMs ?? o.nowMs) - o.nowMs) / 1000);
  const seconds = pagesLeft === 0 ? 0 : waitSeconds + Math.max(budget, schedule);
  return {
    computeUnitsLeft,
    pagesLeft,
    budgetSeconds: Math.ceil(budget),
    scheduleSeconds: Math.ceil(schedule),
    seconds: Math.ceil(seconds),
    ...(waitSeconds > 0 && { waitSeconds: Math.ceil(waitSeconds) }),
    limitedBy: pagesLeft === 0 ? 'nothing left' : schedule > budget ? 'schedule' : 'budget',
    finishesAt: pagesLeft === 0 ? null : isoOfMs(o.nowMs + Math.ceil(seconds) * 1000),
  };
}
