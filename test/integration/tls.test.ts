import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '../../jobs/index.js';
import { loadConfig } from '../../src/config/index.js';
import { connectRedis } from '../../src/queue/redis.js';
import { openConfiguredStore } from '../../src/service/app.js';
import { startService } from '../../src/service/service.js';
import { type SimulatorHandle, startSimulator } from '../../src/simulator/index.js';
import { type PrivatePostgres, startPrivatePostgres } from '../support/private-postgres.js';
import type { RedisProcess } from '../support/redis-process.js';
import { startTlsRedis } from '../support/redis-server.js';
import { captureLog, jobRuns, waitFor } from '../support/service.js';
import { makeTestCa, type TestCa } from '../support/test-ca.js';
import { tempDir } from '../support/tmp.js';

/**
 * TLS to both of the service's servers, with a CA the test makes: a redis-server that listens only
 * on its TLS port and wants a client certificate (`tls-auth-clients yes`, Redis's default), and a
 * PostgreSQL cluster of the test's own with `ssl=on` that accepts only TLS connections with a client
 * certificate (`hostssl … clientcert=verify-ca`). The service collects over both; a CA that did
 * not sign the server's certificate is refused, the message naming the variable and the file.
 */

let ca: TestCa;
let redis: RedisProcess;
let pg: PrivatePostgres | undefined;
let sim: SimulatorHandle;

beforeAll(async () => {
  ca = makeTestCa();
  redis = await startTlsRedis(ca);
  pg = await startPrivatePostgres({
    tls: { certFile: ca.serverCert, keyFile: ca.serverKey, caFile: ca.caFile },
  });
  if (!pg) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql (.ci/run installs them)');
  sim = await startSimulator({ port: 0, seed: 7 });
}, 60_000);

afterAll(async () => {
  await sim?.close();
  await redis?.kill();
  pg?.destroy();
  ca?.cleanup();
});

/** The environment of a service on both TLS servers; `env` on top. */
function tlsEnv(env: Record<string, string> = {}): Record<string, string> {
  return {
    GLACIER_BASE_URL: sim.url,
    DATABASE_URL: `${pg!.url}?sslmode=verify-full`,
    DATABASE_TLS_CA_FILE: ca.caFile,
    DATABASE_TLS_CERT_FILE: ca.clientCert,
    DATABASE_TLS_KEY_FILE: ca.clientKey,
    REDIS_URL: `rediss://127.0.0.1:${redis.port}`,
    REDIS_TLS_CA_FILE: ca.caFile,
    REDIS_TLS_CERT_FILE: ca.clientCert,
    REDIS_TLS_KEY_FILE: ca.clientKey,
    METRICS_HOST: '127.0.0.1',
    METRICS_PORT: '0',
    LOG_LEVEL: 'warn',
    ...env,
  };
}

const config = (env: Record<string, string> = {}) =>
  loadConfig({
    env: tlsEnv(env),
    file: {
      jobs: { supply: { schedule: '* * * * * *' } },
      service: { queuePrefix: `t${randomBytes(4).toString('hex')}`, shutdownGrace: '5s' },
    },
  });

/** The queue on the TLS PostgreSQL, no Redis; the store there too unless `storeToo` is false. */
function queueOnPostgres(env: Record<string, string> = {}, storeToo = true) {
  const {
    REDIS_URL: _u,
    REDIS_TLS_CA_FILE: _c,
    REDIS_TLS_CERT_FILE: _r,
    REDIS_TLS_KEY_FILE: _k,
    DATABASE_URL,
    ...rest
  } = tlsEnv(env);
  return loadConfig({
    env: { ...rest, ...(storeToo && { DATABASE_URL }), QUEUE_URL: `${pg!.url}?sslmode=verify-full` },
    file: {
      jobs: { supply: { schedule: '* * * * * *' } },
      service: { queuePrefix: `t${randomBytes(4).toString('hex')}`, shutdownGrace: '5s' },
    },
  });
}

