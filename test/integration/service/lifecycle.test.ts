import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliProcess, spawnCli, stopCli } from '../../support/cli.js';
import { freePort, type PrivateRedis, startPrivateRedis } from '../../support/redis-server.js';
import { captureLog, jobRuns, type ServiceHarness, serviceHarness, waitFor } from '../../support/service.js';
import { queryAt } from '../../support/store.js';

let h: ServiceHarness | undefined;
let redis: PrivateRedis | undefined;
let proc: CliProcess | undefined;
afterEach(async () => {
  await stopCli(proc);
  proc = undefined;
  await h?.close();
  h = undefined;
  await redis?.stop();
  redis = undefined;
});

interface Ready {
  checks: Record<string, { ok: boolean; error?: string }>;
}

async function getJson(url: string): Promise<{ status: number; body: Ready }> {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Ready };
}

function writeConfig(dir: string, file: unknown): string {
  const path = join(dir, 'glacier.json');
  writeFileSync(path, JSON.stringify(file));
  return path;
}

describe('the service process', () => {
  it('SIGTERM during a job: the job finishes, its job_runs row is complete, exit code 0', async () => {
    h = await serviceHarness({ sim: { faults: { endpoints: { transactions: { latencyMs: 1500 } } } } });
    const port = await freePort();
    const configPath = writeConfig(h.dir, {
      jobs: { transactions: { schedule: '0 0 1 1 *', runOnStart: true, maxPages: 1 } },
      service: { queuePrefix: h.prefix, shutdownGrace: '20s' },
    });
    proc = spawnCli(['start', '-c', configPath], {
      GLACIER_BASE_URL: h.sim.url,
      ...h.dbEnv,
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(port),
    });
    const sim = h.sim;
    await waitFor(() => sim.requests.some((r) => r.endpoint === 'transactions'), 20_000, 'the first request');
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    const runs = await queryAt<{ status: string; finished_at: string | null; rows_written: number }>(
      h.location,
      'SELECT status, finished_at, rows_written FROM job_runs',
    );
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'succeeded', rows_written: 100 });
    expect(runs[0]!.finished_at).not.toBeNull();
  });

  it('starts with Redis down: one line saying where and how, not ready, then ready once Redis is up', async () => {
    h = await serviceHarness();
    redis = await startPrivateRedis({ start: false });
    const port = await freePort();
    const configPath = writeConfig(h.dir, {
      jobs: { supply: { schedule: '* * * * * *' } },
      service: { queuePrefix: h.prefix },
    });
    proc = spawnCli(['start', '-c', configPath], {
      GLACIER_BASE_URL: h.sim.url,
      ...h.dbEnv,
      REDIS_URL: `redis://:s3cret-pass@127.0.0.1:${redis.port}`,
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(port),
    });
    await proc.waitForOutput(/Redis is not reachable/);
    const ready = await waitFor(async () => {
      try {
        return await getJson(`http://127.0.0.1:${port}/readyz`);
      } catch {
        return undefined;
      }
    });
    expect(ready.status).toBe(503);
    expect(ready.body.checks.redis?.ok).toBe(false);
    expect((await getJson(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 3_000)); // several reconnect attempts
    const out = proc.output();
    expect(out.match(/Redis is not reachable/g)).toHaveLength(1);
    expect(out).toContain(`redis://:***@127.0.0.1:${redis.port}`);
    expect(out).toContain('redis-server');
    expect(out).toContain('docker compose up -d redis');
    expect(out).not.toContain('s3cret-pass');
    expect(out).not.toMatch(/\n\s+at /); // no stack trace

    await redis.start();
    await waitFor(
      async () => (await getJson(`http://127.0.0.1:${port}/readyz`)).status === 200,
      20_000,
      'ready',
    );
    await proc.waitForOutput(/Redis is back/);
    await proc.waitForOutput(/"job":"supply".*"msg":"job run"/, 10_000);
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
  });

  it('Redis stopped and restarted mid-run: the service reconnects and the next slots run', async () => {
    redis = await startPrivateRedis();
    h = await serviceHarness({ redisUrl: redis.url });
    const { log, text } = captureLog('info');
    const svc = await h.start(h.config({ jobs: { supply: { schedule: '* * * * * *' } } }), { log });
    const succeeded = async () => (await jobRuns(svc)).filter((r) => r.status === 'succeeded').length;
    await waitFor(async () => (await succeeded()) >= 2, 10_000, 'two runs');
    await redis.stop();
    await new Promise((r) => setTimeout(r, 2_000));
    const before = await succeeded();
    await redis.start();
    await waitFor(async () => (await succeeded()) >= before + 2, 20_000, 'two runs after the restart');
    expect(text()).toMatch(/Redis is back/);
    expect(text().match(/Redis is not reachable/g)?.length).toBe(1);
  });
});
