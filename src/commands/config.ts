/** `config check`, `config init` and `migrate`: the configuration and the database schema. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type ClientTls, describeClientTls } from '../config/client-tls.js';
import { formatDuration } from '../config/durations.js';
import { ConfigError } from '../config/errors.js';
import {
  type Config,
  DEFAULT_CONFIG_FILE,
  describeConfig,
  FOREVER,
  maskUrlCredentials,
  printableDatabaseLocation,
  readWebTls,
  type WebTls,
} from '../config/index.js';
import { PROGRAM, shellWord } from '../config/invocation.js';
import { describeQueueBackend } from '../config/queue.js';
import { printableRedis, type RedisSettings } from '../config/redis.js';
import { forTerminal } from '../escape/terminal.js';
import type { JobList } from '../kernel/index.js';
import { packageRoot } from '../runtime/package-root.js';
import { formatTable } from '../terminal/text-table.js';
import { formatCount } from '../terminal/units.js';
import { planBudget } from './budget.js';
import { buildPlan, retentionWarnings } from './plan.js';
import { UsageError } from './usage.js';

/**
 * `config check`: a short summary of what the configuration does; `--print` the whole of it. The
 * metrics web config is loaded as `start` loads it: its TLS files are opened and parsed too, so a
 * certificate `start` would refuse fails here first.
 */
export function checkConfig(
  config: Config,
  jobs: JobList,
  opts: { print?: boolean; cli?: string } = {},
): void {
  const tls = config.metricsWebConfig && readWebTls(config.metricsWebConfig);
  console.log(
    opts.print
      ? JSON.stringify(describeConfig(config), null, 2)
      : summarizeConfig(config, jobs, { cli: opts.cli, tls }),
  );
}

/**
 * `config check` on a PostgreSQL queue: the schema `service.queuePrefix` names is not another
 * prefix's (`sec5-x` and `sec5_x` are one schema), as `start` would refuse. Looked up with a short
 * timeout; a database that does not answer is not looked at (the check is about the file).
 */
export async function checkQueuePrefix(config: Config): Promise<void> {
  if (config.queue.kind !== 'postgres') return;
  const { QueuePrefixCollisionError, queuePool, queueSchemaOwner } = await import(
    '../queue/postgres-backend.js'
  );
  const pool = queuePool(config.queue, {
    name: 'glacier-collector:config-check',
    max: 1,
    connectTimeoutMs: 2_000,
    statementTimeoutMs: 2_000,
  });
  pool.on('error', () => undefined);
  let owner: string | undefined;
  try {
    owner = await queueSchemaOwner(pool, config.queue);
  } catch {
    return;
  } finally {
    await pool.end().catch(() => undefined);
  }
  if (owner !== undefined && owner !== config.service.queuePrefix) {
    throw new ConfigError(
      new QueuePrefixCollisionError(config.service.queuePrefix, owner, config.queue.schema).message,
    );
  }
}

/** "transactions 7d, jobRuns 90d, …, supplySnapshots forever". */
function describeRetention(retention: Config['retention']): string {
  return Object.entries(retention)
    .map(([key, kept]) => `${key} ${kept === FOREVER ? FOREVER : formatDuration(kept)}`)
    .join(', ');
}

/**
 * The summary: the configured jobs (by their names: `usage-metrics` is configured under
 * `jobs.usageMetrics`), store, Redis, budget, metrics, API, retention, and a warning when the
 * database would grow without bound (the largest table kept forever).
 */
