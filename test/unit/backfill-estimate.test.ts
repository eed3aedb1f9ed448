import { describe, expect, it } from 'vitest';
import {
  assumedPages,
  budgetSeconds,
  estimateBackfill,
  historyStart,
  NETWORK_LAUNCH_MS,
  pagesLeftOf,
} from '../../src/report/backfill.js';

/** The backfill estimate's arithmetic, with an injected "now" and budget: never wall time. */

const DAY = 86_400;
const NOON = Date.UTC(2025, 5, 15, 12, 0, 0);
const budget = { perMinute: 1_000, perDay: 100_000, spentToday: 0, nowMs: NOON };

describe('budgetSeconds', () => {
  it.each([
    ['nothing', 0, budget, 0],
    ['within the minute budget', 500, budget, 30],
    ['ten minutes of budget', 10_000, budget, 600],
    ['all that is left today', 60_000, { ...budget, spentToday: 40_000 }, 3_600],
    // 50,000 left today (50 minutes), then the rest from the next UTC midnight, 12 h away.
    ['past the day budget', 60_000, { ...budget, spentToday: 50_000 }, 12 * 3600 + 600],
    // Today: 50,000; then two whole days of 100,000; then 10,000 on the third day.
    ['several days', 260_000, { ...budget, spentToday: 50_000 }, 12 * 3600 + 2 * DAY + 600],
    // The day budget exactly: one more day, all of it at the minute pace.
    ['a whole day exactly', 150_000, { ...budget, spentToday: 50_000 }, 12 * 3600 + 6_000],
    // Ten minutes to midnight: only 10,000 can go today whatever the day budget says.
    [
      'the minute pace before midnight',
      15_000,
      { ...budget, nowMs: NOON + 11 * 3600_000 + 50 * 60_000 },
      600 + 300,
    ],
  ])('%s', (_name, cu, b, seconds) => {
    expect(budgetSeconds(cu, b)).toBeCloseTo(seconds, 6);
  });
});

describe('pagesLeftOf', () => {
  it.each([
    // 100 rewards over 100 days read; 200 days of history left at that density: 200 rewards, 2 pages of 100.
    [{ items: 100, oldestSec: 1_000 * DAY, newestSec: 1_100 * DAY }, 800 * DAY, 100, 2],
    // Past the assumed start and not complete: the page that finds the end.
    [{ items: 100, oldestSec: 1_000 * DAY, newestSec: 1_100 * DAY }, 1_050 * DAY, 100, 1],
    // One reward read: no density yet.
    [{ items: 1, oldestSec: 1_000 * DAY, newestSec: 1_000 * DAY }, 0, 100, undefined],
  ])('%j from %d: %s pages', (progress, start, pageSize, pages) => {
    expect(pagesLeftOf(progress, start, pageSize)).toBe(pages);
  });
});

describe('assumedPages and historyStart', () => {
  it('assumes one reward per address and two per node id each 14 days', () => {
    expect(assumedPages('addresses', 85, 700 * DAY, 100)).toBe(Math.ceil((85 * 50) / 100));
    expect(assumedPages('nodeIds', 10, 700 * DAY, 100)).toBe(Math.ceil((10 * 100) / 100));
    expect(assumedPages('addresses', 1, 0, 100)).toBe(1);
  });

  it('reads --history as whole days back from now, else the network launch', () => {
    expect(historyStart('730d', NOON)).toBe(NOON - 730 * DAY * 1000);
    expect(historyStart(undefined, NOON)).toBe(NETWORK_LAUNCH_MS);
    for (const bad of ['2y', '730', '-5d', '0d', '12h'])
      expect(() => historyStart(bad, NOON)).toThrow(/730d/);
  });
});

describe('estimateBackfill', () => {
  const o = { ...budget, maxPages: 50, runsPerDay: 24 };

  it('is the budget pace when the runs read everything left', () => {
    const e = estimateBackfill([{ pagesLeft: 30 }, { pagesLeft: 20 }], o);
    expect(e).toEqual({
      computeUnitsLeft: 5_000,
      pagesLeft: 50,
      budgetSeconds: 300,
      scheduleSeconds: 0,
      seconds: 300,
      limitedBy: 'budget',
      finishesAt: new Date(NOON + 300_000).toISOString(),
    });
  });

  it('counts from the next run of the job, not from now, when no run reads it yet', () => {
    // The hourly job's next slot is 45 minutes away: the backfill starts then.
    const e = estimateBackfill([{ pagesLeft: 30 }, { pagesLeft: 20 }], { ...o, startMs: NOON + 45 * 60_000 });
    expect(e).toMatchObject({ seconds: 45 * 60 + 300, waitSeconds: 45 * 60, limitedBy: 'budget' });
    expect(e.finishesAt).toBe(new Date(NOON + 45 * 60_000 + 300_000).toISOString());
    // Nothing left: nothing to wait for.
    expect(estimateBackfill([{ pagesLeft: 0 }], { ...o, startMs: NOON + 60_000 })).toMatchObject({
      seconds: 0,
      finishesAt: null,
    });
  });

  it('is the schedule when maxPages per run is the bottleneck', () => {
    // 500 pages at 50 a run: 10 runs, the 9 after the first one hourly.
    const e = estimateBackfill([{ pagesLeft: 500 }], o);
    expect(e.scheduleSeconds).toBe(9 * 3600);
    expect(e.budgetSeconds).toBe(3000);
    expect(e).toMatchObject({ seconds: 9 * 3600, limitedBy: 'schedule' });
  });

  it('is nothing once every batch is complete', () => {
    expect(estimateBackfill([{ pagesLeft: 0 }], o)).toMatchObject({
      seconds: 0,
      limitedBy: 'nothing left',
      finishesAt: null,
    });
  });
});
