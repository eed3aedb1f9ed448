/**
 * The soak: `start` as a process, with every job on schedules of seconds, against the simulator (a
 * process of its own, on the system clock: its data grows as in production) and a private Redis,
 * for a set time. It samples the collector (RSS, heap, handles, file descriptors), Redis (keys,
 * memory), the database (size, job_runs) and the simulator (RSS), then fails when:
 * - a series keeps growing over the second half (test/soak/trend.ts: Theil–Sen and Mann–Kendall
 *   against runs; growth that levels off passes);
 * - a run failed, a slot was missed (event loop blocked) or lost (a job ran fewer times than its
 *   schedule fired), or more than 1% of a job's slots were skipped because its previous run was still
 *   active (the scheduler's no-overlap rule: a second-long run on a loaded machine, not a fault);
 * - SIGTERM does not end the collector with exit code 0.
 *
 * `npm run test:soak [-- --minutes 10] [--warmup-seconds 0] [--sample-seconds 5] [--retention 2m] [--json report.json]` (QUEUE=postgres: the queue on PostgreSQL, no Redis; STORE=postgres for
 * PostgreSQL); test/soak/soak.test.ts runs a short one in the fault suite.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';
import { demoFileConfig } from '../../src/commands/demo-config.js';
import { parseDuration } from '../../src/config/durations.js';
import { isPostgresUrl, storeLocation } from '../../src/config/index.js';
import { queueSchema } from '../../src/config/queue.js';
import { KEPT_JOBS_ON_REDIS, QUEUE_NAME } from '../../src/queue/jobs.js';
import { openStore, readOldestKept, type Store } from '../../src/store/index.js';
import { parseExposition, samples } from '../support/exposition.js';
import { onPostgresQueue, removeQueue } from '../support/queue.js';
import { freePort, startPrivateRedis } from '../support/redis-server.js';
import { type SimulatorProcess, startSimulatorProcess } from '../support/sim-process.js';
import { TEST_POSTGRES_URL, testDatabase } from '../support/store.js';
import { judgeTrend, type Trend } from './trend.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const API_KEY = 'glc-soak-key';
const PREFIX = 'soak';
const MiB = 2 ** 20;

/** Every job on a schedule of seconds: period in seconds per job (cron with a seconds field). */
export const SOAK_PERIODS: Readonly<Record<string, number>> = {
  supply: 1,
  transactions: 2,
  signatures: 2,
  rewards: 3,
  'usage-metrics': 5,
  exports: 5,
};

export interface SoakOptions {
  /** @defaultValue 10 minutes */
  durationMs?: number;
  /**
   * Run this long first, unjudged (JIT, caches and pools fill up), then `durationMs` whose second half
   * is judged. A short soak needs it: its second half would otherwise still be warming up. @defaultValue 0
   */
  warmupMs?: number;
  /** @defaultValue durationMs / 60, within 1 to 10 s */
  sampleMs?: number;
  /**
   * A retention (e.g. `2m`) for the tables the soak fills and that allow one that short
   * (transactions, supply snapshots; job_runs' floor is a day), with the maintenance job every
   * MAINTENANCE_PERIOD_S: the database size is then judged too, as it must level off.
   * @defaultValue none: every table kept, the size reported only
   */
  retention?: string;
  /** Progress lines. @defaultValue none */
  log?: (line: string) => void;
}

export interface Sample {
  /** Seconds since the collector was ready. */
  t: number;
  /** job_runs rows so far. */
  runs: number;
  /** process_resident_memory_bytes: all resident pages, file-backed ones included. */
  rss: number;
  /** RssAnon of /proc/<pid>/status: the process's own memory, what a leak grows. */
  rssAnon: number;
  heapUsed: number;
  handles: number;
  /** Entries of /proc/<pid>/fd. */
  fds: number;
  redisKeys: number;
  /** Jobs BullMQ keeps as completed or failed (bounded by its retention, 2,000 each). */
  redisKeptJobs: number;
  redisMemory: number;
  databaseBytes: number;
  simulatorRss: number;
  simulatorRssAnon: number;
  /** glacier_job_skipped_slots_total, all jobs. */
  skippedSlots: number;
  /**
   * The queue on PostgreSQL: its rows beside the jobs kept (completed, failed: a day by age) and the
   * events (BullMQ trims its `event` table to 10,000): jobs waiting, active or delayed, and the
   * collector's shared state, budget, BullMQ's meta and limiter rows. NaN on Redis.
   */
  queueRows: number;
  /** The queue on PostgreSQL: jobs kept as completed or failed. NaN on Redis. */
  queueKeptJobs: number;
  /** The queue on PostgreSQL: rows of BullMQ's `event` table. NaN on Redis. */
  queueEvents: number;
}

