import { type Config, FOREVER } from '../config/index.js';
import type { JobList } from '../kernel/index.js';
import type { Calls } from '../kernel/job.js';
import { readCron } from '../queue/schedule.js';
import {
  ASSUMED_REWARDS_PER_ID_PER_DAY,
  assumedPages,
  type BackfillEstimate,
  estimateBackfill,
  historyStart,
} from '../report/backfill.js';
import { type DiskEstimate, estimateDisk, formatDisk, keptForeverWarning } from '../report/disk.js';
import { isSizedTable, ROW_BYTES } from '../store/row-sizes.js';
import { rewardStreams } from '../sync/reward-streams.js';
import { formatTable } from '../terminal/text-table.js';
import { formatCount, span } from '../terminal/units.js';
import { type EndpointName, endpoints, type TierName } from '../upstream/endpoints.js';
import { type PlanBudget, planBudget } from './budget.js';

export { type PlanBudget, planBudget };

/**
 * What the configured schedules cost per day in compute units: the steady state (every stream
 * up to date: one page each) and the worst case (every stream reading `maxPages`), against the
 * effective budget (or `--tier`'s).
 */
export interface JobPlan {
  job: string;
  schedule: string;
  runsPerDay: number;
  /** Requests and compute units of one run, steady state and worst case. */
  requestsPerRun: { steady: number; worst: number };
  computeUnitsPerRun: { steady: number; worst: number };
  computeUnitsPerDay: { steady: number; worst: number };
  /**
   * The most a run (with its follow-ups) spends within one minute: the worst case, unless the job
   * spreads it (exports' polls): what the budget per minute must hold.
   */
  computeUnitsPerMinute: number;
  /** Rows its runs add to its table per day at most (steady, worst), when it says. */
  rowsPerDay?: TableRows | undefined;
  note?: string;
}

/** Rows per day a table can expect at most, steady state and worst case. */
export interface TableRows {
  table: string;
  steady: number;
  worst: number;
}

export interface Plan {
  jobs: JobPlan[];
  total: { steady: number; worst: number };
  budget: PlanBudget;
  /** Per table, the rows per day of the jobs writing it, and `job_runs`' one per run. */
  tables: TableRows[];
  warnings: string[];
  /** A first rewards backfill of the configured addresses and node ids, from a fresh UTC day. */
  rewardsBackfill?: RewardsBackfillPlan | undefined;
  /** What `tables` take on disk on the configured store, without and with `retention`. */
  disk: DiskEstimate;
}

export interface RewardsBackfillPlan {
  /** The history start assumed, ISO-8601 UTC (`--history`, else the network's launch). */
  historyStart: string;
  days: number;
  batches: number;
  /** At the assumed rewards per address and node id per day (src/report/backfill.ts). */
  rewards: number;
  budget: { computeUnitsPerMinute: number; computeUnitsPerDay: number };
  estimate: BackfillEstimate;
}

/** Average runs per day of a cron expression: the scheduler's own reading of it (src/queue/schedule.ts). */
export function runsPerDay(expression: string): number {
  return readCron(expression).runsPerDay();
}

/** Requests and compute units of a set of calls (endpoints.ts's compute units). */
export function tally(calls: Calls): { requests: number; computeUnits: number } {
  let requests = 0;
  let computeUnits = 0;
  for (const [name, n] of Object.entries(calls) as [EndpointName, number][]) {
    requests += n;
    computeUnits += n * endpoints[name].computeUnits;
  }
  return { requests, computeUnits };
}

/**
 * A first backfill's cost and duration: each batch's pages at the assumed reward rate over the
 * history, spent at the budget's pace from the start of a UTC day, `maxPages` per batch and run.
 */
