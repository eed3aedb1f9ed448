import { type Config, printableDatabaseLocation } from '../config/index.js';
import type { JobList } from '../kernel/index.js';
import { readCron } from '../queue/schedule.js';
import {
  listLastSuccesses,
  listLatestJobRuns,
  listUnfinishedExports,
  type Store,
  sumComputeUnitsSince,
} from '../store/index.js';
import { formatTable } from '../terminal/text-table.js';
import { collectStorage, formatStorage, type TableStatus } from './storage.js';

/**
 * `glacier-collector status`: what an operator checks first. Everything comes from the database
 * (job_runs, export_operations, row counts) and the config (schedules, budget), so it answers the
 * same whether the service runs or not, and from any machine that can read the database.
 */
export interface Status {
  /** When the status was taken, ISO-8601 UTC. */
  now: string;
  database: {
    kind: 'sqlite' | 'postgres';
    /** The SQLite path, or the PostgreSQL URL with its password masked. */
    location: string;
    /** False before the first run: no SQLite file, or no collector tables in PostgreSQL yet. */
    exists: boolean;
    /** Rows, bytes, oldest row kept and rows written per day of each table (storage.ts). */
    tables: TableStatus[];
    /** Rows the maintenance job removed per day over the last week. */
    prunedPerDay: number;
  };
  jobs: JobStatus[];
  computeUnits: {
    /** The UTC day counted, YYYY-MM-DD. */
    day: string;
    /** Compute units of the runs started that day (a run still going counts once it finishes). */
    spent: number;
    budget: number;
    tier: string;
    /** spent / budget, 0..1 (more when over budget). */
    share: number;
  };
  exportsInFlight: {
    operationId: string;
    exportName: string;
    firstDate: string;
    lastDate: string;
    status: string;
    recordedAt: string;
    polledAt: string | null;
  }[];
}

export interface JobStatus {
  job: string;
  schedule: string;
  enabled: boolean;
  lastRun: {
    id: number;
    startedAt: string;
    finishedAt: string | null;
    /** `running` also stays on a run whose process died (until a worker takes its queued job over). */
    status: string;
    rowsWritten: number;
    computeUnits: number;
    error: string | null;
  } | null;
  lastSuccessAt: string | null;
  /** The next firing of the schedule in `service.timezone`, ISO-8601 UTC; null when disabled. */
  nextRunAt: string | null;
}

export async function collectStatus(
  allJobs: JobList,
  config: Config,
  store: Store | undefined,
  now: Date,
): Promise<Status> {
  const day = now.toISOString().slice(0, 10);
  const [latestRuns, lastSuccesses, spent, storage, unfinished] = store
    ? await Promise.all([
        listLatestJobRuns(store),
        listLastSuccesses(store),
        sumComputeUnitsSince(store, `${day}T00:00:00.000Z`),
        collectStorage(allJobs, store, now),
        listUnfinishedExports(store),
      ])
    : [[], [], 0, { tables: [], prunedPerDay: 0 }, []];
  const latest = new Map(latestRuns.map((r) => [r.job, r]));
  const successes = new Map(lastSuccesses.map((r) => [r.job, r.finishedAt]));
  const jobs: JobStatus[] = [];
  for (const { name: job, scheduled, schedule } of allJobs) {
    const section = scheduled ? schedule(config) : undefined;
    if (!section) continue;
    const run = latest.get(job);
    jobs.push({
      job,
      schedule: section.schedule,
      enabled: section.enabled,
      lastRun: run
        ? {
            id: run.id,
            startedAt: run.startedAt,
            finishedAt: run.finishedAt,
            status: run.status,
            rowsWritten: run.rowsWritten,
            computeUnits: run.computeUnits,
            error: run.error,
          }
        : null,
      lastSuccessAt: successes.get(job) ?? null,
      nextRunAt: section.enabled
        ? readCron(section.schedule, config.service.timezone).nextAfter(now).toISOString()
        : null,
    });
  }
  return {
    now: now.toISOString(),
    database: {
      kind: config.database.kind,
      location: printableDatabaseLocation(config),
      exists: store !== undefined,
      ...storage,
    },
    jobs,
    computeUnits: {
      day,
      spent,
      budget: config.budget.computeUnitsPerDay,
      tier: config.budget.tier,
      share: spent / config.budget.computeUnitsPerDay,
    },
    // Operations the API is still producing (and the collector still polls).
    exportsInFlight: unfinished
      .filter((op) => op.status === 'RUNNING')
      .map((op) => ({
        operationId: op.operationId,
        exportName: op.exportName,
        firstDate: op.firstDate,
        lastDate: op.lastDate,
        status: op.status,
        recordedAt: op.recordedAt,
        polledAt: op.polledAt,
      })),
  };
}

