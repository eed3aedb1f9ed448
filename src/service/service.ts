import { type Config, printableDatabaseLocation } from '../config/index.js';
import { PROGRAM } from '../config/invocation.js';
import type { JobList } from '../kernel/index.js';
import {
  configuredJobs,
  createDiskWatch,
  createMetrics,
  createOwnMetrics,
  type Metrics,
  type Observer,
  observeAll,
  QUEUE_STATES,
  type ReadyReport,
  startHttpServer,
} from '../metrics/index.js';
import type { CollectorQueue, QueueBackend } from '../queue/backend.js';
import { createSharedBudget, type SharedBudget } from '../queue/budget.js';
import { watchEpoch } from '../queue/epoch.js';
import { startHeartbeat } from '../queue/heartbeat.js';
import { QUEUE_NAME, type Role } from '../queue/jobs.js';
import { openQueueBackend } from '../queue/open-backend.js';
import { untilSetUp } from '../queue/redis.js';
import { createScheduler } from '../queue/scheduler.js';
import { createCollectorWorker } from '../queue/worker.js';
import { type Clock, systemClock } from '../runtime/clock.js';
import { configuredLogger, createLogger, type Logger } from '../runtime/logger.js';
import { appliedMigrations, checkWritable, shippedMigrations, sumComputeUnitsSince } from '../store/index.js';
import { type App, createApp } from './app.js';
import { createLifecycle, type ReleaseReport } from './lifecycle.js';
import { type ReadinessCheck, runReadiness } from './readiness.js';

export { type Role, roles } from '../queue/jobs.js';

export interface ServiceOptions {
  /** Every job the collector knows (jobs/index.ts, handed over by the entry point). */
  jobs: JobList;
  role?: Role;
  log?: Logger;
  clock?: Clock;
  /** Also told, after the metrics: every finished run, every skipped slot, every upstream attempt. */
  onRun?: Observer['observeRun'];
  onSkippedSlot?: Observer['observeSkippedSlot'];
  onAttempt?: Observer['observeAttempt'];
  /** Waits of the shared budget (tests run it on a faster clock). @defaultValue real time */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** How often a queue backend that lost its data is looked for (tests). @defaultValue 10 s */
  redisCheckIntervalMs?: number;
  /** The command that runs the CLI as the user started it, for the fixes /readyz names. @defaultValue 'glacier-collector' */
  cli?: string | undefined;
}

export interface Service {
  readonly role: Role;
  /** The health server, e.g. http://127.0.0.1:9464 */
  readonly url: string;
  readonly queue: CollectorQueue;
  /** Where the queue lives: Redis or PostgreSQL. */
  readonly backend: QueueBackend;
  readonly app: App;
  readonly budget: SharedBudget | undefined;
  readonly metrics: Metrics;
  readiness(): Promise<ReadyReport>;
  /**
   * Re-reads METRICS_WEB_CONFIG and its TLS files (SIGHUP): a rotated password or certificate in
   * force without a restart. False when the file does not load (logged; the one in force stays),
   * undefined without a web config. Other settings need a restart.
   */
  reloadWebConfig(): Promise<boolean | undefined>;
  /**
   * Stops the triggers, lets active jobs finish (service.shutdownGrace), then closes everything, in
   * reverse order of opening, within the shutdown deadline: what could not close in time is
   * abandoned and reported.
   */
  close(): Promise<ReleaseReport>;
}

/** Shutdown ends this long after `service.shutdownGrace` at most, whatever the queue's backend or the database do. */
export const SHUTDOWN_MARGIN_MS = 10_000;

/**
 * The long-running collector (`start`): owns everything it opens, through one lifecycle whose
 * release steps close it in reverse order.
 *
 * Opening: the queue's backend (Redis connects in the background: an outage at start is logged once
 * and retried; PostgreSQL is migrated) → database (migrated) and HTTP client, with the shared budget
 * → queue → health server → worker → scheduler. Closing, within `shutdownGrace` +
 * SHUTDOWN_MARGIN_MS: scheduler triggers → worker (grace period for active jobs, then interrupted)
 * → health server → queue → HTTP client → database → the backend's connections.
 */
