/**
 * The metrics port under a wrong-password flood: `start` as a process (TLS, basic auth with a bcrypt
 * hash of cost 10, a supply job every 2 s against the simulator in a process of its own), and 128
 * clients (bench/flood.ts, another process) sending wrong passwords to `/metrics` as fast as they
 * are answered. The flood runs at the lowest CPU priority (nice 19): an attacker's clients run on
 * the attacker's machines, and on this 2-core machine, unniced, they would take the service's CPU
 * for reasons that have nothing to do with how the service answers them. Measured from this process: `/healthz` as a liveness probe asks it (a new TLS
 * connection every 50 ms), and how late each supply slot started (job_runs). Baseline: the same
 * service, no flood, measured in the same run. Goals: `/healthz` p99 under 100 ms and no slot late
 * by more than 1 s, with fresh random passwords (nothing to cache: every check the bound lets
 * through costs a bcrypt) and with one repeated wrong password (answered from the cache). Before the
 * checks went off the event loop, 64 clients made `/healthz` take 24 s and 128 stopped the jobs.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '../../test/support/redis-server.js';
import { deletePrefix } from '../../test/support/service.js';
import { processCpuMs, startSimulatorProcess } from '../../test/support/sim-process.js';
import { queryAt } from '../../test/support/store.js';
import { makeCertificate, webConfigYaml, writeWebConfig } from '../../test/support/web-config.js';
import { benchOptions, type Figure, figure, median, percentile, scaled } from '../lib.js';
import { scratch } from '../support.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CLIENTS = 128;
const SLOT_MS = 2_000;

interface Phase {
  /** /healthz latencies, ms. */
  healthz: number[];
  /** How late each supply slot of the phase started, ms (a slot without a run: the whole period). */
  late: number[];
  /** The service's CPU over the phase, ms, and the phase's length. */
  cpuMs: number;
  wallMs: number;
  flood?: { statuses: Record<string, number>; errors: Record<string, number>; requests: number };
}

