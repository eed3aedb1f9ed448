import { Cron } from 'croner';
import cron from 'node-cron';

/**
 * One reading of a cron expression, shared by the scheduler (what fires), `plan` (how often) and
 * `status` (when next). Whether an instant fires is node-cron's own public `match`, so every
 * expression the config accepts (`L`, ranges, steps, names, seconds) is read exactly the way the
 * scheduler fires it; the next firing after any instant is croner's (node-cron's `getNextRun` reads
 * the wall clock), told node-cron's rule when both day fields are restricted: a day must match both
 * (`0 0 1 * 1` = Mondays that are the 1st), where Vixie cron takes either.
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

const DAY_MS = 86_400_000;

/** node-cron's own answer to "does this instant fire", through its public task API. */
function matcher(expression: string, timezone: string): (date: Date) => boolean {
  const task = cron.createTask(expression, () => undefined, { timezone });
  // createTask registers the task for cron.shutdown(); this one never starts, so let it go at once.
  void task.destroy();
  return (date) => task.match(date);
}

export function readCron(expression: string, timezone = 'UTC'): CronReading {
  const match = matcher(expression, timezone);
  const next = new Cron(expression, { timezone, domAndDow: true, paused: true });
  const fields = cron.parse(expression);
  const slotsPerDay = fields.second.length * fields.minute.length * fields.hour.length;
  return {
    expression,
    timezone,
    matches: match,
    nextAfter(from) {
      const at = next.nextRun(from);
      if (!at) throw new Error(`cron expression "${expression}" never fires after ${from.toISOString()}`);
      return at;
    },
    runsPerDay() {
      // Day and time fields are independent in cron: a day fires all its (hour, minute, second)
      // slots or none, so count the days whose first slot fires (in UTC: the average is the same).
      const utc = timezone === 'UTC' ? match : matcher(expression, 'UTC');
      const [h, m, s] = [fields.hour[0] ?? 0, fields.minute[0] ?? 0, fields.second[0] ?? 0];
      const start = Date.UTC(2025, 0, 1) + ((h * 60 + m) * 60 + s) * 1000;
      let days = 0;
      for (let i = 0; i < 365; i++) if (utc(new Date(start + i * DAY_MS))) days++;
      return (slotsPerDay * days) / 365;
    },
  };
}
