/**
 * The metrics of one process (docs/metrics.md): the collected data, read at scrape time from
 * summaries kept current when rows are written; the collector's own counters, fed by the service;
 * what the service reads at scrape time (queues, budget, readiness); build info and prom-client's
 * default process metrics. Everything hangs off one `Registry` of this object: no global registry,
 * so a test can create two.
 */
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { Config } from '../config/index.js';
import type { JobList, RunSummary } from '../kernel/index.js';
import type { QueueWatchReading } from '../queue/backend.js';
import type { Role } from '../queue/jobs.js';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';
import { packageVersion } from '../runtime/version.js';
import type { Store } from '../store/index.js';
import type { AttemptEvent } from '../upstream/index.js';
import { DEFAULT_SERIES_CAP } from './cap.js';
import { defineExportsCollector } from './collectors/exports.js';
import { configuredJobs, defineJobsCollector } from './collectors/jobs.js';
import { defineRecordsCollector } from './collectors/records.js';
import { defineRewardsCollector } from './collectors/rewards.js';
import {
  type BudgetReading,
  defineServiceCollectors,
  type QueueCounts,
  type Readiness,
  type ServiceReaders,
} from './collectors/service.js';
import { defineSignaturesCollector } from './collectors/signatures.js';
import { defineSupplyCollector } from './collectors/supply.js';
import { defineTransactionsCollector } from './collectors/transactions.js';
import { defineUsageCollector } from './collectors/usage.js';
import { defineValidatorsCollector } from './collectors/validators.js';
import { createRenderer, type Exposition, negotiate } from './exposition.js';
import { createOwnMetrics, type OwnMetrics } from './own.js';
import { createScrape } from './scrape.js';

export { DEFAULT_SERIES_CAP } from './cap.js';
export { configuredJobs } from './collectors/jobs.js';
export { QUEUE_STATES } from './collectors/service.js';
export {
  createDiskWatch,
  createOwnMetrics,
  type DiskWatch,
  type Observer,
  type OwnMetrics,
  observeAll,
} from './own.js';
export {
  DEFAULT_READINESS_TIMEOUT_MS,
  type HttpServer,
  type ReadyReport,
  startHttpServer,
} from './server.js';
export type { BudgetReading, Exposition, QueueCounts, Readiness };

export interface Metrics {
  readonly registry: Registry;
  /** Wire to the client's `onAttempt`: requests by endpoint and code, retries, 429s, CU, durations. */
  observeAttempt(e: AttemptEvent): void;
  /** Each `runJob` summary: runs by outcome, failures by reason (the kernel's classification), rows. */
  observeRun(s: RunSummary): void;
  /** An overlapping slot the scheduler skipped. */
  observeSkippedSlot(job: string): void;
  /** Read at scrape time: jobs by state per queue, from BullMQ's getJobCounts. */
  setQueueCounts(read: () => Promise<QueueCounts>): void;
  /** Read at scrape time: the shared compute-unit budget and what is left this minute and today. */
  setBudget(read: () => Promise<BudgetReading>): void;
  /** Read at scrape time: the readiness checks (`glacier_ready{check}`); the same function /readyz calls. */
  setReadiness(read: () => Promise<Readiness>): void;
  /** Read at scrape time: the PostgreSQL queue's clock offset and faults (undefined on Redis). */
  setQueueWatch(read: () => QueueWatchReading | undefined): void;
  /** The scrape text for an `Accept` header: OpenMetrics when asked, else Prometheus text. Use it
   * rather than `registry.metrics()`, which runs no collector (createRenderer runs them). */
  expose(accept?: string): Promise<Exposition>;
}

export interface MetricsDeps {
  store: Store;
  config: Config;
  /** Every job the collector knows (jobs/index.ts, from the entry point). */
  jobs: JobList;
  log: Logger;
  clock: Clock;
  /** The process's `--role`, in `glacier_build_info`. @defaultValue 'all' */
  role?: Role;
  /** Series per metric family above which label values are summed into "other". @defaultValue 500 */
  seriesCap?: number;
  /** How long a collector may take on one scrape. @defaultValue 2000 ms */
  collectorTimeoutMs?: number;
  /** The collector's own counters, created before the store (the service's). @defaultValue those of the configured jobs */
  own?: OwnMetrics;
}

/**
 * Default metrics that break the naming rules: prom-client's `*_total` gauges repeat the sum of
 * their per-type siblings (`glacier_nodejs_active_handles` by type), so they are dropped.
 */
const DROPPED_DEFAULTS = [
  'glacier_nodejs_active_handles_total',
  'glacier_nodejs_active_requests_total',
  'glacier_nodejs_active_resources_total',
];

export function createMetrics(deps: MetricsDeps): Metrics {
  const { store, config, jobs, log } = deps;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'glacier_' });
  for (const name of DROPPED_DEFAULTS) registry.removeSingleMetric(name);

  new Gauge({
    name: 'glacier_build_info',
    help: 'Always 1: the collector version and the role of this process.',
    labelNames: ['version', 'role'],
    registers: [registry],
  }).set({ version: packageVersion(), role: deps.role ?? 'all' }, 1);

  const scrape = createScrape({
    registry,
    log,
    clock: deps.clock,
    seriesCap: deps.seriesCap ?? DEFAULT_SERIES_CAP,
    timeoutMs: deps.collectorTimeoutMs,
  });
  defineSupplyCollector(scrape, store);
  defineRewardsCollector(scrape, store, config);
  defineTransactionsCollector(scrape, store);
  defineUsageCollector(scrape, store);
  defineSignaturesCollector(scrape, store, config);
  defineValidatorsCollector(scrape, store, config);
  // Read only: the export handlers keep export_summaries current (jobs/exports.ts).
  defineExportsCollector(scrape, store);
  defineJobsCollector(scrape, store, config, jobs);
  defineRecordsCollector(
    scrape,
    store,
    jobs.filter((j) => j.restore && j.schedule(config)).map((j) => j.name),
  );
  const readers: ServiceReaders = {};
  defineServiceCollectors(scrape, config.budget, readers);

  const own = deps.own ?? createOwnMetrics(configuredJobs(jobs, config));
  own.register(registry);
  const render = createRenderer(registry, scrape);

  return {
    registry,
    observeAttempt: own.observeAttempt,
    observeRun: own.observeRun,
    observeSkippedSlot: own.observeSkippedSlot,
    setQueueCounts(read) {
      readers.queues = read;
    },
    setBudget(read) {
      readers.budget = read;
    },
    setReadiness(read) {
      readers.readiness = read;
    },
    setQueueWatch(read) {
      readers.queueWatch = read;
    },
    expose: (accept) => render(negotiate(accept)),
  };
}
