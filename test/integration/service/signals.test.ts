/**
 * The signals a container runtime, a service manager or a terminal sends to `start`: SIGHUP re-reads
 * the metrics web config and never stops the service (it exited at once with 129, leaving a run
 * `running` and its heartbeat in Redis); SIGTERM, SIGINT and SIGQUIT stop it gracefully.
 */
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliProcess, stopCli } from '../../support/cli.js';
import { eventually, skipWithout } from '../../support/prometheus.js';
import { type ServiceHarness, serviceHarness } from '../../support/service.js';
import { queryAt } from '../../support/store.js';
import { tempDir } from '../../support/tmp.js';
import { basicAuth, makeCertificate, webConfigYaml, writeWebConfig } from '../../support/web-config.js';

let h: ServiceHarness | undefined;
let proc: CliProcess | undefined;
let agent: Agent | undefined;
let cleanupDir: (() => void) | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await stopCli(proc);
  proc = undefined;
  await h?.close();
  h = undefined;
  cleanupDir?.();
  cleanupDir = undefined;
});

async function startWith(env: Record<string, string>): Promise<{ port: number }> {
  h = await serviceHarness({ sim: { faults: { endpoints: { supply: { latencyMs: 1_500 } } } } });
  const started = await h.spawnStart(
    { jobs: { supply: { schedule: '* * * * * *' } }, service: { shutdownGrace: '20s' } },
    env,
  );
  proc = started.proc;
  await proc.waitForOutput(/glacier-collector started/, 30_000);
  return { port: started.port };
}

async function heartbeats(prefix: string): Promise<string[]> {
  const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    return await redis.keys(`${prefix}:heartbeat:*`);
  } finally {
    redis.disconnect();
  }
}

/** Stops the process with `signal` while a supply run is in progress; what it left behind. */
async function stopDuringRun(signal: NodeJS.Signals) {
  const sim = h!.sim;
  const started = sim.requests.filter((r) => r.endpoint === 'supply').length;
  await eventually(async () =>
    sim.requests.filter((r) => r.endpoint === 'supply').length > started ? true : undefined,
  );
  expect(await heartbeats(h!.prefix)).toHaveLength(1);
  proc!.child.kill(signal);
  const code = await proc!.exited;
  const running = await queryAt<{ n: number }>(
    h!.location,
    "SELECT COUNT(*) AS n FROM job_runs WHERE status = 'running'",
  );
  return { code, running: running[0]?.n, heartbeats: await heartbeats(h!.prefix), output: proc!.output() };
}

describe('signals to start', () => {
  it.each(['SIGTERM', 'SIGINT', 'SIGQUIT'] as const)(
    '%s during a run: graceful shutdown, exit 0, no run left running, the heartbeat removed',
    async (signal) => {
      await startWith({});
      const stopped = await stopDuringRun(signal);
      expect(stopped.code, stopped.output.slice(-2000)).toBe(0);
      expect(stopped.running).toBe(0);
      expect(stopped.heartbeats).toEqual([]);
      expect(stopped.output).toContain(`"signal":"${signal}"`);
    },
    60_000,
  );

  it.skipIf(skipWithout('openssl'))(
    'SIGHUP re-reads the web config (a rotated password works, the old one is refused) and the service runs on',
    async () => {
      const files = tempDir('glacier-signals-');
      cleanupDir = files.cleanup;
      const dir = files.dir;
      const cert = makeCertificate(dir);
      const webConfig = writeWebConfig(dir, webConfigYaml({ cert, users: { prometheus: 'old-password' } }));
      const { port } = await startWith({ METRICS_WEB_CONFIG: webConfig });
      agent = new Agent({ connect: { ca: readFileSync(cert.certFile) } });
      const status = async (credentials: string) => {
        const res = await request(`https://127.0.0.1:${port}/metrics`, {
          dispatcher: agent,
          headers: { authorization: basicAuth(credentials) },
        });
        await res.body.text();
        return res.statusCode;
      };
      expect(await status('prometheus:old-password')).toBe(200);

      writeWebConfig(dir, webConfigYaml({ cert, users: { prometheus: 'new-password' } }));
      proc!.child.kill('SIGHUP');
      // No request meanwhile: the reload is the signal's, not the per-request look at the file.
      await proc!.waitForOutput(/metrics web config reloaded/);
      expect(await status('prometheus:new-password')).toBe(200);
      expect(await status('prometheus:old-password')).toBe(401);
      expect(proc!.child.exitCode).toBeNull();

      // A second SIGHUP is a reload again, not the second signal of a shutdown.
      proc!.child.kill('SIGHUP');
      await eventually(async () =>
        (proc!.output().match(/metrics web config reloaded/g) ?? []).length === 2 ? true : undefined,
      );
      const stopped = await stopDuringRun('SIGTERM');
      expect(stopped.code, stopped.output.slice(-2000)).toBe(0);
      expect(stopped.running).toBe(0);
    },
    60_000,
  );
});
