import cron from 'node-cron';
import { describe, expect, it } from 'vitest';
import { readCron } from '../../src/queue/schedule.js';

/**
 * Two libraries read one schedule: node-cron says whether an instant fires (the scheduler, the
 * config's validation), croner says when it next fires (`status`, the schedule gaps). This holds
 * them together over generated expressions and instants, in time zones with and without daylight
 * saving (instants around the changes included): every `nextAfter(t)` fires by node-cron's
 * reading, and no whole minute between `t` and it does (up to a window; beyond it, only the first).
 */
const TIMEZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata'];

/** The daylight-saving changes of 2025 in those zones, UTC ms: where a local hour is skipped or repeated. */
const DST_CHANGES = [
  Date.UTC(2025, 2, 30, 1), // Europe/Berlin forward
  Date.UTC(2025, 9, 26, 1), // Europe/Berlin back
  Date.UTC(2025, 2, 9, 7), // America/New_York forward
  Date.UTC(2025, 10, 2, 6), // America/New_York back
  Date.UTC(2025, 3, 5, 15), // Australia/Lord_Howe back (half an hour)
  Date.UTC(2025, 9, 4, 15, 30), // Australia/Lord_Howe forward (half an hour)
];

/** A small deterministic generator (mulberry32): the same cases on every run, a failure reproducible. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)]!;
  return { next, int, pick };
}

type Rng = ReturnType<typeof random>;

/** One field: `*`, a step, a value, a range, a range with a step, a list. */
function field(r: Rng, lo: number, hi: number, names?: readonly string[]): string {
  const value = () => {
    const v = r.int(lo, hi);
    return names && r.next() < 0.3 ? names[v - lo]! : String(v);
  };
  const range = () => {
    const a = r.int(lo, hi);
    const b = r.int(a, hi);
    return `${a}-${b}`;
  };
  switch (r.int(0, 6)) {
    case 0:
    case 1:
      return '*';
    case 2:
      return `*/${r.int(1, Math.max(1, Math.floor((hi - lo) / 2)))}`;
    case 3:
      return value();
    case 4:
      return range();
    case 5:
      return `${range()}/${r.int(1, 4)}`;
    default:
      return [value(), value(), range()].join(',');
  }
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

function expression(r: Rng): string {
  // Busy minute and hour fields more often than not, so that the scan between two firings is short.
  const minute = r.next() < 0.5 ? field(r, 0, 59) : `*/${r.int(1, 20)}`;
  const hour = r.next() < 0.6 ? '*' : field(r, 0, 23);
  const dom = r.next() < 0.7 ? '*' : field(r, 1, 28);
  const month = r.next() < 0.8 ? '*' : field(r, 1, 12, MONTHS);
  const dow = r.next() < 0.7 ? '*' : field(r, 0, 6, DAYS);
  return `${minute} ${hour} ${dom} ${month} ${dow}`;
}

function instant(r: Rng): Date {
  if (r.next() < 0.4)
    return new Date(r.pick(DST_CHANGES) + r.int(-3 * 3600, 3 * 3600) * 1000 + r.int(0, 999));
  return new Date(Date.UTC(2024, 0, 1) + r.int(0, 3 * 365 * 86_400) * 1000 + r.int(0, 999));
}

const MINUTE = 60_000;
/** How far past `t` every whole minute is asked of node-cron. */
const SCAN_MINUTES = 60;

describe('cron: node-cron and croner read one schedule alike', () => {
  it('every next firing fires, and no minute before it does, over 2,000 generated cases', {
    timeout: 180_000,
  }, () => {
    const r = random(35);
    const disagreements: string[] = [];
    let cases = 0;
    while (cases < 2000) {
      const expr = expression(r);
      if (!cron.validate(expr)) continue;
      const timezone = r.pick(TIMEZONES);
      const reading = readCron(expr, timezone);
      for (let k = 0; k < 2; k++, cases++) {
        const t = instant(r);
        const next = reading.nextAfter(t);
        const where = `${expr} in ${timezone} after ${t.toISOString()}: croner says ${next.toISOString()}`;
        if (next.getTime() <= t.getTime()) disagreements.push(`${where}, not after`);
        else if (!reading.matches(next)) disagreements.push(`${where}, which node-cron does not fire`);
        const end = Math.min(next.getTime(), t.getTime() + SCAN_MINUTES * MINUTE);
        for (let m = Math.floor(t.getTime() / MINUTE) * MINUTE + MINUTE; m < end; m += MINUTE) {
          if (reading.matches(new Date(m))) {
            disagreements.push(`${where}, but node-cron fires at ${new Date(m).toISOString()} before it`);
            break;
          }
        }
      }
      if (disagreements.length > 10) break;
    }
    expect(disagreements).toEqual([]);
  });
});
