import type { Config } from '../config/index.js';
import type { JobList } from '../kernel/index.js';
import type { Calls } from '../kernel/job.js';
import { readCron } from '../queue/schedule.js';
import { formatTable } from '../terminal/text-table.js';
import { type EndpointName, endpoints, type TierName, tiers } from '../upstream/endpoints.js';

/**
 * What the configured schedules cost per day in compute units: the steady state (every stream
 * up to date: one page each) and the worst case (every stream reading `maxPages`), against a tier.
 */
export interface JobPlan {
  job: string;
  schedule: string;
  runsPerDay: number;
  /** Requests and compute units of one run, steady state and worst case. */
  requestsPerRun: { steady: number; worst: number };
  computeUnitsPerRun: { steady: number; worst: number };
  computeUnitsPerDay: { steady: number; worst: number };
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
  tier?: { name: TierName; perDay: number; perMinute: number } | undefined;
  /** Per table, the rows per day of the jobs writing it, and `job_runs`' one per run. */
  tables: TableRows[];
  warnings: string[];
}

/** Average runs per day of a cron expression: the scheduler's own reading of it (src/queue/schedule.ts). */
export function runsPerDay(expression: string): number {
  return readCron(expression).runsPerDay();
}

function tally(calls: Calls): { requests: number; computeUnits: number } {
  let requests = 0;
  let computeUnits = 0;
  for (const [name, n] of Object.entries(calls) as [EndpointName, number][]) {
    requests += n;
    computeUnits += n * endpoints[name].computeUnits;
  }
  return { requests, computeUnits };
}

export function buildPlan(jobs: JobList, config: Config, tierName?: TierName): Plan {
  const plans: JobPlan[] = [];
  for (const job of jobs) {
    const when = job.schedule(config);
    const cost = job.cost(config);
    if (!job.scheduled || !when?.enabled || !cost) continue;
    const runs = readCron(when.schedule, config.service.timezone).runsPerDay();
    const s = tally(cost.steady);
    const w = tally(cost.worst);
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
  const warnings: string[] = [];
  const tier = tierName ? { name: tierName, ...tiers[tierName] } : undefined;
  if (tier) {
    if (total.steady > tier.perDay) {
      warnings.push(
        `steady state needs ${total.steady.toLocaleString('en')} CU/day, over the ${tier.name} tier's ${tier.perDay.toLocaleString('en')}`,
      );
    } else if (total.worst > tier.perDay) {
      warnings.push(
        `worst case needs ${total.worst.toLocaleString('en')} CU/day, over the ${tier.name} tier's ${tier.perDay.toLocaleString('en')}: runs that read maxPages every time would be rate limited`,
      );
    }
    for (const p of plans) {
      if (p.computeUnitsPerRun.worst > tier.perMinute) {
        warnings.push(
          `one ${p.job} run can spend ${p.computeUnitsPerRun.worst.toLocaleString('en')} CU, over the ${tier.name} tier's ${tier.perMinute.toLocaleString('en')} CU/minute: expect 429s (they are waited out)`,
        );
      }
    }
  }
  return { jobs: plans, total, tier, tables: tableRows(plans), warnings };
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
    tables.map((t) => [t.table, t.steady.toLocaleString('en'), t.worst.toLocaleString('en')]),
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
      p.computeUnitsPerDay.steady.toLocaleString('en'),
      p.computeUnitsPerDay.worst.toLocaleString('en'),
    ]),
    ['total', '', '', '', plan.total.steady.toLocaleString('en'), plan.total.worst.toLocaleString('en')],
  ];
  const lines = [formatTable(header, rows, { right: [2, 3, 4, 5] }), '', formatTableRows(plan.tables)];
  if (plan.tier) {
    const share = (n: number) => `${((100 * n) / plan.tier!.perDay).toFixed(1)}%`;
    lines.push(
      '',
      `tier ${plan.tier.name}: ${plan.tier.perDay.toLocaleString('en')} CU/day, ${plan.tier.perMinute.toLocaleString('en')} CU/minute; steady ${share(plan.total.steady)}, worst ${share(plan.total.worst)} of the daily budget`,
    );
  }
  for (const note of plan.jobs.filter((p) => p.note)) lines.push(`${note.job}: ${note.note}`);
  for (const w of plan.warnings) lines.push(`WARNING: ${w}`);
  return lines.join('\n');
}

/** `plan`: the table (or JSON) of the configured schedules' cost. */
export function printPlan(
  jobs: JobList,
  config: Config,
  opts: { tier?: TierName | undefined; json?: boolean | undefined },
): void {
  const plan = buildPlan(jobs, config, opts.tier);
  console.log(opts.json ? JSON.stringify(plan, null, 2) : formatPlan(plan));
}