export interface SeriesVerdict {
  name: string;
  unit: 'bytes' | 'count';
  /** Median over the second half. */
  median: number;
  /** Theil–Sen slope per 10,000 runs over the second half. */
  per10kRuns: number;
  trend: Trend;
  tolerance: number;
  /** Judged (can fail the soak) or only reported. */
  judged: boolean;
  /** Why it is not judged, when it is not. */
  note?: string;
}

export interface SoakReport {
  store: 'sqlite' | 'postgres';
  /** The soak's retention (SoakOptions.retention), if any. */
  retention?: string | undefined;
  durationMs: number;
  warmupMs: number;
  runs: number;
  runsPerJob: Record<string, number>;
  samples: Sample[];
  series: SeriesVerdict[];
  /** Slots skipped per job (glacier_job_skipped_slots_total) at the end. */
  skippedPerJob: Record<string, number>;
  exitCode: number | null;
  shutdownMs: number;
  /** Everything that failed the soak; empty when it passed. */
  problems: string[];
}

interface SeriesSpec {
  name: string;
  /** Reported, never judged, and why. */
  reportOnly?: string;
  /** Judge the upper envelope (memory: a GC sawtooth), not the samples. */
  envelope?: boolean;
  unit: 'bytes' | 'count';
  pick: (s: Sample) => number;
  /** Growth accepted over the second half: an absolute floor and a share of the median. */
  floor: number;
  share: number;
}

const SERIES: SeriesSpec[] = [
  // RSS from /metrics, and its anonymous part (/proc RssAnon: without the resident code and mapped
  // files, so what a leak grows), both judged on their envelope (see judgeSeries).
  {
    name: 'collector RSS, anonymous',
    unit: 'bytes',
    pick: (s) => s.rssAnon,
    floor: 8 * MiB,
    share: 0.05,
    envelope: true,
  },
  {
    name: 'collector RSS',
    unit: 'bytes',
    pick: (s) => s.rss,
    floor: 8 * MiB,
    share: 0.05,
    envelope: true,
  },
  {
    name: 'collector heap used',
    unit: 'bytes',
    pick: (s) => s.heapUsed,
    floor: 8 * MiB,
    share: 0.1,
    envelope: true,
  },
  { name: 'collector active handles', unit: 'count', pick: (s) => s.handles, floor: 4, share: 0 },
  { name: 'collector open file descriptors', unit: 'count', pick: (s) => s.fds, floor: 4, share: 0 },
  // BullMQ keeps the last 2,000 completed jobs: keys grow until then by design, so the judged series is
  // the keys beside those jobs' (queue, schedules, budget, locks); the kept jobs are checked against the cap.
  {
    name: 'Redis keys (beyond the jobs BullMQ keeps)',
    unit: 'count',
    pick: (s) => s.redisKeys - s.redisKeptJobs,
    floor: 20,
    share: 0.02,
  },
  { name: 'Redis keys', unit: 'count', pick: (s) => s.redisKeys, floor: 20, share: 0.02 },
  {
    name: 'Redis memory',
    unit: 'bytes',
    pick: (s) => s.redisMemory,
    floor: 2 * MiB,
    share: 0.05,
    envelope: true,
  },
  { name: 'database size', unit: 'bytes', pick: (s) => s.databaseBytes, floor: 1 * MiB, share: 0.05 },
  // The queue on PostgreSQL: the kept jobs grow for a day by design (their retention is by age),
  // BullMQ's events until its trim (10,000); what is left is judged.
  {
    name: 'queue rows (beyond kept jobs and events)',
    unit: 'count',
    pick: (s) => s.queueRows,
    floor: 20,
    share: 0.02,
  },
  {
    name: 'queue jobs kept',
    reportOnly: 'kept a day by age (src/queue/jobs.ts): grows by design in a soak',
    unit: 'count',
    pick: (s) => s.queueKeptJobs,
    floor: 0,
    share: 0,
  },
  {
    name: 'queue events',
    reportOnly: 'BullMQ trims its event table to 10,000 rows: grows until then by design',
    unit: 'count',
    pick: (s) => s.queueEvents,
    floor: 0,
    share: 0,
  },
  {
    name: 'simulator RSS, anonymous',
    unit: 'bytes',
    pick: (s) => s.simulatorRssAnon,
    floor: 8 * MiB,
    share: 0.05,
    envelope: true,
  },
  {
    name: 'simulator RSS',
    unit: 'bytes',
    pick: (s) => s.simulatorRss,
    floor: 8 * MiB,
    share: 0.05,
    envelope: true,
  },
];
/** The maintenance job's period (seconds) in a soak with `retention`. */
export const MAINTENANCE_PERIOD_S = 10;

