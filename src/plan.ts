import { rewardQueries } from '../jobs/rewards.js';
import { seriesOf } from '../jobs/usage-metrics.js';
import type { Config } from './config/index.js';
import { readCron } from './schedule.js';
import { formatTable } from './text-table.js';
import { type EndpointName, endpoints, type TierName, tiers } from './upstream/endpoints.js';

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
  note?: string;
}

export interface Plan {
  jobs: JobPlan[];
  total: { steady: number; worst: number };
  tier?: { name: TierName; perDay: number; perMinute: number } | undefined;
  warnings: string[];
}

/** Average runs per day of a cron expression: the scheduler's own reading of it (src/schedule.ts). */
export function runsPerDay(expression: string): number {
  return readCron(expression).runsPerDay();
}

/** Requests of one run, per endpoint. */
type Calls = Partial<Record<EndpointName, number>>;

function tally(calls: Calls): { requests: number; computeUnits: number } {
  let requests = 0;
  let computeUnits = 0;
  for (const [name, n] of Object.entries(calls) as [EndpointName, number][]) {
    requests += n;
    computeUnits += n * endpoints[name].computeUnits;
  }
  return { requests, computeUnits };
}

/** Status reads assumed per export while it runs. */
const POLLS_PER_EXPORT = 10;

export function buildPlan(config: Config, tierName?: TierName): Plan {
  const j = config.jobs;
  const plans: JobPlan[] = [];
  const add = (job: string, schedule: string, steady: Calls, worst: Calls, note?: string) => {
    const runs = runsPerDay(schedule);
    const s = tally(steady);
    const w = tally(worst);
    plans.push({
      job,
      schedule,
      runsPerDay: round(runs),
      requestsPerRun: { steady: s.requests, worst: w.requests },
      computeUnitsPerRun: { steady: s.computeUnits, worst: w.computeUnits },
      computeUnitsPerDay: {
        steady: Math.ceil(runs * s.computeUnits),
        worst: Math.ceil(runs * w.computeUnits),
      },
      note,
    });
  };
  if (j.supply?.enabled) add('supply', j.supply.schedule, { supply: 1 }, { supply: 1 });
  if (j.transactions?.enabled) {
    const streams = j.transactions.networks.length * j.transactions.statuses.length;
    const { schedule, maxPages } = j.transactions;
    add(
      'transactions',
      schedule,
      { transactions: streams },
      { transactions: streams * maxPages },
      `${streams} stream(s)`,
    );
  }
  if (j.rewards?.enabled) {
    const batches = rewardQueries(j.rewards).length;
    const { schedule, maxPages, addresses, nodeIds } = j.rewards;
    add(
      'rewards',
      schedule,
      { rewards: batches },
      { rewards: batches * maxPages },
      `${batches} batch(es) for ${addresses.length} address(es) and ${nodeIds.length} node id(s)`,
    );
  }
  if (j.usageMetrics?.enabled) {
    const calls: Calls = {};
    for (const source of j.usageMetrics.sources) {
      for (const series of seriesOf(source)) calls[series.endpoint] = (calls[series.endpoint] ?? 0) + 1;
    }
    add('usage-metrics', j.usageMetrics.schedule, calls, calls);
  }
  if (j.signatures?.enabled) {
    const n = new Set(j.signatures.txHashes).size;
    add(
      'signatures',
      j.signatures.schedule,
      {},
      { signatures: n },
      'each hash is fetched once; the worst case is the first run',
    );
  }
  if (j.exports?.enabled) {
    const n = j.exports.definitions.length;
    add(
      'exports',
      j.exports.schedule,
      { createExport: n, getOperation: n },
      { createExport: n, getOperation: n * POLLS_PER_EXPORT },
      `${n} definition(s); status reads assume up to ${POLLS_PER_EXPORT} per export`,
    );
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
  return { jobs: plans, total, tier, warnings };
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
