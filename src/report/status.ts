import { type Config, printableDatabaseLocation } from '../config/index.js';
import { PROGRAM } from '../config/invocation.js';
import { excerpt } from '../escape/excerpt.js';
import { forTerminal } from '../escape/terminal.js';
import type { JobList } from '../kernel/index.js';
import { JOB_NAMES } from '../kernel/job-names.js';
import type { ServiceProbe } from '../queue/probe.js';
import { readCron } from '../queue/schedule.js';
import {
  type DriftRow,
  findSignatureAttempts,
  listLastSuccesses,
  listLatestJobRuns,
  listUnfinishedExports,
  readDrift,
  readSetAsideSummaries,
  readUnfinishedCopy,
  reconcileCycles,
  type SetAsideSummary,
  type SignatureAttempt,
  type Store,
  sumComputeUnitsSince,
  type UnfinishedCopy,
  unfinishedCopyProblem,
} from '../store/index.js';
import { formatTable } from '../terminal/text-table.js';
import { formatCount, span } from '../terminal/units.js';
import type { RewardsBackfill } from './backfill.js';
import { collectRewardsBackfill } from './backfill-progress.js';
import { collectStorage, formatStorage, shownTime, type TableStatus } from './storage.js';
import {
  collectValidatorsStatus,
  formatValidatorsStatus,
  type ValidatorsStatus,
} from './validators-status.js';

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
    /**
     * Rows, bytes, oldest row kept and rows written and removed per day of each table
     * (storage.ts); `internal`: the collector's bookkeeping (export_claims, *_summaries), listed apart.
     */
    tables: (TableStatus & { internal: boolean })[];
    /** Rows the maintenance job removed per day over the last week, every table together. */
    prunedPerDay: number;
    /**
     * A `migrate-store` into this database that has not ended (killed, or still running): its rows
     * are partial, and `start` and `run` refuse it until the copy is run again to its end; else null.
     */
    unfinishedCopy: UnfinishedCopy | null;
  };
  /** The service as Redis shows it (heartbeats, queue counts); null when not looked at. */
  service: ServiceProbe | null;
  /**
   * Whether a scheduler (a `start` of role all or scheduler) beats now, so the jobs' `nextRunAt`
   * will fire: false when Redis shows none (the times are only the schedule's next slots), null when
   * nobody looked or Redis did not answer.
   */
  schedulerRunning: boolean | null;
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
  /** The rewards job's first backfill per batch, and the time it should take still; absent without the job. */
  rewardsBackfill?: RewardsBackfill | undefined;
  /**
   * Per job, the upstream records set aside (rejected_records): how many, per reason, and the
   * newest (its reason, failing fields and problems; `raw` left out). Empty when none is.
   */
  recordsSetAside: (Omit<SetAsideSummary, 'newest'> & { newest: Omit<SetAsideSummary['newest'], 'raw'> })[];
  /** Fields and enum values the upstream sent that the OpenAPI does not list, per endpoint (upstream_drift). */
  drift: DriftRow[];
  /**
   * The configured transactions the aggregator did not sign on their last attempt (signature_attempts):
   * not found, below quorum or refused, with the API's message and when each is asked again.
   */
  signaturesUnsigned: Omit<SignatureAttempt, 'configDigest'>[];
  /**
   * Auto-renewed (ACP-236) positions whose validation the validators job stored with `autoRenew`: how
   * many, and those whose stored cycles' compounded sum differs from its accrued rewards (nAVAX text);
   * absent when there is none.
   */
  compounded?: { positions: number; differing: CompoundedDifference[] } | undefined;
  /** The configured node ids' validations, the unknown ones named; absent without jobs.validators. */
  validators?: ValidatorsStatus | undefined;
}

export interface CompoundedDifference {
  network: string;
  nodeId: string;
  stakingTxHash: string;
  /** Σ compounded over the stored cycles, nAVAX. */
  compounded: string;
  /** `autoRenew.accruedValidationRewards + accruedDelegateeRewards`, nAVAX. */
  accrued: string;
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
  /**
   * The next slot of the schedule in `service.timezone`, ISO-8601 UTC; null when disabled. A run
   * then only when a scheduler runs (`schedulerRunning`).
   */
  nextRunAt: string | null;
  /** The slot the job missed: a slot past by more than its grace (`overdueGraceMs`) with no run since; else null. */
  overdueSince: string | null;
}

