/**
 * The compose stack, checked without a Docker engine: docker-compose.yml, the Prometheus config, the
 * alert rules, Grafana's provisioning and the dashboard are parsed and checked against each other and
 * the repository; then a real `start` runs the offline profile's config against the simulator, a
 * real Prometheus scrapes it with the alert rules loaded, and every dashboard query and every alert
 * expression goes through Prometheus's HTTP API.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { demoServiceConfig } from '../../src/commands/demo-config.js';
import { parseDuration } from '../../src/config/durations.js';
import { loadConfig } from '../../src/config/index.js';
import { SIMULATOR_NODE_OPTIONS } from '../../src/simulator/index.js';
import { type CliProcess, spawnCli } from '../support/cli.js';
import {
  eventually,
  freePort,
  hasBinary,
  type PrometheusHandle,
  promtool,
  skipWithout,
  startPrometheus,
} from '../support/prometheus.js';
import { type ServiceHarness, serviceHarness } from '../support/service.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');
// The files' shapes are what the tests below check: a typo shows as a failed expectation.
// biome-ignore lint/suspicious/noExplicitAny: parsed YAML, read field by field
const readYaml = (path: string) => parse(read(path)) as any;

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  profiles?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  secrets?: string[];
  healthcheck?: { test: string[]; disable?: boolean };
  stop_grace_period?: string;
  depends_on?: Record<string, { condition: string }>;
  networks?: Record<string, { aliases?: string[] } | null>;
}
const compose = readYaml('docker-compose.yml') as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
  secrets: Record<string, unknown>;
};
const services = compose.services;

/** The services `docker compose --profile <profile> up` starts: those without a profile, and its own. */
const started = (profile: string) =>
  Object.entries(services).filter(([, s]) => !s.profiles || s.profiles.includes(profile));

/** `./host:/container[:ro]` bind mounts: [host path relative to the repository, container path]. */
const binds = (s: Service) =>
  (s.volumes ?? [])
    .filter((v) => v.startsWith('./'))
    .map((v) => {
      const [host, container] = v.split(':');
      return [posix.normalize(host!), container!] as const;
    });

/** Where a container path lands in the repository through a service's bind mounts. */
function hostPath(s: Service, containerPath: string): string | undefined {
  for (const [host, container] of binds(s)) {
    if (containerPath === container) return host;
    if (containerPath.startsWith(`${container}/`))
      return join(host, containerPath.slice(container.length + 1));
  }
  return undefined;
}

const offlineConfigFile = readYaml('deploy/offline/glacier-collector.yaml');
const collectors = ['collector', 'collector-offline'] as const;