/** BullMQ's retention on Redis (src/queue/jobs.ts): completed and failed jobs kept at most. */
const KEPT_JOBS_CAP = 2 * KEPT_JOBS_ON_REDIS;

/** Period in seconds per job: SOAK_PERIODS, and the maintenance job's in a soak with retention. */
function periodsOf(retention: string | undefined): Readonly<Record<string, number>> {
  return retention ? { ...SOAK_PERIODS, maintenance: MAINTENANCE_PERIOD_S } : SOAK_PERIODS;
}

function soakConfig(
  exportsDirectory: string,
  retention: string | undefined,
  periods: Readonly<Record<string, number>>,
) {
  const base = demoFileConfig();
  const every = (job: string) => {
    const period = periods[job] as number;
    return { schedule: period === 1 ? '* * * * * *' : `*/${period} * * * * *` };
  };
  const j = base.jobs;
  const pruned = retention
    ? {
        retention: { transactions: retention, supplySnapshots: retention },
        maintenance: every('maintenance'),
      }
    : undefined;
  return {
    ...(pruned ? { retention: pruned.retention } : {}),
    jobs: {
      supply: { ...j.supply, ...every('supply') },
      transactions: { ...j.transactions, ...every('transactions') },
      rewards: { ...j.rewards, ...every('rewards') },
      usageMetrics: { ...j.usageMetrics, ...every('usage-metrics') },
      signatures: { ...j.signatures, ...every('signatures') },
      exports: { ...j.exports, ...every('exports'), directory: exportsDirectory },
      ...(pruned ? { maintenance: pruned.maintenance } : {}),
    },
    // The simulator's key has no per-minute limit; the collector's budget must not hold runs back either.
    budget: { tier: 'Pro', computeUnitsPerMinute: 100_000_000, computeUnitsPerDay: 1_000_000_000 },
    service: { queuePrefix: PREFIX, shutdownGrace: '10s' },
  };
}

/** The collector process: output kept to its last lines, counted for the lines that matter. */
interface Collector {
  child: ChildProcess;
  exited: Promise<number | null>;
  tail(): string;
  count(pattern: RegExp): number;
}

function spawnCollector(env: Record<string, string>): Collector {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'start'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const counts = new Map<RegExp, number>();
  const patterns = [/slot missed/, /"level":(50|60)|"level":"(error|fatal)"/];
  let partial = '';
  const onData = (d: Buffer) => {
    const text = partial + d.toString();
    const parts = text.split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      for (const p of patterns) if (p.test(line)) counts.set(p, (counts.get(p) ?? 0) + 1);
      lines.push(line);
      if (lines.length > 200) lines.shift();
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    tail: () => lines.slice(-40).join('\n'),
    count: (pattern) => [...counts.entries()].find(([p]) => p.source === pattern.source)?.[1] ?? 0,
  };
}

/** A `kB` field of /proc/<pid>/status (VmRSS, RssAnon), in bytes; NaN once the process is gone. */
function statusBytes(pid: number, field: 'VmRSS' | 'RssAnon'): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

function fdsOf(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return Number.NaN;
  }
}