export async function collectStatus(
  allJobs: JobList,
  config: Config,
  store: Store | undefined,
  now: Date,
  options: { history?: string | undefined; service?: ServiceProbe | null } = {},
): Promise<Status> {
  const day = now.toISOString().slice(0, 10);
  const [latestRuns, lastSuccesses, spent, storage, unfinished, setAside, drift] = store
    ? await Promise.all([
        listLatestJobRuns(store),
        listLastSuccesses(store),
        sumComputeUnitsSince(store, `${day}T00:00:00.000Z`),
        collectStorage(allJobs, store, now),
        listUnfinishedExports(store),
        readSetAsideSummaries(store),
        readDrift(store),
      ])
    : [[], [], 0, { tables: [], prunedPerDay: 0 }, [], [], []];
  const unfinishedCopy = (store && (await readUnfinishedCopy(store))) ?? null;
  const signatureJob = config.jobs.signatures;
  const unsigned =
    store && signatureJob && (await store.hasTable('signature_attempts'))
      ? [...(await findSignatureAttempts(store, signatureJob.network, signatureJob.txHashes)).values()]
      : [];
  const reconciled = store ? await reconcileCycles(store) : [];
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
      overdueSince: section.enabled ? overdueSince(section.schedule, config, run, now) : null,
    });
  }
  // The next pages are read by the run going now, or else by the job's next slot (not now).
  const rewardsJob = jobs.find((j) => j.job === JOB_NAMES.rewards);
  const rewardsNext =
    rewardsJob?.lastRun?.status === 'running' || !rewardsJob?.nextRunAt
      ? undefined
      : Date.parse(rewardsJob.nextRunAt);
  const rewardsBackfill = await collectRewardsBackfill(config, store, {
    nowMs: now.getTime(),
    nextRunMs: rewardsNext,
    spentToday: spent,
    history: options.history,
  });
  return {
    now: now.toISOString(),
    database: {
      kind: config.database.kind,
      location: printableDatabaseLocation(config),
      exists: store !== undefined,
      ...storage,
      tables: storage.tables.map((t) => ({ ...t, internal: isInternalTable(t.table) })),
      unfinishedCopy,
    },
    service: options.service ?? null,
    schedulerRunning: schedulerRunning(options.service ?? null),
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
    rewardsBackfill,
    recordsSetAside: setAside.map((s) => {
      const { raw: _raw, ...newest } = s.newest;
      return { ...s, newest };
    }),
    drift,
    signaturesUnsigned: unsigned.map(({ configDigest: _digest, ...a }) => a),
    ...(reconciled.length > 0 && {
      compounded: {
        positions: reconciled.length,
        differing: reconciled
          .filter((r) => r.difference !== 0n)
          .map((r) => ({
            network: r.network,
            nodeId: r.nodeId,
            stakingTxHash: r.stakingTxHash,
            compounded: String(r.compounded),
            accrued: String(r.accrued),
          })),
      },
    }),
    validators: await collectValidatorsStatus(config, store),
  };
}

