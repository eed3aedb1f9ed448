/**
 * A wrong-password flood against `/metrics` must cost the attacker, not the service: `start` as a
 * process, TLS and basic auth at bcrypt's usual cost 10, a supply job every second, the real
 * Prometheus scraping with the right password, and 128 clients sending wrong passwords as fast as
 * they are answered. Before, every request ran a bcrypt check on the service's only thread: with
 * 128 clients no job started for 37 s and every scrape timed out. The jobs must keep running,
 * `/healthz` keep answering and the scrapes keep succeeding (their credentials are cached); the
 * flood is refused at once (429) past the bound of checks in flight. Nothing here asserts a time.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, Pool, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliProcess, stopCli } from '../../support/cli.js';
import { eventually, skipWithout, startPrometheus } from '../../support/prometheus.js';
import { type ServiceHarness, serviceHarness } from '../../support/service.js';
import { queryAt } from '../../support/store.js';
import { basicAuth, makeCertificate, webConfigYaml, writeWebConfig } from '../../support/web-config.js';

const CLIENTS = 128;
const FLOOD_MS = 10_000;
const PASSWORD = 'scrape-password-7c1d';

let h: ServiceHarness | undefined;
let proc: CliProcess | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
  await stopCli(proc);
  proc = undefined;
  await h?.close();
  h = undefined;
});

describe.skipIf(skipWithout('openssl') || skipWithout('prometheus'))(
  'a wrong-password flood on /metrics',
  () => {
    it('128 clients: jobs keep running, /healthz answers, Prometheus keeps scraping, the flood gets 429', async () => {
      h = await serviceHarness();
      const cert = makeCertificate(h.dir);
      const webConfig = writeWebConfig(
        h.dir,
        webConfigYaml({ cert, users: { prometheus: PASSWORD }, cost: 10 }),
      );
      const started = await h.spawnStart(
        { jobs: { supply: { schedule: '* * * * * *' } } },
        { METRICS_WEB_CONFIG: webConfig, LOG_LEVEL: 'warn' },
      );
      proc = started.proc;
      const port = started.port;
      const base = `https://127.0.0.1:${port}`;
      const ca = readFileSync(cert.certFile);
      const agent = new Agent({ connect: { ca } });
      cleanups.push(() => agent.close());
      await eventually(async () => {
        const res = await request(`${base}/healthz`, { dispatcher: agent }).catch(() => undefined);
        await res?.body.text();
        return res?.statusCode === 200 ? true : undefined;
      }, 30_000);

      writeFileSync(join(h.dir, 'password'), PASSWORD);
      const prometheus = await startPrometheus([], {
        scrapeConfigs: [
          '  - job_name: secured',
          '    scheme: https',
          '    tls_config:',
          `      ca_file: ${JSON.stringify(cert.certFile)}`,
          '    basic_auth:',
          '      username: prometheus',
          `      password_file: ${JSON.stringify(join(h.dir, 'password'))}`,
          '    static_configs:',
          `      - targets: ["127.0.0.1:${port}"]`,
        ],
      });
      cleanups.push(prometheus.close);
      await eventually(async () => {
        const up = await prometheus.query('up{job="secured"} == 1');
        return up.length === 1 ? true : undefined;
      }, 30_000);

      // The flood: each client sends a fresh wrong password (nothing to cache) as soon as it is answered.
      const pool = new Pool(base, { connections: CLIENTS, connect: { ca }, pipelining: 1 });
      cleanups.push(() => pool.close());
      const statuses = new Map<number, number>();
      const errors = new Map<string, number>();
      const start = Date.now();
      const floodEnds = start + FLOOD_MS;
      const client = async () => {
        while (Date.now() < floodEnds) {
          try {
            const res = await pool.request({
              method: 'GET',
              path: '/metrics',
              headers: { authorization: basicAuth(`prometheus:${randomBytes(8).toString('hex')}`) },
            });
            await res.body.text();
            statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          } catch (err) {
            const code = (err as { code?: string }).code ?? String(err);
            errors.set(code, (errors.get(code) ?? 0) + 1);
          }
        }
      };
      // /healthz, as a liveness probe would ask it during the flood (one at a time).
      let healthy = 0;
      const probe = async () => {
        while (Date.now() < floodEnds) {
          const res = await request(`${base}/healthz`, { dispatcher: agent });
          await res.body.text();
          if (res.statusCode === 200) healthy += 1;
          await new Promise((r) => setTimeout(r, 200));
        }
      };
      await Promise.all([...Array.from({ length: CLIENTS }, client), probe()]);
      const end = Date.now();

      const runs = await queryAt<{ started_at: string; status: string }>(
        h.location,
        "SELECT started_at, status FROM job_runs WHERE job = 'supply' AND started_at >= ? AND started_at <= ?",
        [new Date(start).toISOString(), new Date(end).toISOString()],
      );
      // The successful scrapes of the flood's window: its end, and as many seconds back as it lasted.
      await new Promise((r) => setTimeout(r, 1_500)); // the scrape in flight at the end is recorded
      const scraped = await prometheus.query(
        `sum_over_time(up{job="secured"}[${Math.floor((end - start) / 1000)}s] @ ${(end / 1000).toFixed(3)})`,
      );

      // A run a second was due: before, one started during the flood (and /healthz answered once).
      expect(runs.length).toBeGreaterThanOrEqual(3);
      expect(runs.every((r) => r.status === 'succeeded')).toBe(true);
      expect(healthy).toBeGreaterThan(1);
      // Prometheus's cached credentials went on working through the flood (a scrape a second).
      expect(Number(scraped[0]?.value[1])).toBeGreaterThanOrEqual(2);
      // Refused: 401 after a check, 429 at once past the bound; never an error or a success.
      expect(Object.fromEntries(errors)).toEqual({});
      expect([...statuses.keys()].sort()).toEqual([401, 429]);
      expect(statuses.get(429)).toBeGreaterThan(statuses.get(401) ?? 0);
    }, 120_000);
  },
);
