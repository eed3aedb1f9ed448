import { dirname, join } from 'node:path';
import { type Config, loadConfig, maskUrlCredentials, printableDatabaseLocation } from '../config/index.js';
import { PROGRAM, shellWord } from '../config/invocation.js';
import { maskQueueUrl } from '../config/queue.js';
import { type JobList, runJob } from '../kernel/index.js';
import type { QueueBackend } from '../queue/backend.js';
import { openQueueBackend } from '../queue/open-backend.js';
import { createLogger } from '../runtime/logger.js';
import { createApp } from '../service/app.js';
import { createLifecycle } from '../service/lifecycle.js';
import { startService } from '../service/service.js';
import type { FaultConfig } from '../simulator/faults.js';
import { type SimulatorHandle, startSimulator } from '../simulator/index.js';
import type { Store } from '../store/index.js';
import { formatTable } from '../terminal/text-table.js';
import { demoFileConfig, demoServiceConfig } from './demo-config.js';

const queries: { title: string; sql: string }[] = [
  {
    title: 'Latest supply snapshot',
    sql: 'SELECT last_updated, total_supply, circulating_supply, total_staked FROM supply_snapshots ORDER BY last_updated DESC LIMIT 1',
  },
  {
    title: 'Transactions per chain',
    sql: 'SELECT network, chain_id, COUNT(*) AS txs, MAX(block_timestamp) AS newest FROM transactions GROUP BY 1, 2 ORDER BY txs DESC',
  },
  {
    title: 'Rewards per address, in AVAX and USD (amounts are exact text; cast only to display)',
    sql: `SELECT a.address, COUNT(*) AS rewards,
            ROUND(SUM(CAST(r.amount AS REAL)) / 1e9, 4) AS avax,
            ROUND(SUM(CAST(r.amount AS REAL) / 1e9 * CAST(p.value AS REAL)), 2) AS usd
          FROM rewards r JOIN reward_addresses a USING (network, utxo_id)
          LEFT JOIN reward_prices p ON p.network = r.network AND p.utxo_id = r.utxo_id AND p.currency = 'usd'
          GROUP BY a.address ORDER BY rewards DESC LIMIT 10`,
  },
  {
    title:
      "Validators (the rewards job's node id): its validation now, the days left, uptime, the reward it will pay, and periods that paid none",
    sql: `SELECT node_id, CASE active WHEN 1 THEN 'active' ELSE 'not active' END AS validation,
            datetime(end_timestamp, 'unixepoch') AS ends,
            ROUND((end_timestamp - CAST(strftime('%s', 'now') AS INTEGER)) / 86400.0, 1) AS days_left,
            ROUND(uptime_ratio * 100, 2) AS uptime_pct,
            ROUND(CAST(potential_validation_reward AS REAL) / 1e9, 4) AS expected_avax,
            unrewarded AS unrewarded_periods
          FROM validator_summaries ORDER BY node_id`,
  },
  {
    title:
      'Records set aside (the simulator sent a transaction out of bounds on purpose: the rest of its page was stored; `glacier-collector status` shows them)',
    sql: 'SELECT job, endpoint, reason, fields, natural_key, times_seen FROM rejected_records ORDER BY job, record_id LIMIT 10',
  },
  {
    title: 'Upstream drift (fields and enum values the OpenAPI does not list, stored as sent)',
    sql: 'SELECT endpoint, kind, name, times_seen FROM upstream_drift ORDER BY endpoint, kind, name LIMIT 20',
  },
  {
    title: 'Job runs',
    sql: 'SELECT job, status, COUNT(*) AS runs, SUM(rows_written) AS rows, SUM(compute_units) AS cu FROM job_runs GROUP BY 1, 2 ORDER BY 1',
  },
];

/**
 * What the demo's simulator does wrong on purpose, once each: the first transactions page holds a
 * record out of bounds (set aside), the next one drift (fields and an enum value the OpenAPI does
 * not list, two contract creations); the first rewards page a field the OpenAPI does not list.
 */
const DEMO_FAULTS: FaultConfig = {
  endpoints: {
    transactions: { plan: [{ kind: 'badRecord' }, { kind: 'drift' }] },
    rewards: { plan: [{ kind: 'drift' }] },
  },
};