/** "2025-06-15 12:00:00Z (5m ago)"; a stored text that is no time is shown as such. */
function when(iso: string | null | undefined, now: Date): string {
  if (!iso) return '-';
  const ms = Date.parse(iso) - now.getTime();
  if (Number.isNaN(ms)) return `${JSON.stringify(String(iso).slice(0, 40))} (not a time)`;
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

const count = formatCount;

function formatBackfill(b: RewardsBackfill, now: Date): string[] {
  const e = b.estimate;
  const head = b.complete
    ? `rewards backfill (${b.network}, ${b.currency}): complete`
    : `rewards backfill (${b.network}, ${b.currency}): ${count(e.pagesLeft)} page(s), ${count(e.computeUnitsLeft)} CU left; about ${span(e.seconds)}${e.waitSeconds ? ` (its next run in ${span(e.waitSeconds)} first)` : ''} (${e.limitedBy === 'schedule' ? 'the schedule' : 'the budget'} sets the pace: ${count(b.budget.computeUnitsPerMinute)} CU/minute, ${count(b.budget.computeUnitsPerDay)} CU/day), ending ${when(e.finishesAt, now)}; history assumed from ${b.historyStart.slice(0, 10)}`;
  return [
    head,
    formatTable(
      ['batch', 'ids', 'first id', 'backfill', 'pages', 'rewards', 'oldest reward', 'pages left'],
      b.batches.map((x) => [
        `${x.batch} (${x.kind === 'addresses' ? 'addresses' : 'node ids'})`,
        String(x.ids),
        x.firstId,
        x.complete ? 'complete' : x.started ? 'running' : 'not started',
        count(x.pages),
        count(x.rewards),
        x.oldestReward ? shownTime(x.oldestReward) : '-',
        x.complete ? '0' : `~${count(x.pagesLeft)}`,
      ]),
      { right: [1, 4, 5, 7] },
    ),
  ];
}

/**
 * The next-run column: a time and how far off while a scheduler runs (or nobody looked); without
 * one, only the schedule's next slot, which nothing will fire.
 */
function nextRun(j: JobStatus, schedulerRunning: boolean | null, now: Date): string {
  if (!j.enabled) return 'disabled';
  if (j.overdueSince) return `OVERDUE since ${when(j.overdueSince, now)}`;
  if (!j.nextRunAt) return '-';
  if (schedulerRunning === false)
    return `not scheduled (slot ${j.nextRunAt.slice(0, 19).replace('T', ' ')}Z)`;
  return when(j.nextRunAt, now);
}

/** The terminal view: jobs, budget, exports in flight, then rows per table. */
export function formatStatus(status: Status, options: { cli?: string | undefined } = {}): string {
  const now = new Date(status.now);
  const out: string[] = [
    `glacier-collector status at ${when(status.now, now).replace(/ \(.*\)$/, '')}`,
    '',
    ...(status.database.unfinishedCopy
      ? [
          `UNFINISHED COPY: ${unfinishedCopyProblem(status.database.location, status.database.unfinishedCopy)}`,
          '',
        ]
      : []),
    ...formatService(status.service, status.jobs, now, options.cli ?? PROGRAM),
  ];
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
          nextRun(j, status.schedulerRunning, now),
        ]),
        { right: [4, 5] },
      ),
    );
    for (const j of status.jobs) {
      if (j.lastRun?.status === 'failed')
        // The error quotes upstream text: its escape sequences are shown, not run by the terminal.
        out.push(`  ${j.job} failed: ${forTerminal(j.lastRun.error ?? '(no error recorded)')}`);
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
        `  ${e.exportName} ${e.firstDate}..${e.lastDate} ${e.status}, started ${when(e.recordedAt, now)}, last read ${when(e.polledAt, now)} (operation ${forTerminal(e.operationId)})`,
      );
    }
  }
  if (status.rewardsBackfill) out.push('', ...formatBackfill(status.rewardsBackfill, now));
  if (status.validators) out.push('', ...formatValidatorsStatus(status.validators, now));
  out.push('', ...formatSetAside(status.recordsSetAside, now));
  if (status.signaturesUnsigned.length > 0) out.push('', ...formatUnsigned(status.signaturesUnsigned, now));
  if (status.drift.length > 0) out.push('', ...formatDrift(status.drift, now));
  if (status.compounded) out.push('', ...formatCompounded(status.compounded));
  out.push('');
  const database = `${status.database.kind === 'postgres' ? 'PostgreSQL' : 'SQLite'} database ${status.database.location}`;
  if (!status.database.exists) out.push(`${database}: not created yet (no job has run)`);
  else {
    out.push(database);
    out.push(...formatTables(status.database));
  }
  return forTerminalLines(out);
}

/**
 * The lines of the view, each made safe for the terminal: what status prints comes from the
 * database and from Redis (export names and dates, a heartbeat's role and host, an error), and
 * none of it may run as an escape sequence. Text made safe already passes unchanged.
 */
function forTerminalLines(lines: readonly string[]): string {
  return `${lines
    .join('\n')
    .split('\n')
    .map((line) => forTerminal(line))
    .join('\n')}\n`;
}