/** One liveness probe: a new TLS connection, GET /healthz, the time to the end of the answer. */
function probe(url: string, ca: Buffer): Promise<number> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${url}/healthz`, { ca, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - t));
    });
    req.on('error', reject);
    req.end();
  });
}

async function measure(
  service: { url: string; pid: number; database: string; ca: Buffer; caFile: string },
  ms: number,
  flood: 'random' | 'fixed' | undefined,
): Promise<Phase> {
  const start = Date.now();
  const cpu = processCpuMs(service.pid);
  const flooding = flood
    ? promisify(execFile)(
        'nice',
        [
          '-n',
          '19',
          process.execPath,
          '--import',
          'tsx',
          'bench/flood.ts',
          JSON.stringify({
            url: service.url,
            caFile: service.caFile,
            clients: CLIENTS,
            ms,
            passwords: flood,
          }),
        ],
        { cwd: root, maxBuffer: 1 << 20 },
      )
    : undefined;
  const healthz: number[] = [];
  while (Date.now() - start < ms) {
    healthz.push(await probe(service.url, service.ca));
    await new Promise((r) => setTimeout(r, 50));
  }
  const out = flooding && (await flooding);
  const end = Date.now();
  const cpuMs = processCpuMs(service.pid) - cpu;
  // Let the runs of the last slots be recorded before they are read.
  await new Promise((r) => setTimeout(r, SLOT_MS));
  const runs = await queryAt<{ started_at: string }>(
    service.database,
    "SELECT started_at FROM job_runs WHERE job = 'supply' AND started_at >= ? ORDER BY started_at",
    [new Date(start).toISOString()],
  );
  const starts = runs.map((r) => Date.parse(r.started_at));
  const late: number[] = [];
  for (let slot = Math.ceil(start / SLOT_MS) * SLOT_MS; slot + SLOT_MS <= end; slot += SLOT_MS) {
    const first = starts.find((t) => t >= slot && t < slot + SLOT_MS);
    late.push(first === undefined ? SLOT_MS : first - slot);
  }
  return { healthz, late, cpuMs, wallMs: end - start, ...(out && { flood: JSON.parse(out.stdout) }) };
}

export async function run(): Promise<Figure[]> {
  const dirs = scratch('metrics-auth');
  const dir = dirs.path('');
  const cert = makeCertificate(dir);
  const webConfig = writeWebConfig(
    dir,
    webConfigYaml({ cert, users: { prometheus: 'the-real-password' }, cost: 10 }),
  );
  const prefix = `bench-auth-${process.pid}`;
  const configPath = dirs.path('glacier.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      jobs: { supply: { schedule: '*/2 * * * * *' } },
      service: { queuePrefix: prefix, shutdownGrace: '5s' },
    }),
  );
  const sim = await startSimulatorProcess({});
  const port = await freePort();
  const database = dirs.path('auth.db');
  let child: ChildProcess | undefined;
  try {
    child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'start', '-c', configPath], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        GLACIER_BASE_URL: sim.url,
        DATABASE_PATH: database,
        REDIS_URL,
        METRICS_HOST: '127.0.0.1',
        METRICS_PORT: String(port),
        METRICS_WEB_CONFIG: webConfig,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const ca = readFileSync(cert.certFile);
    const service = {
      url: `https://127.0.0.1:${port}`,
      pid: child.pid!,
      database,
      ca,
      caFile: cert.certFile,
    };
    for (let waited = 0; ; waited += 200) {
      if (
        await probe(service.url, ca).then(
          () => true,
          () => false,
        )
      )
        break;
      if (waited > 60_000 || child.exitCode !== null) throw new Error('the service did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
    const ms = scaled(15_000, 300);
    await measure(service, Math.min(4_000, ms), undefined); // warm-up: JIT, connections, the first runs
    const phases: Record<'idle' | 'random' | 'fixed', Phase[]> = { idle: [], random: [], fixed: [] };
    for (let i = 0; i < benchOptions().runs; i++) {
      phases.idle.push(await measure(service, ms, undefined));
      phases.random.push(await measure(service, ms, 'random'));
      phases.fixed.push(await measure(service, ms, 'fixed'));
    }
    const p99 = (p: Phase[]) => median(p.map((x) => percentile(x.healthz, 99)));
    const worst = (p: Phase[]) => median(p.map((x) => Math.max(...x.late)));
    const cpuShare = (p: Phase[]) => median(p.map((x) => x.cpuMs / x.wallMs));
    const describe = (p: Phase[]) => {
      const f = p[p.length - 1]?.flood;
      const perSecond = median(p.map((x) => (x.flood?.requests ?? 0) / (x.wallMs / 1000)));
      return `${CLIENTS} clients, ${Math.round(perSecond)} requests/s answered (last run: ${JSON.stringify(
        f?.statuses ?? {},
      )}${f && Object.keys(f.errors).length ? `, errors ${JSON.stringify(f.errors)}` : ''}); the service used ${cpuShare(
        p,
      ).toFixed(2)} CPU-s per second (idle ${cpuShare(phases.idle).toFixed(2)})`;
    };
    return [
      figure({
        id: 'metrics-auth.healthz-p99.random-passwords',
        title: '/healthz p99 (new TLS connection) under a flood of fresh wrong passwords',
        unit: 'ms',
        value: p99(phases.random),
        baseline: p99(phases.idle),
        baselineLabel: 'no flood',
        goal: { on: 'value', max: 100 },
        note: describe(phases.random),
      }),
      figure({
        id: 'metrics-auth.slot-late.random-passwords',
        title: 'latest start of a 2-s supply slot under a flood of fresh wrong passwords',
        unit: 'ms',
        value: worst(phases.random),
        baseline: worst(phases.idle),
        baselineLabel: 'no flood',
        goal: { on: 'value', max: 1000 },
      }),
      figure({
        id: 'metrics-auth.healthz-p99.one-password',
        title: '/healthz p99 (new TLS connection) under a flood of one repeated wrong password',
        unit: 'ms',
        value: p99(phases.fixed),
        baseline: p99(phases.idle),
        baselineLabel: 'no flood',
        goal: { on: 'value', max: 100 },
        note: describe(phases.fixed),
      }),
      figure({
        id: 'metrics-auth.slot-late.one-password',
        title: 'latest start of a 2-s supply slot under a flood of one repeated wrong password',
        unit: 'ms',
        value: worst(phases.fixed),
        baseline: worst(phases.idle),
        baselineLabel: 'no flood',
        goal: { on: 'value', max: 1000 },
      }),
    ];
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child?.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await sim.close();
    await deletePrefix(REDIS_URL, prefix);
    dirs.cleanup();
  }
}
