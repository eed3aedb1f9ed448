import { Queue } from 'bullmq';
import { jobs } from '../../jobs/index.js';
import { type Config, printableDatabaseLocation } from '../config/index.js';
import type { RunSummary } from '../kernel/run.js';
import {
  createMetrics,
  type HttpServer,
  type Metrics,
  QUEUE_STATES,
  type ReadyReport,
  startHttpServer,
} from '../metrics/index.js';
import { createSharedBudget, type SharedBudget } from '../queue/budget.js';
import { QUEUE_NAME, type QueuedJobData, type Role } from '../queue/jobs.js';
import { checkEvictionPolicy, connectRedis, type RedisConnections } from '../queue/redis.js';
import { createScheduler, type Scheduler } from '../queue/scheduler.js';
import { type CollectorWorker, createCollectorWorker } from '../queue/worker.js';
import { type Clock, systemClock } from '../runtime/clock.js';
import { createLogger, type Logger } from '../runtime/logger.js';
import { appliedMigrations, checkWritable, shippedMigrations } from '../store/index.js';
import type { AttemptEvent } from '../upstream/index.js';
import { type App, createApp } from './app.js';

export { type Role, roles } from '../queue/jobs.js';

export interface ServiceOptions {
  role?: Role;
  log?: Logger;
  clock?: Clock;
  /** Observers (metrics): every finished run, every skipped slot, every upstream attempt. */
  onRun?: (summary: RunSummary) => void;
  onSkippedSlot?: (job: string) => void;
  onAttempt?: (e: AttemptEvent) => void;
  /** Waits of the shared budget (tests run it on a faster clock). @defaultValue real time */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface Service {
  readonly role: Role;
  /** The health server, e.g. http://127.0.0.1:9464 */
  readonly url: string;
  readonly queue: Queue<QueuedJobData>;
  readonly app: App;
  readonly budget: SharedBudget | undefined;
  readonly metrics: Metrics;
  readiness(): Promise<ReadyReport>;
  /** Stops the triggers, lets active jobs finish (service.shutdownGrace), then closes everything. */
  close(): Promise<void>;
}

/**
 * The long-running collector (`start`): owns everything it opens and closes it in reverse order.
 *
 * Opening: database (migrated) → Redis connections (in the background: an outage at start is
 * logged once and retried) → shared budget and HTTP client → queue → health server → worker →
 * scheduler. Closing: scheduler triggers → worker (grace period for active jobs) → queue → Redis →
 * HTTP client → health server → database.
 */
export async function startService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const role = options.role ?? 'all';
  const log = (options.log ?? createLogger({ level: config.logLevel })).child({ role });
  const clock = options.clock ?? systemClock;
  const prefix = config.service.queuePrefix;
  // Filled as things open; shutdown closes whatever is there, in the order the issue asks for.
  let scheduler: Scheduler | undefined;
  let worker: CollectorWorker | undefined;
  let queue: Queue<QueuedJobData> | undefined;
  let redis: RedisConnections | undefined;
  let app: App | undefined;
  let server: HttpServer | undefined;
  const shutdown = async () => {
    const steps: [string, (() => Promise<void> | void) | undefined][] = [
      ['scheduler', scheduler && (() => scheduler!.stop())],
      ['worker', worker && (() => worker!.close(config.service.shutdownGrace))],
      ['queue', queue && (() => queue!.close())],
      ['redis', redis && (() => redis!.close())],
      ['http agent', app && (() => app!.client.close())],
      ['http server', server && (() => server!.close())],
      ['database', app && (() => app!.store.close())],
    ];
    for (const [name, close] of steps) {
      try {
        await close?.();
      } catch (err) {
        log.warn({ err: (err as Error).message }, `closing the ${name} failed`);
      }
    }
  };

