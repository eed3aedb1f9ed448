/**
 * METRICS_WEB_CONFIG: the exporter-toolkit web config file (TLS, basic auth) node_exporter reads,
 * proven with the real Prometheus scraping over TLS with basic auth, and refused without them.
 * The certificate is made with openssl when the test runs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { Agent, request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '../../jobs/index.js';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { createMetrics, type Metrics } from '../../src/metrics/index.js';
import { type HttpServer, startHttpServer } from '../../src/metrics/server.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { captureLog } from '../support/log.js';
import { eventually, skipWithout, startPrometheus } from '../support/prometheus.js';
import { testStore } from '../support/store.js';
import { tempDir } from '../support/tmp.js';
import { makeCertificate } from '../support/web-config.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterAll(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const PASSWORD = 'scrape-password-3b9f';
let dir: string;
let server: HttpServer;
let agent: Agent;
let metrics: Metrics;
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
  makeCertificate(dir); // cert.pem, cert-key.pem
  ca = readFileSync(join(dir, 'cert.pem'));
  const webConfig = webConfigFrom(
    [
      'tls_server_config:',
      '  cert_file: cert.pem',
      '  key_file: cert-key.pem',
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
  metrics = createMetrics({ store: db.store, config, log, clock: createManualClock(0), jobs });
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

  const cost = (n: string) => `$2b$${n}$${'a'.repeat(53)}`;
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
    // Days of CPU per request, and a 500 on every request: bcrypt's costs are 4..16 here.
    [
      `basic_auth_users:\n  alice: ${cost('31')}\n`,
      `basic_auth_users.alice = "${cost('31')}": bcrypt cost outside 4..16`,
    ],
    [`basic_auth_users:\n  bob: ${cost('99')}\n`, 'basic_auth_users.bob = "$2b$99$'],
    [`basic_auth_users:\n  carol: ${cost('03')}\n`, 'basic_auth_users.carol = "$2b$03$'],
    // Protects nothing: /metrics would be served open over plain HTTP.
    ['', 'it protects nothing: it sets neither tls_server_config nor basic_auth_users'],
    ['# only a comment\n', 'it protects nothing'],
    ['basic_auth_users: {}\n', 'it protects nothing'],
    // Every handshake would fail.
    [
      'tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n  min_version: TLS13\n  max_version: TLS12\n',
      'tls_server_config.max_version = "TLS12": lower than min_version',
    ],
    [
      'tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n  client_ca_file: ca.pem\n',
      'tls_server_config.client_ca_file = "ca.pem": set without a client_auth_type',
    ],
    // A framing header beside the server's own Content-Length: request smuggling behind a proxy.
    [
      `basic_auth_users:\n  a: ${cost('10')}\nhttp_server_config:\n  headers:\n    Transfer-Encoding: chunked\n`,
      'http_server_config.headers.Transfer-Encoding = "chunked": this header cannot be set; the headers a web config may set are Strict-Transport-Security, X-Content-Type-Options, X-Frame-Options, X-XSS-Protection, Content-Security-Policy',
    ],
    [
      `basic_auth_users:\n  a: ${cost('10')}\nhttp_server_config:\n  headers:\n    X-Frame-Options: allow-from x\n`,
      'http_server_config.headers.X-Frame-Options = "allow-from x": expected one of deny, sameorigin',
    ],
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
    const webConfig = webConfigFrom(
      'tls_server_config:\n  cert_file: missing.pem\n  key_file: cert-key.pem\n',
    );
    const { log } = captureLog('info');
    const error = await startHttpServer({
      host: '127.0.0.1',
      port: 0,
      log,
      readiness: async () => ({ ready: true, checks: {} }),
      webConfig,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain('tls_server_config.cert_file');
    expect(error.message).toContain(join(dir, 'missing.pem'));
  });
});

describe.skipIf(skipWithout('openssl'))('the TLS files of a web config', () => {
  const startWith = async (text: string) => {
    const { log } = captureLog('info');
    return startHttpServer({
      host: '127.0.0.1',
      port: 0,
      log,
      readiness: async () => ({ ready: true, checks: {} }),
      webConfig: webConfigFrom(text),
    }).catch((e: Error) => e);
  };

  it('refuses a device as cert_file at once, naming the key and the file (it read /dev/zero to 3 GB)', async () => {
    const error = await startWith('tls_server_config:\n  cert_file: /dev/zero\n  key_file: cert-key.pem\n');
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      /^Cannot read METRICS_WEB_CONFIG \/.*\/web-\w+\.yml: tls_server_config\.cert_file \/dev\/zero: not a regular file \(a character device\)$/,
    );
  });

  it("refuses a key that is not the certificate's, naming both files", async () => {
    const other = makeCertificate(dir, 'other');
    const error = await startWith(
      `tls_server_config:\n  cert_file: cert.pem\n  key_file: ${other.keyFile}\n`,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(
      `tls_server_config.key_file ${other.keyFile} cannot be used with cert_file ${join(dir, 'cert.pem')}`,
    );
  });

  it('refuses a certificate file that holds no certificate', async () => {
    writeFileSync(join(dir, 'not-a-cert.pem'), 'hello\n');
    const error = await startWith(
      'tls_server_config:\n  cert_file: not-a-cert.pem\n  key_file: cert-key.pem\n',
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('tls_server_config.cert_file');
    expect((error as Error).message).toContain('holds no certificate');
  });
});

describe.skipIf(skipWithout('openssl'))('a web config changed while the server runs', () => {
  const servers: HttpServer[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });

  /** A server on a web config file of its own that the test rewrites. */
  async function serverOn(text: string, options: { bcrypt?: { bounds: { untrusted: number } } } = {}) {
    const path = join(dir, `live-${Math.random().toString(36).slice(2)}.yml`);
    writeFileSync(path, text);
    const webConfig = loadConfig({
      env: { METRICS_WEB_CONFIG: path },
      cwd: '/nonexistent',
      file: {},
    }).metricsWebConfig;
    const captured = captureLog('info');
    const s = await startHttpServer({
      host: '127.0.0.1',
      port: 0,
      log: captured.log,
      readiness: async () => ({ ready: true, checks: {} }),
      metrics,
      webConfig,
      webConfigRecheckMs: 0,
      ...options,
    });
    servers.push(s);
    const status = async (credentials: string, dispatcher = agent) => {
      const res = await request(`${s.url}/metrics`, {
        dispatcher,
        headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` },
      });
      await res.body.text();
      return { status: res.statusCode, headers: res.headers };
    };
    const lines = () =>
      captured
        .text()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { msg?: string; err?: string });
    return { path, server: s, status, lines };
  }
  const tlsLines = ['tls_server_config:', `  cert_file: cert.pem`, `  key_file: cert-key.pem`];
  const users = (password: string) => ['basic_auth_users:', `  prometheus: ${bcrypt.hashSync(password, 4)}`];

  it('a rotated password works without a restart; the old one is refused', async () => {
    const live = await serverOn([...tlsLines, ...users('first')].join('\n'));
    expect((await live.status('prometheus:first')).status).toBe(200);
    writeFileSync(live.path, [...tlsLines, ...users('second')].join('\n'));
    // The next requests see the change (a stat of the file, in the background).
    await eventually(async () =>
      (await live.status('prometheus:second')).status === 200 ? true : undefined,
    );
    expect((await live.status('prometheus:first')).status).toBe(401);
  });

  it('a web config that no longer loads leaves the one in force, and says so once', async () => {
    const live = await serverOn([...tlsLines, ...users('first')].join('\n'));
    writeFileSync(live.path, 'basic_auth_users:\n  prometheus: not-a-hash\n');
    await eventually(async () => {
      await live.status('prometheus:first');
      return live.lines().some((l) => l.msg?.includes('reload failed')) ? true : undefined;
    });
    for (let i = 0; i < 3; i++) expect((await live.status('prometheus:first')).status).toBe(200);
    expect(live.lines().filter((l) => l.msg?.includes('reload failed'))).toHaveLength(1);
    expect(live.lines().find((l) => l.msg?.includes('reload failed'))?.err).toContain(
      'must be a bcrypt hash',
    );
    // Turning TLS off cannot apply to a running https server: refused the same way.
    writeFileSync(live.path, users('second').join('\n'));
    expect(await live.server.reloadWebConfig()).toBe(false);
    expect((await live.status('prometheus:first')).status).toBe(200);
  });

  it('a renewed certificate is served to new connections', async () => {
    const renewed = makeCertificate(dir, 'renewed');
    const live = await serverOn(
      ['tls_server_config:', '  cert_file: cert.pem', '  key_file: cert-key.pem', ...users('pw')].join('\n'),
    );
    writeFileSync(
      live.path,
      [
        'tls_server_config:',
        `  cert_file: ${renewed.certFile}`,
        `  key_file: ${renewed.keyFile}`,
        ...users('pw'),
      ].join('\n'),
    );
    expect(await live.server.reloadWebConfig()).toBe(true);
    const trustsRenewed = new Agent({ connect: { ca: readFileSync(renewed.certFile) } });
    cleanups.push(() => trustsRenewed.close());
    expect((await live.status('prometheus:pw', trustsRenewed)).status).toBe(200);
  });

  it('past the bound of bcrypt checks in flight a request is refused at once: 429 with Retry-After', async () => {
    const live = await serverOn(
      [...tlsLines, 'basic_auth_users:', `  prometheus: ${bcrypt.hashSync('pw', 12)}`].join('\n'),
      { bcrypt: { bounds: { untrusted: 1 } } },
    );
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => live.status(`prometheus:wrong-${i}`)),
    );
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]?.headers['retry-after']).toBe('1');
    expect(answers.every((a) => a.status === 429 || a.status === 401)).toBe(true);
  });
});
