import type { Config } from '../config/index.js';
import type { JobList } from '../kernel/index.js';
import type { Calls } from '../kernel/job.js';
import { readCron } from '../queue/schedule.js';
import { formatTable } from '../terminal/text-table.js';
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
  note?: string;
}

export interface Plan {
  jobs: JobPlan[];
  total: { steady: number; worst: number };
  budget: PlanBudget;
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
  const n = (x: number) => x.toLocaleString('en');
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
    if (p.computeUnitsPerRun.worst > budget.perMinute) {
      warnings.push(
        `one ${p.job} run can spend ${n(p.computeUnitsPerRun.worst)} CU, over the budget's ${n(budget.perMinute)} CU/minute (${budget.source}): expect 429s (they are waited out)`,
      );
    }
  }
  return { jobs: plans, total, budget, warnings };
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
  const lines = [formatTable(header, rows, { right: [2, 3, 4, 5] })];
  const b = plan.budget;
  const share = (n: number) => `${((100 * n) / b.perDay).toFixed(1)}%`;
  lines.push(
    '',
    `budget (${b.source}): ${b.perDay.toLocaleString('en')} CU/day, ${b.perMinute.toLocaleString('en')} CU/minute; steady ${share(plan.total.steady)}, worst ${share(plan.total.worst)} of the daily budget`,
  );
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
