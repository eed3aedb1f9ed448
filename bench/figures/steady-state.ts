/**
 * Figure 3, steady-state cost: after every job of the demo configuration has collected what there
 * is, a run with nothing new, per job: requests and compute units against the minimum (one page per
 * stream or batch, one request per usage series, the supply once, nothing for signatures already
 * fetched or exports already downloaded). Goal: 1.00. Counted, not timed: one run is enough.
 */
import { jobs } from '../../jobs/index.js';
import { rewardQueries } from '../../jobs/rewards.js';
import { seriesOf } from '../../jobs/usage-metrics.js';
import { demoFileConfig } from '../../src/commands/demo-config.js';
import { type Config, loadConfig } from '../../src/config/index.js';
import { runHandler } from '../../src/kernel/index.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { createLogger } from '../../src/runtime/logger.js';
import { createApp } from '../../src/service/app.js';
import { startSimulator } from '../../src/simulator/index.js';
import { endpoints } from '../../src/upstream/index.js';
import { type Figure, figure } from '../lib.js';
import { scratch } from '../support.js';

const T0 = Date.UTC(2025, 5, 15, 12, 34, 56);

/** The fewest requests and compute units a run with nothing new can cost, per job. */
function minimum(job: string, config: Config): { requests: number; computeUnits: number } {
  const per = (endpoint: keyof typeof endpoints, n: number) => ({
    requests: n,
    computeUnits: n * endpoints[endpoint].computeUnits,
  });
  switch (job) {
    case 'supply':
      return per('supply', 1);
    case 'transactions': {
      const t = config.jobs.transactions!;
      return per('transactions', t.networks.length * t.statuses.length);
    }
    case 'rewards':
      return per('rewards', rewardQueries(config.jobs.rewards!).length);
    case 'usage-metrics': {
      const series = config.jobs.usageMetrics!.sources.flatMap(seriesOf);
      return {
        requests: series.length,
        computeUnits: series.reduce((sum, s) => sum + endpoints[s.endpoint].computeUnits, 0),
      };
    }
    case 'signatures':
    case 'exports':
      return { requests: 0, computeUnits: 0 };
    default:
      throw new Error(`no minimum for ${job}: add it here`);
  }
}

export async function run(): Promise<Figure[]> {
  const clock = createManualClock(T0);
  const sim = await startSimulator({ port: 0, seed: 11, clock, exports: { runningMs: 0 } });
  const dirs = scratch('steady');
  const file = demoFileConfig();
  file.jobs.exports.directory = dirs.path('exports');
  const config = loadConfig({
    file,
    env: { GLACIER_BASE_URL: sim.url, DATABASE_PATH: dirs.path('steady.db'), LOG_LEVEL: 'silent' },
  });
  const app = await createApp(config, { clock, log: createLogger({ level: 'silent', pretty: false }) });
  const figures: Figure[] = [];
  try {
    for (const { name: job, scheduled, prepare } of jobs) {
      const prepared = scheduled ? prepare(config) : undefined;
      if (!prepared) continue;
      const handler = (_: undefined, ctx: Parameters<typeof prepared.run>[0]) => prepared.run(ctx);
      // Collect what there is (a backfill may take several runs), then measure a run with nothing new.
      for (let i = 0; i < 3; i++) {
        const first = await runHandler(job, handler, undefined, app);
        if (first.status !== 'succeeded') throw first.error;
      }
      const idle = await runHandler(job, handler, undefined, app);
      if (idle.status !== 'succeeded') throw idle.error;
      if (idle.rowsWritten !== 0 && job !== 'supply') {
        throw new Error(`${job}: a run with nothing new wrote ${idle.rowsWritten} rows`);
      }
      const min = minimum(job, config);
      const goal = min.requests === 0 ? ({ on: 'value', max: 0 } as const) : { max: 1.0 };
      figures.push(
        figure({
          id: `steady-state.${job}.requests`,
          title: `${job}: requests of a run with nothing new`,
          unit: 'requests',
          value: idle.requests,
          baseline: min.requests,
          baselineLabel: 'one page per stream or batch',
          goal,
        }),
        figure({
          id: `steady-state.${job}.compute-units`,
          title: `${job}: compute units of a run with nothing new`,
          unit: 'CU',
          value: idle.computeUnits,
          baseline: min.computeUnits,
          baselineLabel: 'the minimum requests × their compute units',
          goal: min.computeUnits === 0 ? ({ on: 'value', max: 0 } as const) : { max: 1.0 },
        }),
      );
    }
    return figures;
  } finally {
    await app.close();
    await sim.close();
    dirs.cleanup();
  }
}
