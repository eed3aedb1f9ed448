import { resolve } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { rig } from '../support/metrics-rig.js';
import { eventually, promtool, skipWithout, startPrometheus } from '../support/prometheus.js';

const alerts = resolve('deploy/prometheus/alerts.yml');
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe.skipIf(skipWithout('promtool'))('alert rules', () => {
  it('pass promtool check rules', () => {
    const result = promtool(['check', 'rules', alerts]);
    expect(result.output).toContain('SUCCESS');
    expect(result.code).toBe(0);
  });

  it('pass their unit tests (promtool test rules): each fires when it should and stays quiet otherwise', () => {
    const result = promtool(['test', 'rules', resolve('deploy/prometheus/alerts.test.yml')]);
    expect(result.output).toContain('SUCCESS');
    expect(result.code).toBe(0);
  });
});

describe.skipIf(skipWithout('prometheus'))('a real Prometheus', () => {
  it('scrapes the collector and answers PromQL with the supply and a last-success time', async () => {
    const r = await rig(closers);
    expect((await r.run('supply')).status).toBe('succeeded');
    expect((await r.run('transactions')).status).toBe('succeeded');
    const prometheus = await startPrometheus([`127.0.0.1:${r.server.port}`], { rules: [alerts] });
    closers.push(prometheus.close);

    await eventually(async () => {
      const up = await prometheus.query('up{job="glacier-collector"}');
      return up[0]?.value[1] === '1' ? true : undefined;
    });
    const single = async (promql: string) => {
      const result = await prometheus.query(promql);
      expect(result, promql).toHaveLength(1);
      return Number(result[0]!.value[1]);
    };
    const supply = r.c.sim.truth.supply();
    expect(await single('glacier_supply_circulating_avax')).toBe(Number(supply.circulatingSupply));
    expect(await single('glacier_supply_burned_avax{chain="c"}')).toBe(Number(supply.totalCBurned));
    expect(await single('glacier_job_last_success_timestamp_seconds{job_name="supply"}')).toBe(
      r.c.clock.now() / 1000,
    );
    expect(
      await single('time() - glacier_job_last_success_timestamp_seconds{job_name="transactions"}'),
    ).toBeGreaterThan(0);
    // Prometheus asked for OpenMetrics: the counter arrives under its _total name all the same.
    expect(await single('glacier_job_runs_total{job_name="supply", outcome="succeeded"}')).toBe(1);
    expect(await single('sum(glacier_upstream_compute_units_total)')).toBeGreaterThan(0);

    // Every alert rule evaluates against real series without an error.
    const health = await eventually(async () => {
      const res = await request(`${prometheus.url}/api/v1/rules`);
      const body = (await res.body.json()) as {
        data: { groups: { rules: { name: string; health: string; lastError?: string }[] }[] };
      };
      const rules = body.data.groups.flatMap((g) => g.rules);
      return rules.length > 0 && rules.every((rule) => rule.health !== 'unknown') ? rules : undefined;
    });
    expect(health.map((rule) => [rule.name, rule.health, rule.lastError ?? ''])).toEqual(
      health.map((rule) => [rule.name, 'ok', '']),
    );
  });
});