describe('TLS to Redis and PostgreSQL with the operator’s CA', () => {
  it('the service collects over both, with client certificates, and PostgreSQL sees a verified TLS session', async () => {
    const svc = await startService(config(), { jobs, log: captureLog().log });
    try {
      const succeeded = async () => (await jobRuns(svc)).filter((r) => r.status === 'succeeded');
      await waitFor(async () => (await succeeded()).length >= 2, 20_000, 'two runs over TLS');
      const [session] = await svc.app.store.all<{ ssl: boolean; client_dn: string | null }>(
        'SELECT ssl, client_dn FROM pg_stat_ssl WHERE pid = pg_backend_pid()',
      );
      expect(session).toEqual({ ssl: true, client_dn: '/CN=glacier-collector' });
      expect((await svc.readiness()).ready).toBe(true);
    } finally {
      await svc.close();
    }
  });

  it('a CA that did not sign PostgreSQL’s certificate is refused at start-up, naming DATABASE_TLS_CA_FILE and its file', async () => {
    const err = await openConfiguredStore(config({ DATABASE_TLS_CA_FILE: ca.otherCaFile })).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toContain('DATABASE_URL = "postgres://postgres@127.0.0.1:');
    expect(err?.message).toContain(
      `the server's certificate is not signed by a CA trusted by DATABASE_TLS_CA_FILE = "${ca.otherCaFile}"`,
    );
  });

  it('the queue on PostgreSQL over TLS (a postgres:// QUEUE_URL with DATABASE_TLS_*): the service collects with PostgreSQL alone', async () => {
    const svc = await startService(queueOnPostgres(), { jobs, log: captureLog().log });
    try {
      const succeeded = async () => (await jobRuns(svc)).filter((r) => r.status === 'succeeded');
      await waitFor(async () => (await succeeded()).length >= 2, 20_000, 'two runs, queued over TLS');
      // The cluster takes TLS connections only (hostssl): the store's and the queue's are all verified.
      const sessions = await svc.app.store.all<{ ssl: boolean; client_dn: string | null }>(
        `SELECT s.ssl, s.client_dn FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
         WHERE a.backend_type = 'client backend' AND a.application_name <> ''`,
      );
      expect(sessions.length).toBeGreaterThan(1);
      for (const s of sessions) expect(s).toEqual({ ssl: true, client_dn: '/CN=glacier-collector' });
      expect((await svc.readiness()).ready).toBe(true);
    } finally {
      await svc.close();
    }
  });

  it('a CA that did not sign the queue’s PostgreSQL certificate fails start-up, naming QUEUE_URL, DATABASE_TLS_CA_FILE and its file', async () => {
    // The store on SQLite: the queue is what connects to PostgreSQL.
    const { dir, cleanup } = tempDir();
    const err = await startService(
      queueOnPostgres({ DATABASE_TLS_CA_FILE: ca.otherCaFile, DATABASE_PATH: join(dir, 'db.sqlite') }, false),
      { jobs, log: captureLog().log },
    )
      .then(
        async (svc) => void (await svc.close()),
        (e: Error) => e,
      )
      .finally(cleanup);
    expect(err?.message).toContain("the queue's PostgreSQL at postgres://postgres@127.0.0.1:");
    expect(err?.message).toContain('(QUEUE_URL)');
    expect(err?.message).toContain(
      `the server's certificate is not signed by a CA trusted by DATABASE_TLS_CA_FILE = "${ca.otherCaFile}"`,
    );
  });

  it('a CA that did not sign Redis’s certificate is logged naming REDIS_TLS_CA_FILE and its file, and Redis stays down', async () => {
    const { log, text } = captureLog('info');
    const conns = connectRedis(config({ REDIS_TLS_CA_FILE: ca.otherCaFile }).redis, log);
    try {
      await waitFor(() => /REDIS_TLS_CA_FILE/.test(text()), 15_000, 'the refusal logged');
      // The log is JSON: its quotes escaped.
      expect(text().replaceAll('\\"', '"')).toContain(
        `the server's certificate is not signed by a CA trusted by REDIS_TLS_CA_FILE = "${ca.otherCaFile}"`,
      );
      expect(conns.isUp()).toBe(false);
    } finally {
      await conns.close();
    }
  });

  it('without the client certificate, Redis refuses the connection', async () => {
    const { log, text } = captureLog('info');
    const env = tlsEnv({ REDIS_TLS_CERT_FILE: '', REDIS_TLS_KEY_FILE: '' });
    const conns = connectRedis(loadConfig({ env }).redis, log);
    try {
      await waitFor(() => /Redis is not reachable/.test(text()), 15_000, 'the refusal logged');
      expect(conns.isUp()).toBe(false);
    } finally {
      await conns.close();
    }
  });
});