export function summarizeConfig(
  config: Config,
  jobs: JobList,
  opts: { cli?: string | undefined; tls?: WebTls | undefined } = {},
): string {
  const cli = opts.cli ?? PROGRAM;
  const configured = jobs.flatMap((job) => {
    const when = job.scheduled ? job.schedule(config) : undefined;
    return when ? [{ job: job.name, when }] : [];
  });
  const enabled = configured.filter((j) => j.when.enabled);
  const budget = planBudget(config);
  const lines = [
    `config OK: ${config.configPath ?? `no config file (${DEFAULT_CONFIG_FILE} not found): no job is configured`}`,
    '',
    configured.length === 0
      ? `jobs: none configured (see glacier-collector.example.yaml, or \`${cli} config init\`)`
      : `jobs: ${enabled.length} enabled of ${configured.length} configured (schedules in ${config.service.timezone})`,
  ];
  if (configured.length > 0) {
    const table = formatTable(
      ['job', 'schedule', 'note'],
      configured.map((j) => [
        j.job,
        j.when.schedule,
        [j.when.enabled ? '' : 'disabled', j.when.runOnStart ? 'runs at start too' : '']
          .filter(Boolean)
          .join(', '),
      ]),
    );
    lines.push(...table.split('\n').map((l) => `  ${l}`));
  }
  const plan = buildPlan(jobs, config);
  lines.push(
    '',
    `store:   ${config.database.kind === 'postgres' ? 'PostgreSQL' : 'SQLite'} ${printableDatabaseLocation(config)}`,
    ...(config.database.kind === 'postgres'
      ? describePostgresTls(config.database.url, config.database.tls, 'DATABASE_URL')
      : []),
    `retention: ${describeRetention(config.retention)}`,
    ...describeQueue(config),
    `budget:  ${formatCount(budget.perDay)} CU/day, ${formatCount(budget.perMinute)} CU/minute (${budget.source})`,
    ...describeMetricsAccess(config, opts.tls),
    `API:     ${maskUrlCredentials(config.baseUrl)}, ${config.apiKey ? 'API key set' : 'no API key (keyless limits)'}`,
    ...retentionWarnings(config, plan.disk).map((w) => `WARNING: ${w} (\`${cli} plan\` sizes it)`),
    '',
    `The whole resolved configuration (defaults filled in, secrets masked): ${cli} config check --print`,
  );
  return lines.join('\n');
}

/** Which backend the queue runs on, and where. */
function describeQueue(config: Config): string[] {
  const at = `(queue prefix ${config.service.queuePrefix}, ${config.service.concurrency} jobs at once per worker)`;
  if (config.queue.kind === 'postgres') {
    return [
      `queue:   ${describeQueueBackend(config.queue, config.redisUrl)} ${at}; no Redis needed`,
      ...describePostgresTls(config.queue.url, config.queue.tls, 'QUEUE_URL'),
    ];
  }
  return [
    `queue:   Redis (${config.queue.setting}; a postgres:// QUEUE_URL puts it on PostgreSQL)`,
    `redis:   ${printableRedis(config.redis)} ${at}`,
    `         ${describeRedisConnection(config.redis)}`,
  ];
}

/** How the queue's Redis is reached: one server or Sentinel, the passwords (set or not, never shown), TLS. */
function describeRedisConnection(redis: RedisSettings): string {
  const set = (p: string | undefined) => (p === undefined ? 'not set' : 'set');
  const tls =
    redis.kind === 'url' && !redis.url.startsWith('rediss:')
      ? 'TLS off (a rediss:// URL turns it on)'
      : `TLS on: ${describeClientTls(redis.tls)}`;
  if (redis.kind === 'url') {
    const password = new URL(redis.url).password ? 'in REDIS_URL' : set(redis.password);
    return `connection: one Redis (REDIS_URL), password ${password}; ${tls}`;
  }
  return `connection: Redis Sentinel (REDIS_SENTINELS, ${redis.sentinels.length} sentinel${redis.sentinels.length === 1 ? '' : 's'}, master "${redis.master}"), sentinel password ${set(redis.sentinelPassword)}, Redis password ${set(redis.password)}; ${redis.tls ? tls : 'TLS off (REDIS_TLS_CA_FILE turns it on)'}`;
}

