/**
 * The `retention` section: how long each table that grows without bound keeps its rows (a duration,
 * or `forever`), and the check that no retention is shorter than what a job reads again on every
 * run (a row pruned inside that window would be collected again, and pruned again, for ever).
 */
import * as z from 'zod';
import { formatDuration, parseDuration } from './durations.js';
import type { FileConfig } from './schema.js';

export const FOREVER = 'forever';

/** A table's retention: milliseconds, or `forever` (never pruned). */
export type Retention = number | typeof FOREVER;

const MIN = '1m';
const MAX = '36500d';
const MIN_MS = parseDuration(MIN)!;
const MAX_MS = parseDuration(MAX)!;

function retention(defaultValue: Retention) {
  return z
    .union([z.string(), z.number()])
    .transform((value, ctx): Retention => {
      if (value === FOREVER) return FOREVER;
      const ms = parseDuration(value);
      if (ms === undefined || ms < MIN_MS || ms > MAX_MS) {
        ctx.addIssue({
          code: 'custom',
          message: `not a retention; use "forever" or a duration from ${MIN} to ${MAX} (a number and a unit: ms, s, m, h, d), e.g. "30d"`,
        });
        return z.NEVER;
      }
      return ms;
    })
    .default(defaultValue);
}

const DAY_MS = 86_400_000;

/**
 * Per table, how old a row may get before the maintenance job deletes it; its age is the row's own
 * time (block time, bucket time, snapshot time, run start, last sight). Rewards and signatures are
 * never pruned.
 */
export const retentionSchema = z.strictObject({
  /** By block time. @defaultValue 'forever' */
  transactions: retention(FOREVER),
  /** By block time; an export file goes with the last of its rows. @defaultValue 'forever' */
  exportedTransactions: retention(FOREVER),
  /** By start time; each job's latest success and latest failure are kept. @defaultValue '90d' */
  jobRuns: retention(90 * DAY_MS),
  /** By the snapshot's `last_updated`; the newest snapshot is kept. @defaultValue 'forever' */
  supplySnapshots: retention(FOREVER),
  /** By bucket start; each series' newest bucket is kept. @defaultValue 'forever' */
  usageMetrics: retention(FOREVER),
  /**
   * Records set aside (rejected_records), by the time they were last seen: a record the upstream
   * still sends is kept. Each is the only copy of what it holds. @defaultValue 'forever'
   */
  rejectedRecords: retention(FOREVER),
  /**
   * What each validators run observed of each active validation (validation_observations), by the
   * time it was observed: a bounded history for a dashboard's uptime line. @defaultValue '35d'
   */
  validationObservations: retention(35 * DAY_MS),
});

export type RetentionConfig = z.output<typeof retentionSchema>;

/**
 * What the starter config (glacier-collector.example.yaml, `config init`) keeps: every table that
 * grows without bound pruned, each longer than what any job reads again (a test keeps the file and
 * this list equal). `plan` and `config check` suggest it for a table kept forever.
 */
export const STARTER_RETENTION: Readonly<Record<keyof RetentionConfig, string>> = {
  transactions: '7d',
  exportedTransactions: '30d',
  jobRuns: '90d',
  supplySnapshots: '365d',
  usageMetrics: '365d',
  rejectedRecords: '365d',
  validationObservations: '35d',
};

/** The tables `retention` names, by key: what the maintenance job prunes. */
export const RETAINED_TABLES = {
  transactions: 'transactions',
  exportedTransactions: 'exported_transactions',
  jobRuns: 'job_runs',
  supplySnapshots: 'supply_snapshots',
  usageMetrics: 'usage_metrics',
  rejectedRecords: 'rejected_records',
  validationObservations: 'validation_observations',
} as const satisfies Record<keyof RetentionConfig, string>;

/** How long one bucket of a usage-metrics interval is (a month at its longest). */
const INTERVAL_MS = {
  minute: 60_000,
  hourly: 3_600_000,
  daily: DAY_MS,
  weekly: 7 * DAY_MS,
  monthly: 31 * DAY_MS,
} as const;

interface Floor {
  ms: number;
  reason: string;
}

/** The shortest retention each table allows with this config, and why; none when anything goes. */
export function retentionFloors(
  config: Pick<FileConfig, 'jobs'>,
): Partial<Record<keyof RetentionConfig, Floor>> {
  const floors: Partial<Record<keyof RetentionConfig, Floor>> = {
    jobRuns: {
      ms: DAY_MS,
      reason: "today's compute units (`status`, the day budget) are summed from today's runs",
    },
  };
  const usage = config.jobs.usageMetrics;
  if (usage) {
    const longest = Math.max(...usage.sources.map((s) => INTERVAL_MS[s.timeInterval]));
    const name = Object.entries(INTERVAL_MS).find(([, ms]) => ms === longest)?.[0];
    floors.usageMetrics = {
      ms: longest + DAY_MS,
      reason: `jobs.usageMetrics reads again, on every run, its newest bucket (${name}: ${formatDuration(longest)}) from 00:00 UTC of its day (the API rounds the start down)`,
    };
  }
  const exports = config.jobs.exports;
  if (exports) {
    let days = 0;
    for (const def of exports.definitions) {
      const w = def.window;
      if (w === 'previous-day') days = Math.max(days, 1);
      else if ('lastDays' in w) days = Math.max(days, w.lastDays);
    }
    if (days > 0) {
      floors.exportedTransactions = {
        ms: (days + 1) * DAY_MS,
        reason: `jobs.exports exports again, every day, the last ${days} UTC day(s) before today (its longest window)`,
      };
    }
  }
  return floors;
}

/** Refuses, with the reason, a retention shorter than what a job reads again on every run. */
export function refuseRetentionBelowRereads(
  config: Pick<FileConfig, 'jobs' | 'retention'>,
  ctx: z.RefinementCtx,
): void {
  const floors = retentionFloors(config);
  for (const [key, floor] of Object.entries(floors) as [keyof RetentionConfig, Floor][]) {
    const kept = config.retention[key];
    if (kept === FOREVER || kept >= floor.ms) continue;
    ctx.addIssue({
      code: 'custom',
      path: ['retention', key],
      input: formatDuration(kept),
      message: `too short: must be at least ${formatDuration(floor.ms)} (or "forever"), because ${floor.reason}; a shorter retention would prune rows only to collect them again`,
    });
  }
}
