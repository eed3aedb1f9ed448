import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliProcess, spawnCli, stopCli } from '../../support/cli.js';
import { eventually, type PrometheusHandle, skipWithout, startPrometheus } from '../../support/prometheus.js';
import { freePort } from '../../support/redis-server.js';
import { type ServiceHarness, serviceHarness } from '../../support/service.js';
import { queryAt } from '../../support/store.js';

let h: ServiceHarness | undefined;
let proc: CliProcess | undefined;
let prometheus: PrometheusHandle | undefined;
afterEach(async () => {
  await prometheus?.close();
  prometheus = undefined;
  await stopCli(proc, 'SIGTERM');
  proc = undefined;
  await h?.close();
  h = undefined;
});

describe.skipIf(skipWithout('prometheus'))('a real Prometheus scraping `start`', () => {
  it('answers PromQL with the supply collected and the job’s last success time', async () => {
    h = await serviceHarness();
    const port = await freePort();
    const configPath = join(h.dir, 'glacier.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        jobs: { supply: { schedule: '0 0 1 1 *', runOnStart: true } },
        service: { queuePrefix: h.prefix },
      }),
    );
    proc = spawnCli(['start', '-c', configPath], {
      GLACIER_BASE_URL: h.sim.url,
      ...h.dbEnv,
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(port),
    });
    await proc.waitForOutput(/"job":"supply".*"msg":"job run"/);
    prometheus = await startPrometheus([`127.0.0.1:${port}`]);
    const p = prometheus;
    const value = (promql: string) =>
      eventually(async () => {
        const result = await p.query(promql);
        return result.length === 1 ? Number(result[0]!.value[1]) : undefined;
      });

    const supply = h.sim.truth.supply();
    expect(await value('glacier_supply_circulating_avax')).toBe(Number(supply.circulatingSupply));
    const [run] = await queryAt<{ finished_at: string }>(
      h.location,
      "SELECT finished_at FROM job_runs WHERE job = 'supply' AND status = 'succeeded'",
    );
    expect(await value('glacier_job_last_success_timestamp_seconds{job_name="supply"}')).toBe(
      Date.parse(run!.finished_at) / 1000,
    );
    expect(await value('glacier_build_info{role="all"}')).toBe(1);
    expect(await value('glacier_ready{check="redis"}')).toBe(1);
    expect(await value('sum(glacier_queue_jobs{queue="collector"})')).toBeGreaterThanOrEqual(1);
    expect(await value('glacier_upstream_budget_compute_units{window="minute"}')).toBe(6_000);
  });
});
