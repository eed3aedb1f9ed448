import cron from 'node-cron';

/**
 * One reading of a cron expression, shared by the scheduler (what fires), `plan` (how often) and
 * `status` (when next). It is node-cron's own matcher, so every expression the config accepts (`L`,
 * ranges, steps, names, seconds) is read exactly the way the scheduler fires it. Note node-cron's
 * rule when both day fields are restricted: a day must match both (`0 0 1 * 1` = Mondays that are
 * the 1st), where Vixie cron takes either.
 */
export interface CronReading {
  readonly expression: string;
  readonly timezone: string;
  /** True when the schedule fires at `date` (to the second). */
  matches(date: Date): boolean;
  /** The next firing strictly after `from`. */
  nextAfter(from: Date): Date;
  /** Average firings per day over a whole non-leap year. */
  runsPerDay(): number;
}

/** node-cron's matcher (internal to its tasks; their `getNextRuns` reads the wall clock, not `from`). */
interface TimeMatcher {
  match(date: Date): boolean;
  getNextMatch(date: Date): Date;
}

const DAY_MS = 86_400_000;

function timeMatcher(expression: string, timezone: string): TimeMatcher {
  const task = cron.createTask(expression, () => undefined, { timezone });
  const matcher = (task as unknown as { timeMatcher?: TimeMatcher }).timeMatcher;
  // createTask registers the task for cron.shutdown(); this one never starts, so let it go at once.
  void task.destroy();
  if (!matcher || typeof matcher.getNextMatch !== 'function') {
    throw new Error('node-cron no longer exposes its TimeMatcher: update src/queue/schedule.ts');
  }
  return matcher;
}

export function readCron(expression: string, timezone = 'UTC'): CronReading {
  const matcher = timeMatcher(expression, timezone);
  const fields = cron.parse(expression);
  const slotsPerDay = fields.second.length * fields.minute.length * fields.hour.length;
  return {
    expression,
    timezone,
    matches: (date) => matcher.match(date),
    nextAfter: (from) => matcher.getNextMatch(from),
    runsPerDay() {
      // Day and time fields are independent in cron: a day fires all its (hour, minute, second)
      // slots or none, so count the days whose first slot fires (in UTC: the average is the same).
      // Plain numeric day fields are counted from the parsed fields (node-cron's rule: a day
      // matches all three); `L`, `#` and the like are asked of the matcher, a day at a time (it
      // formats each date in its timezone: most of `config check`'s time when asked for every job).
      const days = countDaysOfPlainFields(fields);
      if (days !== undefined) return (slotsPerDay * days) / 365;
      const utc = timezone === 'UTC' ? matcher : timeMatcher(expression, 'UTC');
      const [h, m, s] = [fields.hour[0] ?? 0, fields.minute[0] ?? 0, fields.second[0] ?? 0];
      const start = Date.UTC(2025, 0, 1) + ((h * 60 + m) * 60 + s) * 1000;
      let matched = 0;
      for (let i = 0; i < 365; i++) if (utc.match(new Date(start + i * DAY_MS))) matched++;
      return (slotsPerDay * matched) / 365;
    },
  };
}

/** The days of 2025 (a non-leap year) whose date fields match, or undefined if a field is not a plain list of numbers. */
function countDaysOfPlainFields(fields: {
  dayOfMonth: readonly unknown[];
  month: readonly unknown[];
  dayOfWeek: readonly unknown[];
}): number | undefined {
  const plain = (xs: readonly unknown[]) =>
    xs.every((x) => typeof x === 'number' && Number.isInteger(x)) ? new Set(xs as number[]) : undefined;
  const doms = plain(fields.dayOfMonth);
  const months = plain(fields.month);
  const dows = plain(fields.dayOfWeek);
  if (!doms || !months || !dows) return undefined;
  if (dows.has(7)) dows.add(0);
  let days = 0;
  for (let i = 0; i < 365; i++) {
    const d = new Date(Date.UTC(2025, 0, 1) + i * DAY_MS);
    if (months.has(d.getUTCMonth() + 1) && doms.has(d.getUTCDate()) && dows.has(d.getUTCDay())) days++;
  }
  return days;
}