/** "auto-renewed staking: …": the cycles' compounded sums against the validators' accrued rewards. */
function formatCompounded(c: NonNullable<Status['compounded']>): string[] {
  if (c.differing.length === 0) {
    return [
      `auto-renewed staking: ${count(c.positions)} position(s); the compounded rewards of the stored cycles agree with the validators' accrued rewards`,
    ];
  }
  return [
    `WARNING: auto-renewed staking: ${c.differing.length} of ${count(c.positions)} position(s) disagree: the compounded rewards of the stored cycles differ from the validator's autoRenew accrued rewards (glacier_rewards_compounded_unreconciled_avax); check before filing (a cycle set aside, or not read yet: run the rewards and validators jobs)`,
    ...c.differing.map(
      (d) =>
        `  ${forTerminal(d.nodeId)} position ${forTerminal(d.stakingTxHash)} on ${d.network}: cycles ${d.compounded} nAVAX, validator ${d.accrued} nAVAX`,
    ),
  ];
}

// --- Records set aside and drift (issue 22) ---

/** How many records set aside, per reason: "2 (schema 1, bounds 1)". */
function reasons(byReason: Record<string, number>): string {
  return Object.entries(byReason)
    .map(([reason, n]) => `${forTerminal(reason)} ${count(n)}`)
    .join(', ');
}

/**
 * "records set aside: …": per job, how many, and the newest with what failed. Every stored string
 * is upstream's or bounded by the checks: escaped here for the terminal.
 */
function formatSetAside(jobs: Status['recordsSetAside'], now: Date): string[] {
  if (jobs.length === 0) return ['records set aside: none'];
  const total = jobs.reduce((n, j) => n + j.records, 0);
  const out = [
    `records set aside: ${count(total)} (rejected_records; docs/operations.md, "A record was set aside")`,
  ];
  for (const j of jobs) {
    const n = j.newest;
    const cut = n.rawCut ? `, cut at 16 KiB of ${count(n.rawBytes)} bytes` : '';
    out.push(
      `  ${forTerminal(j.job)}: ${count(j.records)} (${reasons(j.byReason)}); newest seen ${when(n.lastSeenAt, now)} from ${forTerminal(n.endpoint)}, ${forTerminal(n.naturalKey ?? n.recordId)}${cut}: ${forTerminal(n.problems)}`,
    );
  }
  return out;
}

/** "signatures not stored yet: …": per hash, its outcome, the API's message and its next attempt. */
function formatUnsigned(rows: Status['signaturesUnsigned'], now: Date): string[] {
  return [
    `signatures not stored yet: ${count(rows.length)} (signature_attempts; docs/collection.md, "signatures")`,
    ...rows.map(
      (a) =>
        `  ${forTerminal(a.txHash)} (${forTerminal(a.network)}): ${forTerminal(a.outcome.replace('_', ' '))}, ${a.status}: ${excerpt(a.message)}; ${count(a.failures)} run(s) since ${when(a.firstFailedAt, now)}; asked again ${a.outcome === 'not_found' ? 'on the next run' : when(a.nextAttemptAt, now)}`,
    ),
  ];
}

/** "upstream drift: …": per endpoint, the names the OpenAPI does not list. */
function formatDrift(drift: readonly DriftRow[], now: Date): string[] {
  const out = ['upstream drift: fields and enum values the OpenAPI does not list (stored as sent)'];
  for (const d of drift) {
    const what = d.kind === 'enumValue' ? 'enum value' : 'field';
    out.push(
      `  ${forTerminal(d.endpoint)}: ${what} ${forTerminal(d.name)} (seen ${count(d.timesSeen)} time${d.timesSeen === 1 ? '' : 's'}, first ${when(d.firstSeenAt, now)})`,
    );
  }
  return out;
}

// --- The service seen through Redis, overdue jobs, internal tables (issue 18) ---

/**
 * How long past its slot a run may start before the job is overdue: three periods of its schedule
 * (a slot waits behind the queue and the budget), at least 10 s and at most a minute. A schedule of
 * seconds is judged on seconds, not on the minute a daily one gets.
 */
export function overdueGraceMs(periodMs: number): number {
  return Math.min(60_000, Math.max(10_000, 3 * periodMs));
}

/**
 * The first slot of the schedule after the job's last run, if it is past by more than its grace:
 * the service should have run the job by now and did not (it is stopped, or stuck). A run still
 * going is not overdue; a job never run is "never run", not overdue.
 */