async function databaseBytes(store: Store, location: string): Promise<number> {
  if (store.dialect === 'postgres') {
    const row = await store.get<{ n: string }>(
      `SELECT COALESCE(SUM(pg_total_relation_size(format('%I.%I', schemaname, tablename)::regclass)), 0) AS n
         FROM pg_tables WHERE schemaname = current_schema()`,
    );
    return Number(row?.n ?? 0);
  }
  let total = 0;
  for (const file of [location, `${location}-wal`]) if (existsSync(file)) total += statSync(file).size;
  return total;
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`soak: ${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** How many slots of a `period`-second schedule fall in [fromMs, toMs]. */
export function slotsBetween(periodS: number, fromMs: number, toMs: number): number {
  const p = periodS * 1000;
  return Math.max(0, Math.floor(toMs / p) - Math.ceil(fromMs / p) + 1);
}

/**
 * The series over the second half of the judged time, against runs. Memory series are judged on
 * their upper envelope (the highest sample of the last `envelope` seconds, looking back into the
 * first half): V8's GC and malloc give RSS and heap a sawtooth of 20-40 MiB with a period of a minute
 * or two, which a window starting at a trough would read as growth; a leak raises the peaks too.
 */
export function judgeSeries(
  all: readonly Sample[],
  options: { durationMs: number; warmupMs?: number; expectDatabaseFlat?: boolean },
): { series: SeriesVerdict[]; problems: string[] } {
  const problems: string[] = [];
  const fromS = ((options.warmupMs ?? 0) + options.durationMs / 2) / 1000;
  const half = all.filter((x) => x.t >= fromS);
  const envelopeS = Math.max(30, Math.min(150, options.durationMs / 4000));
  const first = half[0];
  const last = half.at(-1);
  const series = SERIES.map((spec): SeriesVerdict => {
    const valueAt = (x: Sample): number => {
      if (!spec.envelope) return spec.pick(x);
      let top = Number.NEGATIVE_INFINITY;
      for (const y of all) if (y.t > x.t - envelopeS && y.t <= x.t) top = Math.max(top, spec.pick(y));
      return top;
    };
    const points = half.map((x) => ({ x: x.runs, y: valueAt(x) })).filter((p) => Number.isFinite(p.y));
    const ys = half
      .map(spec.pick)
      .filter(Number.isFinite)
      .sort((a, b) => a - b);
    const median = ys[ys.length >> 1] ?? Number.NaN;
    const tolerance = Math.max(spec.floor, spec.share * median);
    const trend = judgeTrend(points, tolerance);
    let note = spec.reportOnly;
    if (points.length === 0 && !note) {
      note = spec.name.startsWith('queue ')
        ? 'not measured (the queue is on Redis)'
        : 'not measured (the queue is on PostgreSQL: no Redis)';
    } else if (spec.name === 'database size' && !options.expectDatabaseFlat) {
      note = 'grows with the data while no retention is configured: reported only';
    } else if (spec.name === 'Redis keys' || spec.name === 'Redis memory') {
      // Judged once BullMQ's retention is full: before, each run adds a kept job by design.
      const capped =
        (last?.redisKeptJobs ?? 0) >= KEPT_JOBS_ON_REDIS && (first?.redisKeptJobs ?? 0) >= KEPT_JOBS_ON_REDIS;
      if (!capped)
        note = "BullMQ's retention (2,000 completed jobs) not reached over the second half: reported only";
    }
    const judged = note === undefined;
    if (judged && trend.growing) {
      problems.push(
        `${spec.name} keeps growing over the second half: +${format(trend.growth, spec.unit)} (tolerance ${format(tolerance, spec.unit)}, Mann–Kendall z ${trend.z.toFixed(1)})`,
      );
    }
    return {
      name: spec.name,
      unit: spec.unit,
      median,
      per10kRuns: trend.slope * 10_000,
      trend,
      tolerance,
      judged,
      ...(note ? { note } : {}),
    };
  });
  if (half.length < 8) problems.push(`only ${half.length} samples over the second half: too short to judge`);
  return { series, problems };
}

/** The rows of the soak's queue schema on PostgreSQL (see Sample). */
async function queueRowsOf(): Promise<{ rows: number; kept: number; events: number }> {
  const schema = `"${queueSchema(PREFIX)}"`;
  const pgClient = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await pgClient.connect();
  try {
    const { rows } = await pgClient.query<{ rows: string; kept: string; events: string }>(
      `SELECT (SELECT count(*) FROM ${schema}.job WHERE state NOT IN ('completed', 'failed'))
            + (SELECT count(*) FROM ${schema}.shared_state) + (SELECT count(*) FROM ${schema}.budget)
            + (SELECT count(*) FROM ${schema}.meta) + (SELECT count(*) FROM ${schema}.rate_limit) AS rows,
              (SELECT count(*) FROM ${schema}.job WHERE state IN ('completed', 'failed')) AS kept,
              (SELECT count(*) FROM ${schema}.event) AS events`,
    );
    const r = rows[0]!;
    return { rows: Number(r.rows), kept: Number(r.kept), events: Number(r.events) };
  } finally {
    await pgClient.end();
  }
}

export async function runSoak(options: SoakOptions = {}): Promise<SoakReport> {
  const durationMs = options.durationMs ?? 10 * 60_000;
  const warmupMs = options.warmupMs ?? 0;
  const sampleMs = options.sampleMs ?? Math.min(10_000, Math.max(1_000, durationMs / 60));
  const log = options.log ?? (() => undefined);
  const periods = periodsOf(options.retention);
  const problems: string[] = [];
  const db = await testDatabase({ filename: 'soak.db' });
  // QUEUE=postgres: the queue on PostgreSQL (its schema `soak_queue`), no Redis at all.
  const redis = onPostgresQueue ? undefined : await startPrivateRedis();
  let sim: SimulatorProcess | undefined;
  let collector: Collector | undefined;
  let store: Store | undefined;
  const client = redis && new Redis(redis.url, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    if (redis) {
      await redis.start();
      await client!.connect();
    } else await removeQueue(PREFIX);
    sim = await startSimulatorProcess({
      seed: 11,
      apiKeys: { [API_KEY]: { tier: 'Pro', computeUnitsPerMinute: 1e12 } },
      requireApiKey: true,
      exports: { runningMs: 2_000, rowsPerDay: 200 },
    });
    const configPath = join(db.dir, 'soak.json');
    writeFileSync(
      configPath,
      JSON.stringify(soakConfig(join(db.dir, 'exports'), options.retention, periods)),
    );
    const metricsPort = await freePort();
    const metricsUrl = `http://127.0.0.1:${metricsPort}`;
    collector = spawnCollector({
      ...db.env,
      GLACIER_CONFIG: configPath,
      GLACIER_BASE_URL: sim.url,
      GLACIER_API_KEY: API_KEY,
      ...(redis ? { REDIS_URL: redis.url } : { QUEUE_URL: TEST_POSTGRES_URL }),
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'warn',
    });
    const pid = collector.child.pid as number;
    const simPid = sim.pid;
    const c = collector;
    await until('the collector ready (/readyz 200)', 90_000, async () => {
      if (c.child.exitCode !== null) throw new Error(`collector exited (${c.child.exitCode}):\n${c.tail()}`);
      return (await fetch(`${metricsUrl}/readyz`)).status === 200 ? true : undefined;
    }).catch((error: Error) => {
      throw new Error(`${error.message}\n${c.tail()}`);
    });
    const readyAt = Date.now();
    store = await openStore(storeLocation(db.location), { migrate: false });
    const s = store;
    log(
      `soak: collector ready (pid ${pid}); ${Math.round(warmupMs / 1000)} s of warm-up, then ${Math.round(durationMs / 1000)} s, a sample every ${sampleMs} ms`,
    );

    const samplesTaken: Sample[] = [];
    const sample = async (): Promise<Sample> => {
      const families = parseExposition(await (await fetch(`${metricsUrl}/metrics`)).text());
      const one = (name: string) => samples(families, name).reduce((sum, x) => sum + x.value, 0);
      const kept = await client
        ?.multi()
        .zcard(`${PREFIX}:${QUEUE_NAME}:completed`)
        .zcard(`${PREFIX}:${QUEUE_NAME}:failed`)
        .exec();
      const info = (await client?.info('memory')) ?? '';
      const queue = client ? undefined : await queueRowsOf();
      return {
        t: (Date.now() - readyAt) / 1000,
        runs: (await s.get<{ n: number }>('SELECT COUNT(*) AS n FROM job_runs'))?.n ?? 0,
        rss: one('glacier_process_resident_memory_bytes'),
        rssAnon: statusBytes(pid, 'RssAnon'),
        heapUsed: one('glacier_nodejs_heap_size_used_bytes'),
        handles: one('glacier_nodejs_active_handles'),
        fds: fdsOf(pid),
        // Not measured with the queue on PostgreSQL (NaN: its series are reported as such).
        redisKeys: client ? await client.dbsize() : Number.NaN,
        redisKeptJobs: kept ? kept.reduce((sum, [, n]) => sum + Number(n), 0) : Number.NaN,
        redisMemory: Number(/used_memory:(\d+)/.exec(info)?.[1] ?? Number.NaN),
        databaseBytes: await databaseBytes(s, db.location),
        simulatorRss: statusBytes(simPid, 'VmRSS'),
        simulatorRssAnon: statusBytes(simPid, 'RssAnon'),
        skippedSlots: one('glacier_job_skipped_slots_total'),
        queueRows: queue?.rows ?? Number.NaN,
        queueKeptJobs: queue?.kept ?? Number.NaN,
        queueEvents: queue?.events ?? Number.NaN,
      };
    };
    while (Date.now() - readyAt < warmupMs + durationMs) {
      await new Promise((r) => setTimeout(r, sampleMs));
      if (collector.child.exitCode !== null) {
        problems.push(`the collector exited by itself (code ${collector.child.exitCode})`);
        break;
      }
      const x = await sample();
      samplesTaken.push(x);
      if (samplesTaken.length % 10 === 0) {
        log(
          `soak: t=${x.t.toFixed(0)} s runs=${x.runs} rss=${(x.rss / MiB).toFixed(1)} MiB (anon ${(x.rssAnon / MiB).toFixed(1)}) heap=${(x.heapUsed / MiB).toFixed(1)} MiB ` +
            `handles=${x.handles} fds=${x.fds} redis keys=${x.redisKeys} db=${(x.databaseBytes / MiB).toFixed(1)} MiB sim rss=${(x.simulatorRss / MiB).toFixed(1)} MiB`,
        );
      }
    }

    const skippedPerJob: Record<string, number> = {};
    const final = parseExposition(await (await fetch(`${metricsUrl}/metrics`)).text());
    for (const x of samples(final, 'glacier_job_skipped_slots_total')) {
      if (x.value > 0) skippedPerJob[x.labels.job_name ?? '?'] = x.value;
    }
    const stoppedAt = Date.now();
    collector.child.kill('SIGTERM');
    const exitCode = await Promise.race([
      collector.exited,
      new Promise<'hung'>((r) => setTimeout(() => r('hung'), 60_000).unref()),
    ]);
    const shutdownMs = Date.now() - stoppedAt;
    if (exitCode === 'hung') {
      collector.child.kill('SIGKILL');
      problems.push(`SIGTERM: the collector had not exited after 60 s (killed)`);
    } else if (exitCode !== 0) problems.push(`SIGTERM: exit code ${exitCode}, not 0`);

    // Runs: none failed; every job ran as often as its schedule fired over the steady window.
    const rows = await s.all<{ job: string; status: string; started_at: string; error: string | null }>(
      'SELECT job, status, started_at, error FROM job_runs ORDER BY id',
    );
    const bad = rows.filter((r) => r.status !== 'succeeded');
    for (const r of bad.slice(0, 10))
      problems.push(`run ${r.job} at ${r.started_at}: ${r.status} ${r.error ?? ''}`.trim());
    if (bad.length > 10) problems.push(`… and ${bad.length - 10} more runs not succeeded`);
    const runsPerJob: Record<string, number> = {};
    for (const r of rows) runsPerJob[r.job] = (runsPerJob[r.job] ?? 0) + 1;
    const from = readyAt + Math.max(10_000, warmupMs, durationMs / 10);
    const to = stoppedAt - 5_000;
    for (const [job, period] of Object.entries(periods)) {
      const ran = rows.filter((r) => {
        const at = Date.parse(r.started_at);
        return r.job === job && at >= from && at <= to;
      }).length;
      const expected = slotsBetween(period, from, to);
      // One slot at either edge may fall outside the window by a run's start delay.
      if (ran < expected - 2) problems.push(`${job}: ${ran} runs where its schedule fired ${expected} times`);
    }
    for (const [what, pattern] of [
      ['slots missed (event loop blocked)', /slot missed/],
      ['error log lines', /"level":(50|60)|"level":"(error|fatal)"/],
    ] as const) {
      const n = collector.count(pattern);
      if (n > 0) problems.push(`${n} ${what}; last output:\n${collector.tail()}`);
    }

    if (options.retention) {
      // Pruned, not only small: no transaction older than its retention by more than a maintenance
      // period (and a run's length) is left.
      const keptMs = parseDuration(options.retention) ?? 0;
      const oldest = (await readOldestKept(s)).transactions;
      const limit = stoppedAt - keptMs - (MAINTENANCE_PERIOD_S + 20) * 1000;
      if (oldest === undefined) problems.push('transactions: no row left at the end (nothing collected?)');
      else if (Date.parse(oldest) < limit)
        problems.push(
          `transactions keeps a row of ${oldest}, older than its retention (${options.retention}) by more than a maintenance period`,
        );
    }

    const judgement = judgeSeries(samplesTaken, {
      durationMs,
      warmupMs,
      expectDatabaseFlat: options.retention !== undefined,
    });
    const series = judgement.series;
    problems.push(...judgement.problems);
    for (const [job, n] of Object.entries(skippedPerJob)) {
      const fired = slotsBetween(periods[job] ?? 1, readyAt, stoppedAt);
      if (n > Math.max(1, fired / 100)) {
        problems.push(`${job}: ${n} of ${fired} slots skipped (its previous run still active), more than 1%`);
      }
    }
    const maxKept = Math.max(0, ...samplesTaken.map((x) => x.redisKeptJobs));
    if (maxKept > KEPT_JOBS_CAP)
      problems.push(`BullMQ kept ${maxKept} jobs, more than its retention (${KEPT_JOBS_CAP})`);

    return {
      store: isPostgresUrl(db.location) ? 'postgres' : 'sqlite',
      retention: options.retention,
      durationMs,
      warmupMs,
      runs: rows.length,
      runsPerJob,
      skippedPerJob,
      samples: samplesTaken,
      series,
      exitCode: exitCode === 'hung' ? null : exitCode,
      shutdownMs,
      problems,
    };
  } finally {
    if (collector && collector.child.exitCode === null) {
      collector.child.kill('SIGKILL');
      await collector.exited;
    }
    await store?.close();
    client?.disconnect();
    await sim?.close();
    await redis?.stop();
    if (!redis) await removeQueue(PREFIX);
    await db.cleanup();
  }
}