describe('docker-compose.yml', () => {
  it('pins every image to an exact version; the collector images are built from this repository', () => {
    for (const [name, s] of Object.entries(services)) {
      expect(s.image, name).toMatch(/^[a-z0-9./-]+:[A-Za-z0-9._-]+$/);
      if (s.build !== undefined) {
        expect(s.build, name).toBe('.');
        continue;
      }
      // redis:7.2.5-alpine, prom/prometheus:v2.53.1, grafana/grafana:11.2.0: never `latest` or `7`.
      // PostgreSQL's releases have two numbers since 10: postgres:17.6 is one exact release.
      const exact = s.image?.startsWith('postgres:')
        ? /:\d+\.\d+(-[a-z0-9]+)?$/
        : /:v?\d+\.\d+\.\d+(-[a-z0-9]+)?$/;
      expect(s.image, name).toMatch(exact);
    }
  });

  it('runs `start` with a healthcheck on /healthz and more stop grace than the shutdown grace', () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toMatch(/HEALTHCHECK[^\n]*\n[^\n]*\/healthz/);
    const grace = {
      collector: loadConfig({ env: {}, file: parse(read('glacier-collector.example.yaml')) }).service
        .shutdownGrace,
      'collector-offline': loadConfig({ env: {}, file: offlineConfigFile }).service.shutdownGrace,
    };
    for (const name of collectors) {
      const s = services[name]!;
      expect(s.command, name).toEqual(['start']);
      expect(s.healthcheck?.test.join(' '), name).toContain('http://127.0.0.1:9464/healthz');
      expect(s.healthcheck?.test[0], name).toBe('CMD');
      expect(parseDuration(s.stop_grace_period!), name).toBeGreaterThan(grace[name]);
      expect(s.environment?.REDIS_URL, name).toBe('redis://redis:6379');
      expect(s.depends_on?.redis, name).toEqual({ condition: 'service_healthy' });
      // Database and exports on a volume.
      expect(
        s.volumes?.some((v) => v.endsWith(':/data')),
        name,
      ).toBe(true);
    }
    // The live collector reads the key from a compose secret, never from an environment variable.
    const live = services.collector!;
    expect(live.profiles).toEqual(['live']);
    expect(live.environment?.GLACIER_API_KEY_FILE).toBe('/run/secrets/glacier_api_key');
    expect(live.environment).not.toHaveProperty('GLACIER_API_KEY');
    expect(live.secrets).toEqual(['glacier_api_key']);
    expect(Object.keys(compose.secrets)).toEqual(['glacier_api_key']);
    expect(hostPath(live, '/config/glacier-collector.yaml')).toBe('glacier-collector.yaml');
  });

  it('runs Redis with AOF fsynced every second, noeviction and a volume', () => {
    const redis = services.redis!;
    const flags = redis.command!;
    expect(flags[0]).toBe('redis-server');
    const flag = (name: string) => flags[flags.indexOf(`--${name}`) + 1];
    expect(flag('appendonly')).toBe('yes');
    expect(flag('appendfsync')).toBe('everysec');
    expect(flag('maxmemory-policy')).toBe('noeviction');
    expect(redis.volumes).toEqual(['redis-data:/data']);
    expect(redis.healthcheck?.test).toEqual(['CMD', 'redis-cli', 'ping']);
    // Every profile but postgres-only, whose queue is in PostgreSQL.
    expect(redis.profiles?.sort()).toEqual(['live', 'offline', 'postgres']);
  });

  it('the postgres-only profile runs store and queue on PostgreSQL, with no Redis', () => {
    expect(
      started('postgres-only')
        .map(([n]) => n)
        .sort(),
    ).toEqual(['collector-postgres-only', 'grafana', 'postgres', 'prometheus', 'simulator'].sort());
    const c = services['collector-postgres-only']!;
    expect(c.environment?.QUEUE_URL).toBe(c.environment?.DATABASE_URL);
    expect(c.environment?.QUEUE_URL).toMatch(
      /^postgres:\/\/collector:\$\{POSTGRES_PASSWORD:-\}@postgres:5432\//,
    );
    expect(c.environment).not.toHaveProperty('REDIS_URL');
    expect(c.depends_on).not.toHaveProperty('redis');
    expect(c.depends_on?.postgres).toEqual({ condition: 'service_healthy' });
    expect(c.networks?.default?.aliases).toContain('collector');
    // The URL as compose writes it loads: the queue on PostgreSQL, in its own schema.
    const env = {
      DATABASE_URL: 'postgres://collector:x@postgres:5432/collector',
      QUEUE_URL: 'postgres://collector:x@postgres:5432/collector',
    };
    expect(loadConfig({ env, file: offlineConfigFile }).queue).toMatchObject({
      kind: 'postgres',
      schema: 'glacier_queue',
    });
  });

  it('declares every named volume it mounts', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const v of s.volumes ?? []) {
        if (v.startsWith('./')) continue;
        expect(compose.volumes, `${name}: ${v}`).toHaveProperty(v.split(':')[0]!);
      }
    }
  });

  it('the offline profile runs the whole stack against the simulator with nothing from the user', () => {
    expect(
      started('offline')
        .map(([n]) => n)
        .sort(),
    ).toEqual(['collector-offline', 'grafana', 'prometheus', 'redis', 'simulator'].sort());
    expect(
      started('live')
        .map(([n]) => n)
        .sort(),
    ).toEqual(['collector', 'grafana', 'prometheus', 'redis'].sort());
    for (const [name, s] of started('offline')) {
      // No secret, no key, and every mounted file ships with the repository.
      expect(s.secrets, name).toBeUndefined();
      expect(JSON.stringify(s.environment ?? {}), name).not.toMatch(/API_KEY/);
      for (const [host] of binds(s)) expect(existsSync(join(root, host)), `${name}: ${host}`).toBe(true);
      // Any ${VAR} the user may set has a default.
      for (const value of Object.values(s.environment ?? {})) {
        for (const m of String(value).matchAll(/\$\{([^}]*)\}/g)) expect(m[1], name).toContain(':-');
      }
    }
    const simulator = services.simulator!;
    expect(simulator.command).toEqual([
      'simulator',
      '--host',
      '0.0.0.0',
      '--port',
      '4010',
      '--public-url',
      'http://simulator:4010',
    ]);
    // The heap settings the soak measured the simulator with (a flat RSS over weeks).
    expect(simulator.environment?.NODE_OPTIONS).toBe(SIMULATOR_NODE_OPTIONS);
    // The image's HEALTHCHECK is the collector's (/healthz on 9464): the simulator needs its own.
    expect(simulator.healthcheck?.test.join(' ')).toContain('http://127.0.0.1:4010/');
    const offline = services['collector-offline']!;
    expect(offline.environment?.GLACIER_BASE_URL).toBe('http://simulator:4010');
    expect(offline.depends_on?.simulator).toEqual({ condition: 'service_healthy' });
    expect(hostPath(offline, offline.environment!.GLACIER_CONFIG!)).toBe(
      'deploy/offline/glacier-collector.yaml',
    );
    // Prometheus scrapes `collector` in either profile.
    expect(offline.networks?.default?.aliases).toContain('collector');
  });

  it('the offline config is the demo config, with the exports on the volume', () => {
    const config = loadConfig({ env: {}, file: offlineConfigFile });
    expect(config.jobs.exports?.directory).toBe('/data/exports');
    const demo = demoServiceConfig();
    const expected = { ...demo.jobs, exports: { ...demo.jobs.exports, directory: '/data/exports' } };
    expect(offlineConfigFile.jobs).toEqual(expected);
  });

  it('mounts the Prometheus config whose scrape job and rule files exist', () => {
    const prometheus = services.prometheus!;
    const configPath = hostPath(prometheus, '/etc/prometheus/prometheus.yml');
    expect(configPath).toBe('deploy/prometheus/prometheus.yml');
    expect(prometheus.volumes).toContain('prometheus-data:/prometheus');
    const config = readYaml(configPath!);
    expect(config.rule_files).toEqual(['alerts.yml']);
    for (const file of config.rule_files as string[]) {
      expect(hostPath(prometheus, posix.join('/etc/prometheus', file))).toBe('deploy/prometheus/alerts.yml');
    }
    // The alert rules expect the job name; the target is a compose host name in both profiles.
    const [scrape] = config.scrape_configs;
    expect(config.scrape_configs).toHaveLength(1);
    expect(scrape.job_name).toBe('glacier-collector');
    expect(scrape.static_configs[0].targets).toEqual(['collector:9464']);
    expect(read('deploy/prometheus/alerts.yml')).toContain('job="glacier-collector"');
    if (hasBinary('promtool')) {
      const check = promtool(['check', 'config', join(root, configPath!)]);
      expect(check.code, check.output).toBe(0);
    }
  });

  it('provisions Grafana: the Prometheus data source and the dashboard, from files that exist', () => {
    const grafana = services.grafana!;
    expect(hostPath(grafana, '/etc/grafana/provisioning')).toBe('deploy/grafana/provisioning');
    const datasources = readYaml('deploy/grafana/provisioning/datasources/prometheus.yml');
    expect(datasources.datasources).toHaveLength(1);
    const [ds] = datasources.datasources;
    expect(ds).toMatchObject({ type: 'prometheus', uid: 'prometheus', url: 'http://prometheus:9090' });
    expect(services).toHaveProperty('prometheus');

    const providers = readYaml('deploy/grafana/provisioning/dashboards/glacier-collector.yml').providers;
    expect(providers).toHaveLength(1);
    const dashboardsDir = hostPath(grafana, providers[0].options.path);
    expect(dashboardsDir).toBe('deploy/grafana/dashboards');
    expect(statSync(join(root, dashboardsDir!)).isDirectory()).toBe(true);
    const home = hostPath(grafana, grafana.environment!.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH!);
    expect(home).toBe('deploy/grafana/dashboards/glacier-collector.json');

    // No manual step: anonymous visitors view, the admin password is set (and documented).
    expect(grafana.environment).toMatchObject({
      GF_AUTH_ANONYMOUS_ENABLED: 'true',
      GF_AUTH_ANONYMOUS_ORG_ROLE: 'Viewer',
      // Compose interpolation, documented in docs/operations.md.
      GF_SECURITY_ADMIN_PASSWORD: expect.stringMatching(/^\$\{GRAFANA_ADMIN_PASSWORD:-admin\}$/),
    });
    expect(grafana.volumes).toContain('grafana-data:/var/lib/grafana');
  });
});