export function planRewardsBackfill(
  config: Config,
  o: { history?: string | undefined; nowMs: number; tierName?: TierName | undefined },
): RewardsBackfillPlan | undefined {
  const job = config.jobs.rewards;
  if (!job) return undefined;
  const startMs = historyStart(o.history, o.nowMs);
  const seconds = (o.nowMs - startMs) / 1000;
  const streams = rewardStreams(job);
  const batches = streams.map((s) => ({
    pagesLeft: assumedPages(s.kind, s.ids.length, seconds, job.pageSize),
  }));
  const effective = planBudget(config, o.tierName);
  const budget = { computeUnitsPerMinute: effective.perMinute, computeUnitsPerDay: effective.perDay };
  const dayStart = o.nowMs - (o.nowMs % 86_400_000);
  const estimate = estimateBackfill(batches, {
    perMinute: budget.computeUnitsPerMinute,
    perDay: budget.computeUnitsPerDay,
    spentToday: 0,
    nowMs: dayStart,
    maxPages: job.maxPages,
    runsPerDay: readCron(job.schedule, config.service.timezone).runsPerDay(),
  });
  return {
    historyStart: new Date(startMs).toISOString(),
    days: Math.round(seconds / 86_400),
    batches: batches.length,
    rewards: Math.round(
      streams.reduce(
        (n, s) => n + s.ids.length * ASSUMED_REWARDS_PER_ID_PER_DAY[s.kind] * (seconds / 86_400),
        0,
      ),
    ),
    budget,
    estimate: { ...estimate, finishesAt: null },
  };
}

export function buildPlan(
  jobs: JobList,
  config: Config,
  tierName?: TierName,
  options: { history?: string | undefined; nowMs?: number } = {},
): Plan {
  const plans: JobPlan[] = [];
  for (const job of jobs) {
    const when = job.schedule(config);
    const cost = job.cost(config);
    if (!job.scheduled || !when?.enabled || !cost) continue;
    const runs = readCron(when.schedule, config.service.timezone).runsPerDay();
    const s = tally(cost.steady);
    const w = tally(cost.worst);
    const burst = cost.burst ? tally(cost.burst).computeUnits : w.computeUnits;
    plans.push({
      job: job.name,
      schedule: when.schedule,
      runsPerDay: round(runs),
      requestsPerRun: { steady: s.requests, worst: w.requests },
      computeUnitsPerRun: { steady: s.computeUnits, worst: w.computeUnits },
      computeUnitsPerDay: {
        steady: Math.ceil(runs * s.computeUnits),
        worst: Math.ceil(runs * w.computeUnits),
      },
      computeUnitsPerMinute: Math.min(burst, w.computeUnits),
      rowsPerDay: cost.rows && job.table ? rowsPerDay(job.table, runs, cost.rows) : undefined,
      note: cost.note,
    });
  }
  const total = plans.reduce(
    (t, p) => ({
      steady: t.steady + p.computeUnitsPerDay.steady,
      worst: t.worst + p.computeUnitsPerDay.worst,
    }),
    { steady: 0, worst: 0 },
  );
  const budget = planBudget(config, tierName);
  const n = formatCount;
  const warnings: string[] = [];
  if (total.steady > budget.perDay) {
    warnings.push(
      `steady state needs ${n(total.steady)} CU/day, over the budget's ${n(budget.perDay)} (${budget.source})`,
    );
  } else if (total.worst > budget.perDay) {
    warnings.push(
      `worst case needs ${n(total.worst)} CU/day, over the budget's ${n(budget.perDay)} (${budget.source}): runs that read maxPages every time would be rate limited`,
    );
  }
  for (const p of plans) {
    if (p.computeUnitsPerMinute > budget.perMinute) {
      warnings.push(
        `one ${p.job} run can spend ${n(p.computeUnitsPerMinute)} CU within a minute, over the budget's ${n(budget.perMinute)} CU/minute (${budget.source}): expect 429s (they are waited out)`,
      );
    }
  }
  const rewardsBackfill = planRewardsBackfill(config, {
    history: options.history,
    nowMs: options.nowMs ?? Date.now(),
    tierName,
  });
  const tables = tableRows(plans);
  const store = config.database.kind;
  const disk = estimateDisk(tables, config.retention, store, (t) =>
    isSizedTable(t) ? ROW_BYTES[store][t] : undefined,
  );
  warnings.push(...retentionWarnings(config, disk));
  return { jobs: plans, total, budget, tables, warnings, rewardsBackfill, disk };
}

/** The largest table kept forever; a retention nothing applies (the maintenance job disabled). */
export function retentionWarnings(config: Config, disk: DiskEstimate): string[] {
  const warnings: string[] = [];
  const forever = keptForeverWarning(disk);
  if (forever) warnings.push(forever);
  const pruned = Object.values(config.retention).some((r) => r !== FOREVER);
  if (pruned && !config.jobs.maintenance.enabled) {
    warnings.push(
      'retention is set but jobs.maintenance is disabled: nothing prunes the tables, the database grows as if kept forever',
    );
  }
  return warnings;
}