  try {
    const conns = connectRedis(config.redisUrl, log, `glacier-collector:${role}`);
    redis = conns;
    conns.producer.once('ready', () => {
      void checkEvictionPolicy(conns.producer).then((warning) => warning && log.warn(warning));
    });

    const runsJobs = role !== 'scheduler';
    const budget = runsJobs
      ? createSharedBudget({
          redis: conns.producer,
          prefix: `${prefix}:budget`,
          perMinute: config.budget.computeUnitsPerMinute,
          perDay: config.budget.computeUnitsPerDay,
          clock,
          log,
          ...(options.sleep && { sleep: options.sleep }),
        })
      : undefined;
    // The metrics see every upstream attempt; they are created once the database is migrated.
    let metrics: Metrics | undefined;
    const theApp = await createApp(config, {
      log,
      clock,
      ...(budget && { budget }),
      onAttempt: (e) => {
        metrics?.observeAttempt(e);
        options.onAttempt?.(e);
      },
    });
    app = theApp;
    const theMetrics = createMetrics({ store: theApp.store, config, log, clock, role });
    metrics = theMetrics;

    const theQueue = new Queue<QueuedJobData>(QUEUE_NAME, { connection: conns.producer, prefix });
    theQueue.on('error', () => undefined); // the connection reports outages, once each
    queue = theQueue;

    const expectedMigrations = shippedMigrations(theApp.store.dialect);
    const readiness = async (): Promise<ReadyReport> => {
      const checks: ReadyReport['checks'] = {};
      const check = async (name: string, fn: () => Promise<void> | void) => {
        try {
          await fn();
          checks[name] = { ok: true };
        } catch (err) {
          checks[name] = { ok: false, error: (err as Error).message };
        }
      };
      await check('database', () => checkWritable(theApp.store));
      await check('migrations', async () => {
        const applied = await appliedMigrations(theApp.store);
        if (applied < expectedMigrations) {
          throw new Error(
            `${applied} of ${expectedMigrations} migrations applied; run \`glacier-collector migrate\``,
          );
        }
      });
      await check('redis', () => conns.ping());
      return { ready: Object.values(checks).every((c) => c.ok), checks };
    };

    theMetrics.setReadiness(readiness);
    theMetrics.setQueueCounts(async () => ({ [QUEUE_NAME]: await theQueue.getJobCounts(...QUEUE_STATES) }));
    if (budget) theMetrics.setBudget(() => budget.snapshot());
    const theServer = await startHttpServer({
      host: config.metricsHost,
      port: config.metricsPort,
      log,
      metrics: theMetrics,
      readiness,
      webConfig: config.metricsWebConfig,
    });
    server = theServer;

    if (runsJobs) {
      worker = createCollectorWorker({
        config,
        jobs,
        connection: conns.worker,
        queue: theQueue,
        deps: theApp,
        log,
        onRun: (summary) => {
          theMetrics.observeRun(summary);
          options.onRun?.(summary);
        },
      });
    }
    if (role !== 'worker') {
      scheduler = createScheduler({
        config,
        jobs,
        queue: theQueue,
        log,
        now: () => clock.now(),
        onSkippedSlot: (job) => {
          theMetrics.observeSkippedSlot(job);
          options.onSkippedSlot?.(job);
        },
      });
      scheduler.start();
    }

    log.info(
      {
        url: theServer.url,
        redis: conns.where,
        database: printableDatabaseLocation(config),
        concurrency: runsJobs ? config.service.concurrency : 0,
      },
      `glacier-collector started (role ${role})`,
    );

    let closing: Promise<void> | undefined;
    return {
      role,
      url: theServer.url,
      queue: theQueue,
      app: theApp,
      budget,
      metrics: theMetrics,
      readiness,
      close() {
        closing ??= (async () => {
          log.info({ active: worker?.active() ?? 0 }, 'shutting down');
          await shutdown();
          log.info('stopped');
        })();
        return closing;
      },
    };
  } catch (err) {
    await shutdown();
    throw err;
  }
}
