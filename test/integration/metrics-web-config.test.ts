/**
 * METRICS_WEB_CONFIG: the exporter-toolkit web config file (TLS, basic auth) node_exporter reads,
 * proven with the real Prometheus scraping over TLS with basic auth, and refused without them.
 * The certificate is made with openssl when the test runs.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '../../jobs/index.js';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { createMetrics } from '../../src/metrics/index.js';
import { type HttpServer, startHttpServer } from '../../src/metrics/server.js';
import { WebConfigError } from '../../src/metrics/web-access.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { captureLog } from '../support/log.js';
import { eventually, skipWithout, startPrometheus } from '../support/prometheus.js';
import { testStore } from '../support/store.js';
import { tempDir } from '../support/tmp.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterAll(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const PASSWORD = 'scrape-password-3b9f';
let dir: string;
let server: HttpServer;
let agent: Agent;
let ca: Buffer;

/** A config file's text written beside the certificate, loaded as the collector would. */
function webConfigFrom(text: string) {
  const path = join(dir, `web-${Math.random().toString(36).slice(2)}.yml`);
  writeFileSync(path, text);
  return loadConfig({ env: { METRICS_WEB_CONFIG: path }, cwd: '/nonexistent', file: {} }).metricsWebConfig;
}

beforeAll(async () => {
  if (skipWithout('openssl')) return;
  const tmp = tempDir('glacier-web-');
  cleanups.push(tmp.cleanup);
  dir = tmp.dir;
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  ca = readFileSync(join(dir, 'cert.pem'));
  const webConfig = webConfigFrom(
    [
      'tls_server_config:',
      '  cert_file: cert.pem',
      '  key_file: key.pem',
      'basic_auth_users:',
      `  prometheus: ${bcrypt.hashSync(PASSWORD, 4)}`,
      'http_server_config:',
      '  headers:',
      '    X-Content-Type-Options: nosniff',
    ].join('\n'),
  );
  const db = await testStore();
  cleanups.push(db.cleanup);
  const config = loadConfig({ env: {}, cwd: '/nonexistent', file: {} });
  const { log } = captureLog('info');
  const metrics = createMetrics({ store: db.store, config, log, clock: createManualClock(0), jobs });
  server = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    log,
    metrics,
    readiness: async () => ({ ready: true, checks: { database: { ok: true } } }),
    webConfig,
  });
  cleanups.push(server.close);
  agent = new Agent({ connect: { ca } });
  cleanups.push(() => agent.close());
});

async function get(path: string, auth?: string) {
  const res = await request(`${server.url}${path}`, {
    dispatcher: agent,
    headers: auth ? { authorization: `Basic ${Buffer.from(auth).toString('base64')}` } : {},
  });
  return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
}

describe.skipIf(skipWithout('openssl'))('metrics web config (METRICS_WEB_CONFIG)', () => {
  it('serves over TLS; /metrics and /readyz’s details need the basic-auth user, /healthz stays open', async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect((await get('/healthz')).status).toBe(200);
    const anonymous = await get('/metrics');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toMatch(/^Basic realm=/);
    // A probe without credentials learns ready or not, and nothing of the checks.
    const probe = await get('/readyz');
    expect(probe.status).toBe(200);
    expect(JSON.parse(probe.body)).toEqual({ status: 'ready' });
    expect((await get('/readyz', 'prometheus:wrong')).body).not.toContain('checks');
    expect((await get('/metrics', 'prometheus:wrong')).status).toBe(401);
    expect((await get('/metrics', `someone:${PASSWORD}`)).status).toBe(401);
    const ok = await get('/metrics', `prometheus:${PASSWORD}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('glacier_scrape_collector_success');
    expect(ok.headers['x-content-type-options']).toBe('nosniff');
    // A second request is answered from the cache of verified credentials, the same way.
    const detailed = await get('/readyz', `prometheus:${PASSWORD}`);
    expect(detailed.status).toBe(200);
    expect(JSON.parse(detailed.body).checks).toBeDefined();
    // Plain HTTP to the TLS port gets no answer.
    await expect(request(server.url.replace('https:', 'http:'))).rejects.toThrow();
  });

  it.skipIf(skipWithout('prometheus'))(
    'the real Prometheus scrapes it over TLS with basic auth, and is refused without credentials',
    async () => {
      const target = new URL(server.url).host;
      const caFile = join(dir, 'cert.pem');
      const job = (name: string, auth: string[]) => [
        `  - job_name: ${name}`,
        '    scheme: https',
        '    tls_config:',
        `      ca_file: ${JSON.stringify(caFile)}`,
        ...auth,
        '    static_configs:',
        `      - targets: [${JSON.stringify(target)}]`,
      ];
      writeFileSync(join(dir, 'password'), PASSWORD);
      const prometheus = await startPrometheus([], {
        scrapeConfigs: [
          ...job('secured', [
            '    basic_auth:',
            '      username: prometheus',
            `      password_file: ${JSON.stringify(join(dir, 'password'))}`,
          ]),
          ...job('anonymous', []),
        ],
      });
      cleanups.push(prometheus.close);
      const up = await eventually(async () => {
        const rows = await prometheus.query('up');
        return rows.length === 2 ? rows : undefined;
      });
      const byJob = Object.fromEntries(up.map((r) => [r.metric.job, r.value[1]]));
      expect(byJob).toEqual({ secured: '1', anonymous: '0' });
      const scraped = await prometheus.query('glacier_scrape_collector_success');
      expect(scraped.length).toBeGreaterThan(0);
      expect(new Set(scraped.map((r) => r.metric.job))).toEqual(new Set(['secured']));
    },
  );

  it.each([
    [
      'basic_auth_users:\n  alice: plain-password\n',
      'basic_auth_users.alice = "plain-password": must be a bcrypt hash',
    ],
    [
      'tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n',
      'cipher_suites is not supported',
    ],
    ['tls_server_config:\n  cert_file: c.pem\n', 'tls_server_config.key_file'],
    ['basic_auth_user:\n  alice: x\n', 'basic_auth_user: unknown key'],
  ])('refuses a web config that says %j, naming the file and the key', (text, message) => {
    const error = (() => {
      try {
        webConfigFrom(text);
      } catch (err) {
        return err as Error;
      }
      throw new Error('no error');
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(/METRICS_WEB_CONFIG file .*web-.*\.yml/);
    expect(error.message).toContain(message);
  });

  it('names the certificate file it cannot read', async () => {
    const webConfig = webConfigFrom('tls_server_config:\n  cert_file: missing.pem\n  key_file: key.pem\n');
    const { log } = captureLog('info');
    const error = await startHttpServer({
      host: '127.0.0.1',
      port: 0,
      log,
      readiness: async () => ({ ready: true, checks: {} }),
      webConfig,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(WebConfigError);
    expect(error.message).toContain('tls_server_config.cert_file');
    expect(error.message).toContain(join(dir, 'missing.pem'));
  });
});