/** "2025-06-15 12:00:00Z (5m ago)" */
function when(iso: string | null | undefined, now: Date): string {
  if (!iso) return '-';
  const ms = Date.parse(iso) - now.getTime();
  const abs = Math.abs(ms);
  const span =
    abs < 60_000
      ? `${Math.round(abs / 1000)}s`
      : abs < 3_600_000
        ? `${Math.round(abs / 60_000)}m`
        : abs < 172_800_000
          ? `${Math.round(abs / 3_600_000)}h`
          : `${Math.round(abs / 86_400_000)}d`;
  return `${iso.slice(0, 19).replace('T', ' ')}Z (${ms < 0 ? `${span} ago` : `in ${span}`})`;
}

const count = (n: number) => n.toLocaleString('en');

/** The terminal view: jobs, budget, exports in flight, then rows per table. */
export function formatStatus(status: Status): string {
  const now = new Date(status.now);
  const out: string[] = [`glacier-collector status at ${when(status.now, now).replace(/ \(.*\)$/, '')}`, ''];
  if (status.jobs.length === 0) {
    out.push('No job is configured (see docs/configuration.md).');
  } else {
    out.push(
      formatTable(
        ['job', 'schedule', 'last run', 'outcome', 'rows', 'CU', 'last success', 'next run'],
        status.jobs.map((j) => [
          j.job,
          j.schedule,
          when(j.lastRun?.startedAt, now),
          j.lastRun?.status ?? 'never run',
          j.lastRun ? count(j.lastRun.rowsWritten) : '',
          j.lastRun ? count(j.lastRun.computeUnits) : '',
          when(j.lastSuccessAt, now),
          j.enabled ? when(j.nextRunAt, now) : 'disabled',
        ]),
        { right: [4, 5] },
      ),
    );
    for (const j of status.jobs) {
      if (j.lastRun?.status === 'failed')
        out.push(`  ${j.job} failed: ${j.lastRun.error ?? '(no error recorded)'}`);
    }
  }
  const cu = status.computeUnits;
  out.push(
    '',
    `compute units today (${cu.day} UTC): ${count(cu.spent)} of ${count(cu.budget)} (${(cu.share * 100).toFixed(1)}%, budget of tier ${cu.tier})`,
    '',
  );
  if (status.exportsInFlight.length === 0) out.push('exports in flight: none');
  else {
    out.push(`exports in flight: ${status.exportsInFlight.length}`);
    for (const e of status.exportsInFlight) {
      out.push(
        `  ${e.exportName} ${e.firstDate}..${e.lastDate} ${e.status}, started ${when(e.recordedAt, now)}, last read ${when(e.polledAt, now)} (operation ${e.operationId})`,
      );
    }
  }
  out.push('');
  const database = `${status.database.kind === 'postgres' ? 'PostgreSQL' : 'SQLite'} database ${status.database.location}`;
  if (!status.database.exists) out.push(`${database}: not created yet (no job has run)`);
  else {
    out.push(database);
    out.push(formatStorage(status.database));
  }
  return `${out.join('\n')}\n`;
}
