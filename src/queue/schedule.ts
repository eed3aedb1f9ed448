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
  /**
   * Whether the schedule fires on the UTC day of `day` at all (its day-of-month, month and weekday
   * fields; node-cron's rule: all three). Plain numeric fields are read from the parsed
   * expression; `L`, `#` and the like are asked of the matcher.
   */
  firesOnUtcDay(day: Date): boolean;
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
  // Built on first use: node-cron's task sets up its timezone formatters (milliseconds), and `plan`
  // (`config check`'s summary) counts the runs of plain expressions without asking either.
  let matchIn: ((date: Date) => boolean) | undefined;
  const match = (date: Date) => {
    matchIn ??= matcher(expression, timezone);
    return matchIn(date);
  };
  let next: Cron | undefined;
  const fields = cron.parse(expression);
  const slotsPerDay = fields.second.length * fields.minute.length * fields.hour.length;
  // The matcher formats every date it is asked about in its timezone (tens of µs): `config check`'s
  // plan and the metrics' schedule gaps ask about hundreds of days per job, so plain fields are
  // read directly, and only `L`, `#` and the like go to the matcher.
  const plain = plainDayFields(fields);
  const [h, m, s] = [fields.hour[0] ?? 0, fields.minute[0] ?? 0, fields.second[0] ?? 0];
  let utc: ((date: Date) => boolean) | undefined;
  const firesOnUtcDay = (day: Date): boolean => {
    const start = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate());
    if (plain) {
      const d = new Date(start);
      return (
        plain.months.has(d.getUTCMonth() + 1) &&
        plain.doms.has(d.getUTCDate()) &&
        plain.dows.has(d.getUTCDay())
      );
    }
    utc ??= timezone === 'UTC' ? match : matcher(expression, 'UTC');
    return utc(new Date(start + ((h * 60 + m) * 60 + s) * 1000));
  };
  return {
    expression,
    timezone,
    matches: match,
    nextAfter(from) {
      next ??= new Cron(expression, { timezone, domAndDow: true, paused: true });
      const at = next.nextRun(from);
      if (!at) throw new Error(`cron expression "${expression}" never fires after ${from.toISOString()}`);
      return at;
    },
    runsPerDay() {
      // Day and time fields are independent in cron: a day fires all its (hour, minute, second)
      // slots or none, so count the days that fire (in UTC: the average is the same).
      let days = 0;
      for (let i = 0; i < 365; i++) if (firesOnUtcDay(new Date(Date.UTC(2025, 0, 1) + i * DAY_MS))) days++;
      return (slotsPerDay * days) / 365;
    },
    firesOnUtcDay,
  };
}

/** The day fields as sets of numbers (weekday 7 read as 0), or undefined if one is not a plain list. */
function plainDayFields(fields: {
  dayOfMonth: readonly unknown[];
  month: readonly unknown[];
  dayOfWeek: readonly unknown[];
}): { doms: Set<number>; months: Set<number>; dows: Set<number> } | undefined {
  const plain = (xs: readonly unknown[]) =>
    xs.every((x) => typeof x === 'number' && Number.isInteger(x)) ? new Set(xs as number[]) : undefined;
  const doms = plain(fields.dayOfMonth);
  const months = plain(fields.month);
  const dows = plain(fields.dayOfWeek);
  if (!doms || !months || !dows) return undefined;
  if (dows.has(7)) dows.add(0);
  return { doms, months, dows };
}