function rowsPerDay(table: string, runs: number, perRun: { steady: number; worst: number }): TableRows {
  return { table, steady: Math.ceil(runs * perRun.steady), worst: Math.ceil(runs * perRun.worst) };
}

/** The jobs' rows per day summed per table, plus `job_runs` (a row a run). */
function tableRows(plans: readonly JobPlan[]): TableRows[] {
  const byTable = new Map<string, TableRows>();
  const runs = Math.ceil(plans.reduce((n, p) => n + p.runsPerDay, 0));
  for (const r of [
    ...plans.flatMap((p) => p.rowsPerDay ?? []),
    { table: 'job_runs', steady: runs, worst: runs },
  ]) {
    const t = byTable.get(r.table) ?? { table: r.table, steady: 0, worst: 0 };
    byTable.set(r.table, { table: r.table, steady: t.steady + r.steady, worst: t.worst + r.worst });
  }
  return [...byTable.values()];
}

/** The rows per day table of `plan`, beside the compute units. */
function formatTableRows(tables: readonly TableRows[]): string {
  return formatTable(
    ['table', 'rows/day (steady, at most)', 'rows/day (worst)'],
    tables.map((t) => [t.table, formatCount(t.steady), formatCount(t.worst)]),
    { right: [1, 2] },
  );
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

export function formatPlan(plan: Plan): string {
  const header = ['job', 'schedule', 'runs/day', 'CU/run', 'CU/day (steady)', 'CU/day (worst)'];
  const rows = [
    ...plan.jobs.map((p) => [
      p.job,
      p.schedule,
      String(p.runsPerDay),
      p.computeUnitsPerRun.steady === p.computeUnitsPerRun.worst
        ? String(p.computeUnitsPerRun.steady)
        : `${p.computeUnitsPerRun.steady}–${p.computeUnitsPerRun.worst}`,
      formatCount(p.computeUnitsPerDay.steady),
      formatCount(p.computeUnitsPerDay.worst),
    ]),
    ['total', '', '', '', formatCount(plan.total.steady), formatCount(plan.total.worst)],
  ];
  const lines = [
    formatTable(header, rows, { right: [2, 3, 4, 5] }),
    '',
    formatTableRows(plan.tables),
    '',
    formatDisk(plan.disk),
  ];
  const b = plan.budget;
  const share = (n: number) => `${((100 * n) / b.perDay).toFixed(1)}%`;
  lines.push(
    '',
    `budget (${b.source}): ${formatCount(b.perDay)} CU/day, ${formatCount(b.perMinute)} CU/minute; steady ${share(plan.total.steady)}, worst ${share(plan.total.worst)} of the daily budget`,
  );
  for (const note of plan.jobs.filter((p) => p.note)) lines.push(`${note.job}: ${note.note}`);
  const r = plan.rewardsBackfill;
  if (r) {
    const e = r.estimate;
    lines.push(
      `rewards first backfill: ${r.days} days of history (from ${r.historyStart.slice(0, 10)}; --history sets it), ~${formatCount(r.rewards)} rewards at the assumed rate, ${formatCount(e.pagesLeft)} page(s) in ${r.batches} batch(es): ${formatCount(e.computeUnitsLeft)} CU, about ${span(e.seconds)} at ${formatCount(r.budget.computeUnitsPerMinute)} CU/minute and ${formatCount(r.budget.computeUnitsPerDay)} CU/day${e.limitedBy === 'schedule' ? ` (the schedule sets the pace: maxPages per batch and run; ${span(e.budgetSeconds)} on the budget alone)` : ''}`,
    );
  }
  for (const w of plan.warnings) lines.push(`WARNING: ${w}`);
  return lines.join('\n');
}

/** `plan`: the table (or JSON) of the configured schedules' cost. */
export function printPlan(
  jobs: JobList,
  config: Config,
  opts: { tier?: TierName | undefined; json?: boolean | undefined; history?: string | undefined },
): void {
  const plan = buildPlan(jobs, config, opts.tier, { history: opts.history });
  console.log(opts.json ? JSON.stringify(plan, null, 2) : formatPlan(plan));
}