export interface DemoOptions {
  /** Every job the collector knows (jobs/index.ts, from the entry point). */
  jobs: JobList;
  databasePath: string;
  /** How long the service runs before the demo stops by itself. @defaultValue 60 s */
  durationMs?: number;
  /** Environment of the demo's config (REDIS_URL, METRICS_PORT). @defaultValue process.env */
  env?: NodeJS.ProcessEnv;
  /** Ends the demo early (Ctrl-C). */
  signal?: AbortSignal;
  print?: (line: string) => void;
  /** The command that runs the CLI as the user started it (`npx glacier-collector`), for the next steps. @defaultValue 'glacier-collector' */
  cli?: string;
}

/**
 * `npm run demo`: the whole service against the local simulator, no key and no network needed:
 * the scheduler, the workers, /metrics and the database, on schedules of seconds, for a bounded time
 * or until Ctrl-C. Without a Redis it says so in one line and runs every job twice, in-process.
 */
export async function runDemo(options: DemoOptions): Promise<void> {
  const print = options.print ?? ((line: string) => console.log(line));
  const durationMs = options.durationMs ?? 60_000;
  // The banner before anything else logs: what this is, and where it writes.
  print(
    [
      'glacier-collector demo: the whole collector against a local simulator of the Avalanche Data API',
      `(no API key, no network), writing ${options.databasePath}; about ${Math.round(durationMs / 1000)} s, or until Ctrl-C.`,
      'The simulator sends one transaction out of bounds and a few fields the API does not document, as a',
      'real API may: the collector sets the first aside and notes the others (status: records set aside, drift).',
    ].join('\n'),
  );
  const lifecycle = createLifecycle();
  // logLimit 0: nothing reads the simulator's logs here, and a demo may be left running for weeks.
  const sim = await startSimulator({
    port: 0,
    seed: 1,
    exports: { runningMs: 2_000 },
    logLimit: 0,
    faults: DEMO_FAULTS,
  });
  lifecycle.add('simulator', () => sim.close());
  const env = options.env ?? process.env;
  // The export files go beside the database, wherever --database puts it.
  const exportsDirectory = join(dirname(options.databasePath), 'demo-exports');
  const configFor = (file: ReturnType<typeof demoFileConfig>): Config =>
    loadConfig({
      env: {
        REDIS_URL: env.REDIS_URL,
        QUEUE_URL: env.QUEUE_URL,
        METRICS_PORT: env.METRICS_PORT ?? '9464',
        METRICS_HOST: env.METRICS_HOST ?? '127.0.0.1',
        LOG_LEVEL: env.LOG_LEVEL ?? 'info',
        LOG_FORMAT: env.LOG_FORMAT,
        NO_COLOR: env.NO_COLOR,
        GLACIER_BASE_URL: sim.url,
        DATABASE_PATH: options.databasePath,
      },
      file: {
        ...file,
        jobs: { ...file.jobs, exports: { ...file.jobs.exports, directory: exportsDirectory } },
      },
    });
  try {
    const config = configFor(demoServiceConfig());
    const backend = await backendAnswers(config);
    if (backend.answers) {
      await runServiceDemo(config, sim, { ...options, durationMs }, print);
    } else {
      print(
        `No ${backend.where}, so the demo runs every job twice in-process instead of the service; ${config.queue.kind === 'redis' ? 'start one with `redis-server` (or `docker compose up -d redis`)' : 'start it, or unset QUEUE_URL for Redis,'} to see the whole service.`,
      );
      await runOneShotDemo(options.jobs, configFor(demoFileConfig()), print);
    }
    print(nextSteps(options.databasePath, exportsDirectory, options.cli ?? PROGRAM));
  } finally {
    await lifecycle.release();
  }
}

/** What to try once the demo is over: the real thing, step by step, as commands `cli` runs. */
function nextSteps(databasePath: string, exportsDirectory: string, cli: string): string {
  const steps: [string, string][] = [
    ['config init', 'a commented glacier-collector.yaml: your addresses, node ids, schedules'],
    ['config check', 'validates it and says what it will collect, and where'],
    ['plan', 'compute units per day against your budget, and the disk it takes'],
    ['start', `the service; from another terminal: ${cli} status`],
  ];
  const width = Math.max(...steps.map(([args]) => `${cli} ${args}`.length)) + 2;
  return [
    '',
    `The demo is over; its database (${databasePath}) and export files (${exportsDirectory}) stay for you to query.`,
    'Next, against the real API:',
    ...steps.map(([args, what]) => `  ${`${cli} ${args}`.padEnd(width)}# ${what}`),
    `Every command and setting: docs/cli.md and docs/configuration.md (${cli} --help).`,
  ].join('\n');
}

