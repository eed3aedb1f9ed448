/**
 * Figure 3, steady-state cost: after every job of the demo configuration has collected what there
 * is, a run with nothing new, per job: requests and compute units against the minimum (one page per
 * stream or batch, one request per usage series, the supply once, nothing for signatures already
 * fetched or exports already downloaded). Goal: 1.00. Counted, not timed: one run is enough.
 */
import { jobs } from '../../jobs/index.js';
import { demoFileConfig } from '../../src/commands/demo-config.js';
import { type Config, loadConfig } from '../../src/config/index.js';
import { type Job, runHandler } from '../../src/kernel/index.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { createLogger } from '../../src/runtime/logger.js';
import { createApp } from '../../src/service/app.js';
import { startSimulator } from '../../src/simulator/index.js';
import { type EndpointName, endpoints } from '../../src/upstream/index.js';
import { type Figure, figure } from '../lib.js';
import { scratch } from '../support.js';

const T0 = Date.UTC(2025, 5, 15, 12, 34, 56);

/**
 * The fewest requests and compute units a run with nothing new can cost: what the job itself
 * declares (`cost(config).idle`, else `.steady`), so a new job brings its own minimum.
 */
function minimum(job: Job, config: Config): { requests: number; computeUnits: number } {
  const declared = job.cost(config);
  if (!declared) throw new Error(`${job.name} is scheduled but declares no cost (defineJob's \`cost\`)`);
  const calls = Object.entries(declared.idle ?? declared.steady) as [EndpointName, number][];
  return {
    requests: calls.reduce((sum, [, n]) => sum + n, 0),
    computeUnits: calls.reduce((sum, [endpoint, n]) => sum + n * endpoints[endpoint].computeUnits, 0),
  };
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
    for (const definition of jobs) {
      const job = definition.name;
      const prepared = definition.scheduled ? definition.prepare(config) : undefined;
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
      const min = minimum(definition, config);
      const goal = min.requests === 0 ? ({ on: 'value', max: 0 } as const) : { max: 1.0 };
      figures.push(
        figure({
          id: `steady-state.${job}.requests`,
          title: `${job}: requests of a run with nothing new`,
          unit: 'requests',
          value: idle.requests,
          baseline: min.requests,
          baselineLabel: "the job's declared idle cost",
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
