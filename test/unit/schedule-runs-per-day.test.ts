import { describe, expect, it } from 'vitest';
import { readCron } from '../../src/queue/schedule.js';

const DAY_MS = 86_400_000;

/** The reference: node-cron's own matcher asked about 00:00 of every day of 2025. */
function daysByMatcher(expression: string): number {
  const cron = readCron(expression);
  let days = 0;
  for (let i = 0; i < 365; i++) if (cron.matches(new Date(Date.UTC(2025, 0, 1) + i * DAY_MS))) days++;
  return days;
}

describe('runsPerDay counts the days node-cron fires on (plain fields counted, the others matched)', () => {
  // One slot a day (midnight), so runsPerDay × 365 is the count of firing days.
  it.each([
    '0 0 * * *',
    '0 0 1 * *',
    '0 0 1 * 1',
    '0 0 * * sun',
    '0 0 * * 7',
    '0 0 29 2 *',
    '0 0 31 * *',
    '0 0 * 1,6 mon-fri',
    '0 0 1-7 * 1',
    '0 0 L * *',
    '0 0 * * 5L',
    '0 0 * * 1#2',
  ])('%s', (expression) => {
    expect(Math.round(readCron(expression).runsPerDay() * 365)).toBe(daysByMatcher(expression));
    const reading = readCron(expression);
    for (let i = 0; i < 365; i++) {
      const day = new Date(Date.UTC(2025, 0, 1) + i * DAY_MS);
      expect(reading.firesOnUtcDay(day), day.toISOString()).toBe(reading.matches(day));
    }
  });
});
