import { join } from 'node:path';
import { jobs } from '../../jobs/index.js';
import { demoAddress, demoCb58, demoNodeId } from '../../src/commands/demo-config.js';
import type { Config } from '../../src/config/index.js';
import { findJob, type JobArgs, type RunSummary, runJob } from '../../src/kernel/index.js';
import { createMetrics, type Metrics, type Readiness } from '../../src/metrics/index.js';
import { type HttpServer, startHttpServer } from '../../src/metrics/server.js';
import type { SimulatorOptions } from '../../src/simulator/index.js';
import { type Collector, configOf, startCollector } from './collector.js';
import { scrape } from './exposition.js';
import { captureLog } from './log.js';
import { tempDir } from './tmp.js';

/** The simulator, a database, metrics wired as the service wires them, and their HTTP server. */
export const addresses = [demoAddress('validator-1'), demoAddress('delegator-1')];
export const nodeId = demoNodeId('node-1');
export const txHashes = [demoCb58('a'), demoCb58('b'), demoCb58('never-asked')];

/** A config with every job; the exports definition writes under `directory`. */
export function everyJobConfig(directory: string): Config {
  return configOf({
    jobs: {
      supply: { schedule: '*/5 * * * *' },
      transactions: { schedule: '* * * * *', pageSize: 100, maxPages: 3 },
      rewards: { schedule: '0 * * * *', addresses, nodeIds: [nodeId], currency: 'eur' },
      usageMetrics: {
        schedule: '0 * * * *',
        sources: [{ source: 'dataApi', timeInterval: 'hourly', groupBy: 'requestPath', lookback: '2d' }],
      },
      signatures: { schedule: '*/10 * * * *', txHashes },
      exports: {
        schedule: '0 3 * * 1-5',
        directory,
        definitions: [
          {
            name: 'treasury',
            type: 'TRANSACTION_EXPORT_EVM',
            addresses: ['0x00000000000000000000000000000000000000aa'],
            includeChains: ['43114'],
          },
        ],
      },
    },
  });
}

export interface Rig {
  c: Collector;
  config: Config;
  metrics: Metrics;
  server: HttpServer;
  logs: () => string;
  /** Runs a job as the worker does (its payload from `config`, or from `config` as `adjust` changes it). */
  run(job: string, options?: { args?: JobArgs; adjust?: (config: Config) => Config }): Promise<RunSummary>;
  scrape(accept?: string): ReturnType<typeof scrape>;
}

/** The simulator, a database, metrics wired as the service wires them, and the server on port 0. */
export async function rig(
  closers: (() => Promise<void> | void)[],

  options: { sim?: SimulatorOptions; readiness?: () => Promise<Readiness>; collectorTimeoutMs?: number } = {},
): Promise<Rig> {
  const dir = tempDir();
  closers.push(dir.cleanup);
  const config = everyJobConfig(join(dir.dir, 'exports'));
  let metrics: Metrics | undefined;
  const c = await startCollector({
    sim: { txPerMinute: 120, exports: { runningMs: 0 }, ...options.sim },
    onAttempt: (e) => metrics?.observeAttempt(e),
  });
  closers.push(c.close);
  const { log, text: logText } = captureLog('info');
  metrics = createMetrics({
    store: c.store,
    config,
    jobs,
    log,
    clock: c.clock,
    role: 'worker',
    collectorTimeoutMs: options.collectorTimeoutMs,
  });
  const readiness =
    options.readiness ??
    (async () => ({ ready: true, checks: { database: { ok: true }, redis: { ok: true } } }));
  metrics.setReadiness(readiness);
  const server = await startHttpServer({ host: '127.0.0.1', port: 0, log, metrics, readiness });
  closers.push(server.close);
  const m = metrics;
  return {
    c,
    config,
    metrics: m,
    server,
    logs: logText,
    async run(job, options = {}) {
      const def = findJob(jobs, job);
      if (!def) throw new Error(`no job ${job}`);
      const summary = await runJob(def, c.deps, {
        config: options.adjust?.(config) ?? config,
        ...(options.args && { args: options.args }),
      });
      m.observeRun(summary);
      return summary;
    },
    scrape: (accept) => scrape(`${server.url}/metrics`, accept),
  };
}
