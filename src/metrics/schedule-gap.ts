import cron from 'node-cron';
import { readCron } from '../queue/schedule.js';

const DAY_S = 86_400;
/** Four years from a leap year: every day-of-month, month and weekday combination shows up. */
const SCAN_START = Date.UTC(2024, 0, 1);
const SCAN_DAYS = 4 * 365 + 1;

/**
 * The longest wait between two consecutive firings of a cron expression, in seconds: what "late"
 * means for a job (`0 9 * * 1-5` waits 3 days over a weekend, not its average 1.4). Computed from
 * the fields, not by walking every firing (node-cron's next-match costs ~40 µs, and a per-second
 * schedule fires 86,400 times a day): cron's time-of-day fields are independent of its day fields,
 * so the longest gap is either between two times of one firing day or from the last time of a
 * firing day to the first time of the next one. Days are read in UTC, like `runsPerDay`; a DST
 * change in another time zone moves a gap by an hour. Undefined when the schedule fires on fewer
 * than two days in four years.
 */
export function longestGapSeconds(expression: string): number | undefined {
  const fields = cron.parse(expression);
  const times: number[] = [];
  for (const h of fields.hour) {
    for (const m of fields.minute) for (const s of fields.second) times.push(h * 3600 + m * 60 + s);
  }
  times.sort((a, b) => a - b);
  const first = times[0];
  const last = times.at(-1);
  if (first === undefined || last === undefined) return undefined;
  let longest = 0;
  for (let i = 1; i < times.length; i++) longest = Math.max(longest, times[i]! - times[i - 1]!);

  const reading = readCron(expression, 'UTC');
  let previousDay: number | undefined;
  let firingDays = 0;
  for (let day = 0; day < SCAN_DAYS; day++) {
    if (!reading.firesOnUtcDay(new Date(SCAN_START + day * DAY_S * 1000))) continue;
    firingDays++;
    if (previousDay !== undefined) longest = Math.max(longest, (day - previousDay) * DAY_S - last + first);
    previousDay = day;
  }
  return firingDays < 2 ? undefined : longest;
}