describe('the Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

  it('runs as a fixed numeric non-root user, which Kubernetes’ runAsNonRoot can check', () => {
    // USER node would make runAsNonRoot refuse the pod ("non-numeric user"): uid 1000 is the image's node.
    expect(runtime).toMatch(/^USER 1000:1000$/m);
    expect(runtime).not.toMatch(/^USER (?!1000:1000$)/m);
    // The one directory it writes to (through /app/data) belongs to that user.
    expect(runtime).toContain('chown node:node /data');
    expect(runtime).toContain('ln -s /data /app/data');
  });

  it('starts node under tini, from Debian, so that every signal reaches it and orphans are reaped', () => {
    // Node as PID 1 gets no signal it has no handler for: SIGTERM during start-up would wait for SIGKILL.
    expect(runtime).toMatch(/apt-get install -y --no-install-recommends tini\b/);
    const entrypoint = /^ENTRYPOINT (.*)$/m.exec(runtime)?.[1];
    expect(JSON.parse(entrypoint!)).toEqual(['/usr/bin/tini', '--', 'node', 'dist/src/cli.js']);
    expect(runtime).toMatch(/^STOPSIGNAL SIGTERM$/m);
    expect(JSON.parse(/^CMD (.*)$/m.exec(runtime)![1]!)).toEqual(['start']);
  });
});