export async function startService(config: Config, options: ServiceOptions): Promise<Service> {
  const role = options.role ?? 'all';
  const log = (options.log ?? createLogger(configuredLogger(config))).child({ role });
  const clock = options.clock ?? systemClock;
  const prefix = config.service.queuePrefix;
  const grace = config.service.shutdownGrace;
  const lifecycle = createLifecycle({ log, deadlineMs: grace + SHUTDOWN_MARGIN_MS });

  try {
    const backend = await openQueueBackend(config, log, `glacier-collector:${role}`, { watch: true });
    lifecycle.add(backend.checkName, () => backend.close());
    const unsubscribeSettings = backend.onReconnect(() => {
      unsubscribeSettings();
      void backend.checkSettings().then((warning) => warning && log.warn(warning));
    });

    const runsJobs = role !== 'scheduler';
    const budget = runsJobs
      ? createSharedBudget({
          backend,
          prefix: 'budget',
          perMinute: config.budget.computeUnitsPerMinute,
          perDay: config.budget.computeUnitsPerDay,
          clock,
          log,
          ...(options.sleep && { sleep: options.sleep }),
        })
      : undefined;
    // The counters need no store: one observer, whole before the client, the worker and the scheduler exist.
    const own = createOwnMetrics(configuredJobs(options.jobs, config));
    const disk = createDiskWatch();
    const observer = observeAll(own, disk, {
      observeRun: options.onRun,
      observeAttempt: options.onAttempt,
      observeSkippedSlot: options.onSkippedSlot,
    });
    const app = await createApp(config, { log, clock, lifecycle, ...(budget && { budget }), observer });
    const metrics = createMetrics({ store: app.store, config, jobs: options.jobs, log, clock, role, own });

    const expectedMigrations = shippedMigrations(app.store);
    // /readyz: a list of named checks (readiness.ts); the worker's is added once it exists.
    const checks: ReadinessCheck[] = [
      { name: 'database', check: () => checkWritable(app.store) },
      {
        name: 'migrations',
        async check() {
          const applied = await appliedMigrations(app.store);
          if (applied < expectedMigrations) {
            throw new Error(
              `${applied} of ${expectedMigrations} migrations applied; run \`${options.cli ?? PROGRAM} migrate\``,
            );
          }
        },
      },
      { name: backend.checkName, check: () => backend.ping() },
      {
        name: 'disk',
        check() {
          const diskFull = disk.diskFull();
          if (diskFull)
            throw new Error(`the last write failed: ${diskFull}; ready again once a run succeeds`);
        },
      },
    ];
    const readiness = () => runReadiness(checks);

    metrics.setReadiness(readiness);
    if (budget) metrics.setBudget(() => budget.snapshot());
    metrics.setQueueWatch(() => backend.watchReading());
    const server = await startHttpServer({
      host: config.metricsHost,
      port: config.metricsPort,
      log,
      metrics,
      readiness,
      webConfig: config.metricsWebConfig,
    });
    lifecycle.add('http server', () => server.close());

    // Nothing goes to the queue backend before the server serves: a start refused for its port (or
    // anything before it) leaves no heartbeat, no epoch and no queue keys behind, and `status` sees
    // no service that never served.
    // `status` reads it: which processes run, and since when none does.
    const heartbeat = startHeartbeat({ backend, role });
    lifecycle.add('heartbeat', () => heartbeat.stop(), { timeoutMs: 2_000 });
    const epoch = watchEpoch({
      backend,
      prefix,
      log,
      onEmptied: async () => {
        if (!budget) return;
        const today = new Date(clock.now()).toISOString().slice(0, 10);
        await budget.restoreDay(await sumComputeUnitsSince(app.store, `${today}T00:00:00.000Z`));
      },
      ...(options.redisCheckIntervalMs !== undefined && { intervalMs: options.redisCheckIntervalMs }),
    });
    lifecycle.add('queue epoch check', () => epoch.stop());

    const queue = backend.createQueue();
    lifecycle.add(
      'queue',
      async () => {
        await untilSetUp(queue);
        await queue.close();
      },
      { timeoutMs: 5_000 },
    );
    metrics.setQueueCounts(async () => ({ [QUEUE_NAME]: await queue.getJobCounts(...QUEUE_STATES) }));

    const worker = runsJobs
      ? createCollectorWorker({
          config,
          jobs: options.jobs,
          backend,
          queue,
          deps: app,
          log,
          onRun: observer.observeRun,
          onBackendFault: observer.observeBackendFault,
          backendUp: () => backend.isUp(),
        })
      : undefined;
    if (worker) {
      lifecycle.add('worker', () => worker.close(grace), { timeoutMs: grace + 5_000 });
      // Ready only while the worker can claim: PING answers while Redis refuses every write.
      checks.push({
        name: 'worker',
        async check() {
          const problem = worker.claimProblem();
          if (problem) throw new Error(problem);
          await backend.checkClaim?.();
        },
      });
    }
    if (role !== 'worker') {
      const scheduler = createScheduler({
        config,
        jobs: options.jobs,
        queue,
        log,
        now: () => clock.now(),
        onSkippedSlot: observer.observeSkippedSlot,
        needsFirstRun: (job) => job.needsFirstRun(config, app.store),
      });
      scheduler.start();
      // Enqueues still in flight when the backend is away would wait for it for ever: they are abandoned.
      lifecycle.add('scheduler', () => scheduler.stop(), { timeoutMs: 2_000 });
    }

    log.info(
      {
        url: server.url,
        queue: backend.where,
        database: printableDatabaseLocation(config),
        concurrency: runsJobs ? config.service.concurrency : 0,
      },
      `glacier-collector started (role ${role}, queue on ${backend.name})`,
    );

    let closing: Promise<ReleaseReport> | undefined;
    return {
      role,
      url: server.url,
      queue,
      backend,
      app,
      budget,
      metrics,
      readiness,
      async reloadWebConfig() {
        if (!config.metricsWebConfig) {
          log.info('reload: no METRICS_WEB_CONFIG to re-read (other settings need a restart)');
          return undefined;
        }
        return server.reloadWebConfig();
      },
      close() {
        closing ??= (async () => {
          log.info({ active: worker?.active() ?? 0 }, 'shutting down');
          const report = await lifecycle.release();
          if (report.abandoned.length > 0) {
            log.warn({ abandoned: report.abandoned }, 'stopped, abandoning what did not close in time');
          } else log.info('stopped');
          return report;
        })();
        return closing;
      },
    };
  } catch (err) {
    await lifecycle.release();
    throw err;
  }
}