function overdueSince(
  schedule: string,
  config: Config,
  run: { startedAt: string; status: string } | undefined,
  now: Date,
): string | null {
  if (!run || run.status === 'running') return null;
  const cron = readCron(schedule, config.service.timezone);
  const due = cron.nextAfter(new Date(run.startedAt));
  const period = cron.nextAfter(due).getTime() - due.getTime();
  return due.getTime() + overdueGraceMs(period) < now.getTime() ? due.toISOString() : null;
}

/** A scheduler beats (true), none does (false), or nobody could tell (null). */
function schedulerRunning(service: ServiceProbe | null): boolean | null {
  if (!service?.reachable) return null;
  return service.processes.some((p) => p.role !== 'worker');
}

/** The collector's own bookkeeping (claims, the metrics' summaries), listed apart from the data tables. */
export function isInternalTable(name: string): boolean {
  return (
    name === 'export_claims' ||
    name === 'export_status_counts' ||
    name === 'store_meta' ||
    name.endsWith('_summaries')
  );
}

/** The rows per table: the data tables, then the internal ones under a heading of their own. */
function formatTables(database: Status['database']): string[] {
  const data = database.tables.filter((t) => !t.internal);
  const internal = database.tables.filter((t) => t.internal);
  const out = [formatStorage(data)];
  if (internal.length > 0) {
    out.push(
      '',
      "internal tables (the collector's bookkeeping)",
      formatTable(
        ['table', 'rows'],
        internal.map((t) => [t.table, count(t.rows)]),
        { right: [1] },
      ),
    );
  }
  return out;
}

/** "Redis at redis://… (REDIS_URL)", or "PostgreSQL postgres://… (QUEUE_URL), schema …". */
function unanswered(service: ServiceProbe): string {
  return service.backend === 'redis' && service.redis !== null
    ? `Redis at ${service.redis} (${service.where.slice(service.where.lastIndexOf('(') + 1, -1)})`
    : service.where;
}

/** "service: …" lines: the processes beating, or since when none does, and the queue's counts. */
function formatService(service: ServiceProbe | null, jobs: JobStatus[], now: Date, cli: string): string[] {
  if (!service) return [];
  const out: string[] = [];
  if (!service.reachable) {
    out.push(
      `service: unknown: ${unanswered(service)} does not answer (${service.error}); the runs below come from the database`,
    );
  } else if (service.processes.length === 0) {
    out.push(
      service.lastSeenAt
        ? `service: NOT RUNNING: no service seen since ${when(service.lastSeenAt, now)}; start it with \`${cli} start\` (the next runs below wait for it)`
        : `service: NOT RUNNING: no service has beaten under prefix "${service.prefix}" in ${service.where}; start it with \`${cli} start\` (the next runs below wait for it)`,
    );
  } else {
    out.push(
      `service: ${service.processes.length} process${service.processes.length === 1 ? '' : 'es'} running`,
    );
    for (const p of service.processes) {
      out.push(
        `  ${p.role.padEnd(9)} ${p.host}:${p.pid}  started ${when(p.startedAt, now)}, last beat ${when(p.beatAt, now)}`,
      );
    }
    if (!service.processes.some((p) => p.role !== 'worker')) {
      out.push(
        '  no scheduler runs (role all or scheduler): no new runs are enqueued, the next runs below wait for one',
      );
    }
  }
  for (const m of service.malformed) {
    out.push(
      `  malformed heartbeat ${m.key}: ${JSON.stringify(m.excerpt)} (not a beat this version writes; ignored)`,
    );
  }
  if (service.queue) {
    const q = service.queue;
    out.push(`queue: waiting ${q.waiting}, active ${q.active}, delayed ${q.delayed}, failed ${q.failed}`);
  }
  if (service.memory) {
    out.push(`redis memory: ${service.memory.summary}`);
    if (service.memory.problem) out.push(`  WARNING: ${service.memory.problem}`);
    if (service.memory.note) out.push(`  ${service.memory.note}`);
  }
  const overdue = jobs.filter((j) => j.overdueSince);
  if (overdue.length > 0) {
    out.push(
      `overdue: ${overdue.map((j) => j.job).join(', ')} (a slot of their schedule passed with no run since, by more than three periods of it: 10 s to a minute)`,
    );
  }
  out.push('');
  return out;
}