interface Target {
  refId: string;
  expr: string;
  datasource: { type: string; uid: string };
}
interface Panel {
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: Target[];
}
interface Variable {
  name: string;
  type: string;
  query: { query: string };
  multi: boolean;
  includeAll: boolean;
  datasource: { uid: string };
}
const dashboard = JSON.parse(read('deploy/grafana/dashboards/glacier-collector.json')) as {
  uid: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: Variable[] };
};
const queryPanels = dashboard.panels.filter((p) => p.type !== 'row');
const queries = queryPanels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, ...t })));

describe('the dashboard', () => {
  it('uses the provisioned data source in every panel, target and variable', () => {
    expect(dashboard.uid).toBe('glacier-collector');
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39);
    expect(read('deploy/grafana/dashboards/glacier-collector.json')).not.toContain('DS_PROMETHEUS');
    for (const p of queryPanels) {
      expect(p.datasource, p.title).toEqual({ type: 'prometheus', uid: 'prometheus' });
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      for (const t of p.targets!) expect(t.datasource.uid, p.title).toBe('prometheus');
    }
    for (const v of dashboard.templating.list) expect(v.datasource.uid, v.name).toBe('prometheus');
    expect(dashboard.templating.list.map((v) => v.name).sort()).toEqual(['currency', 'job', 'network']);
  });

  it('has panels for every subject of the issue', () => {
    const exprs = queries.map((q) => q.expr).join('\n');
    for (const metric of [
      'glacier_supply_circulating_avax',
      'glacier_rewards_received_avax',
      'glacier_rewards_received_value',
      'glacier_transactions_collected',
      'glacier_usage_requests',
      'glacier_usage_api_credits_used',
      'glacier_upstream_compute_units_total',
      'glacier_upstream_budget_compute_units',
      'glacier_upstream_budget_remaining_compute_units',
      'glacier_job_last_success_timestamp_seconds',
      'glacier_job_runs_total',
      'glacier_job_failures_total',
      'glacier_queue_jobs',
      'glacier_export_operations',
      'glacier_signatures_collected',
      'glacier_validator_end_timestamp_seconds',
      'glacier_validator_uptime_ratio',
      'glacier_validator_potential_reward_avax',
      'glacier_validator_pending_reward_avax',
      'glacier_validator_unrewarded_validations',
    ]) {
      expect(exprs, metric).toContain(metric);
    }
  });

  it('uses only metrics that docs/metrics.md lists', () => {
    const documented = new Set(
      [...read('docs/metrics.md').matchAll(/`(glacier_[a-z0-9_]+)`/g)].map((m) => m[1]),
    );
    const used = new Set(
      queries.flatMap((q) => [...q.expr.matchAll(/\b(glacier_[a-z0-9_]+)/g)].map((m) => m[1]!)),
    );
    for (const v of dashboard.templating.list) {
      for (const m of v.query.query.matchAll(/\b(glacier_[a-z0-9_]+)/g)) used.add(m[1]!);
    }
    for (const name of used) {
      // Histogram series carry suffixes the docs do not list apart.
      expect(documented.has(name.replace(/_(bucket|sum|count)$/, '')) || documented.has(name), name).toBe(
        true,
      );
    }
  });
});