function format(value: number, unit: 'bytes' | 'count'): string {
  return unit === 'bytes' ? `${(value / MiB).toFixed(2)} MiB` : value.toFixed(1);
}

/** The report as a table: one line per series, then the verdict. */
export function formatSoakReport(report: SoakReport): string {
  const lines = [
    `soak on ${report.store}${report.retention ? ` with a retention of ${report.retention}` : ''}: ${(report.durationMs / 60_000).toFixed(1)} min${report.warmupMs ? ` after ${report.warmupMs / 1000} s of warm-up` : ''}, ${report.runs} runs (${Object.entries(
      report.runsPerJob,
    )
      .map(([job, n]) => `${job} ${n}`)
      .join(', ')}); slots skipped: ${
      Object.entries(report.skippedPerJob)
        .map(([job, n]) => `${job} ${n}`)
        .join(', ') || 'none'
    }; SIGTERM: exit ${report.exitCode} in ${report.shutdownMs} ms`,
    '',
    'series (second half)                       median        per 10,000 runs   MK z   verdict',
  ];
  for (const s of report.series) {
    const verdict = !s.judged ? `reported only (${s.note})` : s.trend.growing ? 'GROWING' : 'flat';
    lines.push(
      `${s.name.padEnd(42)} ${format(s.median, s.unit).padStart(12)} ${`${s.per10kRuns >= 0 ? '+' : ''}${format(s.per10kRuns, s.unit)}`.padStart(16)} ${s.trend.z
        .toFixed(1)
        .padStart(6)}   ${verdict}`,
    );
  }
  lines.push('', report.problems.length === 0 ? 'PASS' : `FAIL:\n- ${report.problems.join('\n- ')}`);
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: process.env.SOAK_MINUTES ?? '10' },
      'sample-seconds': { type: 'string' },
      'warmup-seconds': { type: 'string', default: '0' },
      json: { type: 'string' },
      retention: { type: 'string' },
    },
  });
  const minutes = Number(values.minutes);
  if (!(minutes > 0 && minutes <= 24 * 60))
    throw new Error(`--minutes must be more than 0 and at most 1440, got ${values.minutes}`);
  const report = await runSoak({
    durationMs: minutes * 60_000,
    warmupMs: Number(values['warmup-seconds']) * 1000,
    ...(values['sample-seconds'] ? { sampleMs: Number(values['sample-seconds']) * 1000 } : {}),
    ...(values.retention ? { retention: values.retention } : {}),
    log: (line) => console.log(line),
  });
  process.stdout.write(formatSoakReport(report));
  if (values.json) writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
  process.exitCode = report.problems.length === 0 ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