/** A PostgreSQL's TLS (the store's, or the queue's): the DATABASE_TLS_* files, or what the URL's sslmode asks. */
function describePostgresTls(url: string, tls: ClientTls | undefined, variable: string): string[] {
  const mode = new URL(url).searchParams.get('sslmode');
  if (tls)
    return [
      `         TLS on (${mode === 'verify-ca' ? 'verify-ca' : 'verify-full'}): ${describeClientTls(tls)}`,
    ];
  return [
    mode && mode !== 'disable'
      ? `         TLS: sslmode=${mode} from ${variable}, the system's CAs (DATABASE_TLS_CA_FILE names another)`
      : `         TLS off (sslmode in ${variable}, or DATABASE_TLS_CA_FILE, turns it on)`,
  ];
}

/** The metrics address as it is served: its scheme, and what protects it. */
function describeMetricsAccess(config: Config, tls: WebTls | undefined): string[] {
  const web = config.metricsWebConfig;
  const host = config.metricsHost.includes(':') ? `[${config.metricsHost}]` : config.metricsHost;
  const url = `${web?.tls ? 'https' : 'http'}://${host}:${config.metricsPort}/metrics`;
  if (!web) return [`metrics: ${url} (open to whoever reaches the port: no METRICS_WEB_CONFIG)`];
  const users = Object.keys(web.users);
  const lines = [`metrics: ${url} (METRICS_WEB_CONFIG ${web.path})`];
  if (web.tls && tls) {
    lines.push(
      `         TLS ${web.tls.minVersion} to ${web.tls.maxVersion}, certificate ${tls.subject} valid until ${tls.validTo.toISOString()}, client certificates: ${web.tls.clientAuth}`,
    );
  } else lines.push('         TLS off: plain HTTP, a basic-auth password travels in clear');
  lines.push(
    users.length > 0
      ? `         basic auth on for /metrics and /readyz: ${users.length} user${users.length === 1 ? '' : 's'} (${users.map(forTerminal).join(', ')})`
      : '         basic auth off: anyone who reaches the port reads /metrics',
  );
  return lines;
}

/** `config init [path]`: a commented starter file (the example of every key); never overwrites. */
export function initConfig(path: string | undefined, cli = PROGRAM): void {
  const target = resolve(path ?? DEFAULT_CONFIG_FILE);
  const example = readFileSync(join(packageRoot(), 'glacier-collector.example.yaml'), 'utf8').replace(
    /^# Copy this file to glacier-collector\.yaml[^\n]*\n# and edit it\./m,
    () => `# Written by \`${cli} config init\` from the example of every key: edit it.`,
  );
  try {
    writeFileSync(target, example, { flag: 'wx' });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      throw new UsageError(
        `${target} exists already: config init does not overwrite a file; remove it first or give another path (${cli} config init <path>)`,
      );
    }
    throw new UsageError(`cannot write ${target}: ${(err as Error).message}`);
  }
  console.log(
    `wrote ${target}: a commented example of every key. Edit it, then check it with \`${cli}${
      path ? ` -c ${shellWord(path)}` : ''
    } config check\`.`,
  );
}

/**
 * `migrate`: each migration it applies, by name, and what it does when that takes time (a table
 * rebuilt), said before it is applied; "up to date" only when nothing was.
 */
export async function migrate(config: Config): Promise<void> {
  // Imported here: the store and its drivers are not `config check`'s to load.
  const [{ openConfiguredStore }, { describeMigration }, { packageVersion }] = await Promise.all([
    import('../service/app.js'),
    import('../store/index.js'),
    import('../runtime/version.js'),
  ]);
  const where = printableDatabaseLocation(config);
  let applied = 0;
  const store = await openConfiguredStore(config, {
    onMigrations: (pending) => {
      applied = pending.length;
      console.log(
        `database ${where}: applying ${pending.length} migration${pending.length === 1 ? '' : 's'}:`,
      );
      for (const m of pending) console.log(`  ${forTerminal(describeMigration(m))}`);
    },
  });
  await store.close();
  console.log(
    applied === 0
      ? `database ${where} is up to date (glacier-collector ${packageVersion()}): no migration to apply`
      : `database ${where} migrated: ${applied} migration${applied === 1 ? '' : 's'} applied (glacier-collector ${packageVersion()})`,
  );
}