/** `label_values(selector, label)` (Grafana) as PromQL: the label's values among the selected series. */
function variableQuery(v: Variable): { promql: string; label: string } {
  const m = /^label_values\((.+),\s*([a-z_]+)\)$/.exec(v.query.query);
  if (!m) throw new Error(`variable ${v.name}: unsupported query ${v.query.query}`);
  return { promql: `group by (${m[2]}) (${m[1]})`, label: m[2]! };
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Grafana's interpolation: a multi-value or "All" variable becomes `(a|b)` (regex-escaped, for
 * `=~`), a single one its value. The built-in intervals get what Grafana would give a 1 s scrape.
 */
function interpolate(expr: string, values: Map<string, { values: string[]; multi: boolean }>): string {
  let out = expr
    .replaceAll('$__rate_interval', '1m')
    .replaceAll('$__interval', '15s')
    .replaceAll('$__range', '5m');
  for (const [name, v] of values) {
    const text = v.multi ? `(${v.values.map(escapeRegex).join('|')})` : v.values[0]!;
    out = out.replaceAll(`\${${name}}`, text).replace(new RegExp(`\\$${name}\\b`, 'g'), text);
  }
  if (/\$\w/.test(out)) throw new Error(`uninterpolated variable in ${out}`);
  return out;
}

interface Rule {
  alert: string;
  expr: string;
}
const rules = (readYaml('deploy/prometheus/alerts.yml').groups as { rules: Rule[] }[]).flatMap(
  (g) => g.rules,
);