/** The demo's own queue keys or schema (its queue prefix is its own): removed once its service has stopped. */
async function removeDemoQueue(config: Config): Promise<void> {
  let backend: QueueBackend | undefined;
  try {
    backend = await openQueueBackend(
      config,
      createLogger({ level: 'silent' }),
      'glacier-collector:demo-cleanup',
    );
    await backend.ping(2_000);
    await backend.removeAll();
  } catch {
    // The backend went away meanwhile: the keys stay; the next demo uses the same prefix.
  } finally {
    await backend?.close();
  }
}

/** Whether the queue's backend answers, and where it was looked for ("Redis at redis://… (REDIS_URL)"). */
async function backendAnswers(config: Config): Promise<{ answers: boolean; where: string }> {
  const where =
    config.queue.kind === 'redis'
      ? `Redis answers at ${maskUrlCredentials(config.redisUrl)} (${config.queue.setting})`
      : `PostgreSQL answers at ${maskQueueUrl(config.queue.url)} (QUEUE_URL)`;
  let backend: QueueBackend | undefined;
  try {
    backend = await openQueueBackend(
      config,
      createLogger({ level: 'silent' }),
      'glacier-collector:demo-probe',
    );
    await backend.ping(1_000);
    return { answers: true, where };
  } catch {
    return { answers: false, where };
  } finally {
    await backend?.close();
  }
}

async function runServiceDemo(
  config: Config,
  sim: SimulatorHandle,
  options: DemoOptions,
  print: (line: string) => void,
): Promise<void> {
  const service = await startService(config, { jobs: options.jobs });
  // The demo's database is its own SQLite file: a path to paste into sqlite3.
  const path = printableDatabaseLocation(config);
  const durationMs = options.durationMs ?? 60_000;
  try {
    print(
      [
        '',
        `The collector runs against the simulator at ${sim.url}, on schedules of seconds.`,
        `  metrics:  ${service.url}/metrics   (health: ${service.url}/healthz, ${service.url}/readyz)`,
        `  database: ${path}   (sqlite3 ${shellWord(path)})`,
        `It stops by itself after ${Math.round(durationMs / 1000)} s, or on Ctrl-C. Try meanwhile:`,
        `  sqlite3 ${shellWord(path)} "SELECT job, status, rows_written FROM job_runs ORDER BY id DESC LIMIT 10"`,
        '',
      ].join('\n'),
    );
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, durationMs);
      options.signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
    await printQueries(service.app.store, print);
  } finally {
    await service.close();
    await removeDemoQueue(config);
  }
}

async function runOneShotDemo(jobs: JobList, config: Config, print: (line: string) => void): Promise<void> {
  const app = await createApp(config);
  try {
    for (const round of [1, 2]) {
      for (const job of jobs.filter((j) => j.scheduled && j.schedule(config))) {
        const summary = await runJob(job, app, {
          config,
          jobs,
          scope: `demo round ${round}`,
          followUps: 'until-done',
        });
        if (summary.status === 'failed') process.exitCode = 1;
      }
    }
    await printQueries(app.store, print);
  } finally {
    await app.close();
  }
}

/** The demo's database is always SQLite (its own file, whatever DATABASE_URL says): these are SQLite's SQL. */
async function printQueries(store: Store, print: (line: string) => void): Promise<void> {
  for (const q of queries) {
    print(`\n${q.title}\n  ${q.sql.replace(/\s+/g, ' ')}`);
    print(resultTable(await store.all<Record<string, unknown>>(q.sql)));
  }
  print(
    `\nThe database is ${store.location}: open it with any SQLite client (sqlite3 ${shellWord(store.location)}).`,
  );
}

/** Query rows as a text table: the columns by name, numbers right-aligned, no index column. */
function resultTable(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return '  (no rows)';
  const columns = Object.keys(rows[0]!);
  const right = columns.flatMap((c, i) => (rows.every((r) => typeof r[c] === 'number') ? [i] : []));
  const cells = rows.map((r) =>
    columns.map((c) => (r[c] === null || r[c] === undefined ? '' : String(r[c]))),
  );
  return formatTable(columns, cells, { right })
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}