describe.skipIf(skipWithout('prometheus'))(
  'a real Prometheus scraping the offline profile’s collector',
  () => {
    let h: ServiceHarness;
    let proc: CliProcess;
    let prometheus: PrometheusHandle;

    beforeAll(async () => {
      // The third supply request answers 400: a failed run (client_error) that the failure panels and
      // GlacierJobRunsFailing show; the next supply run, 5 s later, succeeds. Not the first: Prometheus
      // must have scraped the counter at 0 before, or increase() cannot see it.
      const plan = [{ kind: 'ok' as const }, { kind: 'ok' as const }, { status: 400 }];
      h = await serviceHarness({ sim: { faults: { endpoints: { supply: { plan } } } } });
      const port = await freePort();
      const configPath = join(h.dir, 'offline.json');
      writeFileSync(
        configPath,
        JSON.stringify({
          ...offlineConfigFile,
          jobs: {
            ...offlineConfigFile.jobs,
            exports: { ...offlineConfigFile.jobs.exports, directory: join(h.dir, 'exports') },
          },
          service: { queuePrefix: h.prefix, shutdownGrace: '5s' },
        }),
      );
      proc = spawnCli(['start', '-c', configPath], {
        GLACIER_BASE_URL: h.sim.url,
        ...h.dbEnv,
        METRICS_HOST: '127.0.0.1',
        METRICS_PORT: String(port),
      });
      prometheus = await startPrometheus([`127.0.0.1:${port}`], {
        rules: [resolve(root, 'deploy/prometheus/alerts.yml')],
      });
      const p = prometheus;
      // Every job has succeeded (the export downloaded and loaded), and the planted failure is counted.
      // The seven configured jobs (and the exports' follow-up, export-poll, when it ran).
      const jobs = [
        'supply',
        'transactions',
        'rewards',
        'validators',
        'usage-metrics',
        'signatures',
        'exports',
      ];
      let state = '';
      await eventually(async () => {
        const ok = await p.query('glacier_job_last_success_timestamp_seconds');
        const failed = await p.query('glacier_job_failures_total{job_name="supply"}');
        const exported = await p.query('glacier_export_last_completed_timestamp_seconds');
        state = `succeeded: ${ok.map((r) => r.metric.job_name).join(', ')}; supply failures: ${failed.length}; exports completed: ${exported.length}`;
        const names = new Set(ok.map((r) => r.metric.job_name));
        return jobs.every((j) => names.has(j)) && failed.length > 0 && exported.length > 0 ? true : undefined;
      }, 45_000).catch((err: Error) => {
        throw new Error(`${err.message}: ${state}\n${proc.output().slice(-3000)}`);
      });
      // Rate windows need two samples after the last job's first run: scrapes are 1 s apart.
      await new Promise((r) => setTimeout(r, 2_500));
    }, 60_000);

    afterAll(async () => {
      await prometheus?.close();
      if (proc && proc.child.exitCode === null) {
        proc.child.kill('SIGTERM');
        await proc.exited;
      }
      await h?.close();
    });

    it('every dashboard query, its variables replaced by real values, parses and returns data', async () => {
      const values = new Map<string, { values: string[]; multi: boolean }>();
      for (const v of dashboard.templating.list) {
        const { promql, label } = variableQuery(v);
        const found = (await prometheus.query(promql)).map((r) => r.metric[label]!).sort();
        expect(found.length, `variable ${v.name}: ${promql}`).toBeGreaterThan(0);
        values.set(v.name, { values: found, multi: v.multi || v.includeAll });
      }
      expect(values.get('network')?.values).toEqual(['fuji', 'mainnet']);
      expect(values.get('currency')?.values).toEqual(['usd']);

      const problems: string[] = [];
      for (const q of queries) {
        const promql = interpolate(q.expr, values);
        try {
          const result = await prometheus.query(promql);
          if (result.length === 0) problems.push(`${q.panel} (${q.refId}): no data: ${promql}`);
        } catch (err) {
          problems.push(`${q.panel} (${q.refId}): ${(err as Error).message}`);
        }
      }
      expect(problems).toEqual([]);
      expect(queries.length).toBeGreaterThan(40);
    });

    /**
     * Every alert expression is a firing condition (a comparison, or `up == 0`): on a healthy stack
     * most return nothing, which proves little by itself. So each must evaluate without error, every
     * metric it names must have series (a misspelt name would make it silently never fire), and the
     * rule must be loaded and evaluated by Prometheus without error. The one condition this run makes
     * true, GlacierJobRunsFailing (the planted supply failure), must return that job.
     */
    it('every alert expression evaluates without error, on metrics that exist', async () => {
      expect(rules.length).toBeGreaterThanOrEqual(7);
      const problems: string[] = [];
      for (const rule of rules) {
        try {
          await prometheus.query(rule.expr);
        } catch (err) {
          problems.push(`${rule.alert}: ${(err as Error).message}`);
        }
        const names = new Set(
          [...rule.expr.matchAll(/\b(glacier_[a-z0-9_]+|up)\b(?=\s*[{[)\s])/g)].map((m) => m[1]!),
        );
        expect(names.size, rule.alert).toBeGreaterThan(0);
        for (const name of names) {
          const series = await prometheus.query(`count({__name__="${name}"})`);
          if (series.length === 0) problems.push(`${rule.alert}: no series of ${name}`);
        }
      }
      expect(problems).toEqual([]);

      const failing = rules.find((r) => r.alert === 'GlacierJobRunsFailing')!;
      expect((await prometheus.query(failing.expr)).map((r) => r.metric.job_name)).toEqual(['supply']);
      expect(await prometheus.query(rules.find((r) => r.alert === 'GlacierCollectorDown')!.expr)).toEqual([]);

      // Loaded by Prometheus (rule_files) and evaluated without error.
      const loaded = await eventually(async () => {
        const res = await request(`${prometheus.url}/api/v1/rules?type=alert`);
        const body = (await res.body.json()) as {
          data: {
            groups: {
              rules: { name: string; health: string; lastError?: string; lastEvaluation: string }[];
            }[];
          };
        };
        const all = body.data.groups.flatMap((g) => g.rules);
        return all.length > 0 && all.every((r) => !r.lastEvaluation.startsWith('0001')) ? all : undefined;
      });
      expect(loaded.map((r) => r.name).sort()).toEqual(rules.map((r) => r.alert).sort());
      for (const r of loaded)
        expect({ name: r.name, health: r.health, error: r.lastError ?? '' }).toEqual({
          name: r.name,
          health: 'ok',
          error: '',
        });
    });
  },
);
