import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '../../jobs/index.js';
import { summarizeConfig } from '../../src/commands/config.js';
import { postgresSsl, withoutSslParameters } from '../../src/config/database.js';
import { ConfigError, describeConfig, loadConfig } from '../../src/config/index.js';
import { parseSentinels } from '../../src/config/redis.js';
import { reconnectOnError, redisOptions } from '../../src/queue/redis-options.js';
import { makeTestCa, type TestCa } from '../support/test-ca.js';

/**
 * The Redis and PostgreSQL connection settings: Sentinel, passwords and TLS files from the
 * environment, turned into ioredis's and node-postgres's options by one pure function each.
 */

let ca: TestCa;
beforeAll(() => {
  ca = makeTestCa();
});
afterAll(() => ca?.cleanup());

function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

const load = (env: Record<string, string>) => loadConfig({ env, cwd: '/nonexistent' });

describe('redisOptions', () => {
  it('reads REDIS_URL: host, port, database, user, password (decoded)', () => {
    const o = redisOptions('redis://app:p%40ss@redis.example.com:6380/3', 'producer');
    expect(o).toMatchObject({
      host: 'redis.example.com',
      port: 6380,
      db: 3,
      username: 'app',
      password: 'p@ss',
    });
    expect(o.tls).toBeUndefined();
    expect(redisOptions('redis://[::1]:6379', 'producer')).toMatchObject({ host: '::1', port: 6379 });
  });

  it('gives workers maxRetriesPerRequest null and producers no offline queue', () => {
    expect(redisOptions('redis://127.0.0.1:6379', 'worker')).toMatchObject({ maxRetriesPerRequest: null });
    expect(redisOptions('redis://127.0.0.1:6379', 'worker').enableOfflineQueue).toBeUndefined();
    expect(redisOptions('redis://127.0.0.1:6379', 'producer')).toMatchObject({
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
    });
  });

  it.each([
    ["READONLY You can't write against a read only replica.", 2],
    ['LOADING Redis is loading the dataset in memory', 2],
    ['ERR unknown command', false],
    ['NOSCRIPT No matching script', false],
    ['WRONGTYPE Operation against a key holding the wrong kind of value', false],
  ] as const)('reconnects and resends on %s: %s', (message, expected) => {
    expect(reconnectOnError(new Error(message))).toBe(expected);
    for (const use of ['worker', 'producer'] as const) {
      expect(redisOptions('redis://127.0.0.1', use).reconnectOnError).toBe(reconnectOnError);
    }
  });

  it('turns TLS on for rediss://, with the CA and client certificate of REDIS_TLS_*', () => {
    expect(redisOptions('rediss://127.0.0.1:6380', 'worker').tls).toEqual({});
    const config = load({
      REDIS_URL: 'rediss://127.0.0.1:6380',
      REDIS_TLS_CA_FILE: ca.caFile,
      REDIS_TLS_CERT_FILE: ca.clientCert,
      REDIS_TLS_KEY_FILE: ca.clientKey,
    });
    const tls = redisOptions(config.redis, 'worker').tls as { ca: Buffer; cert: Buffer; key: Buffer };
    expect(tls.ca.toString()).toContain('BEGIN CERTIFICATE');
    expect(tls.cert.toString()).toContain('BEGIN CERTIFICATE');
    expect(tls.key.toString()).toContain('PRIVATE KEY');
  });

  it('asks the sentinels for the master, with both passwords', () => {
    const config = load({
      REDIS_SENTINELS: 'sentinel-1:26379, sentinel-2:26380,[::1]:26381,sentinel-4',
      REDIS_SENTINEL_MASTER: 'mymaster',
      REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
      REDIS_PASSWORD: 'redis-secret',
    });
    const o = redisOptions(config.redis, 'worker', 'glacier-collector:worker');
    expect(o).toMatchObject({
      sentinels: [
        { host: 'sentinel-1', port: 26379 },
        { host: 'sentinel-2', port: 26380 },
        { host: '::1', port: 26381 },
        { host: 'sentinel-4', port: 26379 },
      ],
      name: 'mymaster',
      role: 'master',
      sentinelPassword: 'sentinel-secret',
      password: 'redis-secret',
      maxRetriesPerRequest: null,
      connectionName: 'glacier-collector:worker',
    });
    expect(o.host).toBeUndefined();
    expect(o.tls).toBeUndefined();
  });

  it('uses TLS to the sentinels and the master when REDIS_TLS_CA_FILE is set with Sentinel', () => {
    const config = load({
      REDIS_SENTINELS: '127.0.0.1:26379',
      REDIS_SENTINEL_MASTER: 'mymaster',
      REDIS_TLS_CA_FILE: ca.caFile,
    });
    const o = redisOptions(config.redis, 'producer');
    expect(o.enableTLSForSentinelMode).toBe(true);
    expect(o.tls).toEqual(o.sentinelTLS);
    expect((o.tls as { ca: Buffer }).ca.toString()).toContain('BEGIN CERTIFICATE');
  });
});

describe('the Redis configuration', () => {
  it.each([
    [
      'a:1,b',
      [
        { host: 'a', port: 1 },
        { host: 'b', port: 26379 },
      ],
    ],
    ['[::1]:26379', [{ host: '::1', port: 26379 }]],
  ])('parses REDIS_SENTINELS %s', (text, nodes) => {
    expect(parseSentinels(text)).toEqual(nodes);
  });

  it.each([
    ['a:1,,b:2', '"" is not host:port'],
    ['a:99999', '"a:99999" is not host:port'],
    ['redis://a:1', '"redis://a:1" is not host:port'],
  ])('refuses REDIS_SENTINELS %s, naming the variable and the item', (text, problem) => {
    const message = configError(() => load({ REDIS_SENTINELS: text, REDIS_SENTINEL_MASTER: 'm' }));
    expect(message).toContain('REDIS_SENTINELS');
    expect(message).toContain(problem);
  });

  it.each([
    [
      { REDIS_SENTINELS: 'a:1', REDIS_SENTINEL_MASTER: 'm', REDIS_URL: 'redis://:pw@r:6379' },
      'Set REDIS_URL (one Redis) or REDIS_SENTINELS (Redis Sentinel), not both: REDIS_URL = "redis://:***@r:6379"',
    ],
    [{ REDIS_SENTINELS: 'a:1' }, 'REDIS_SENTINELS is set but REDIS_SENTINEL_MASTER is not'],
    [{ REDIS_SENTINEL_MASTER: 'm' }, 'REDIS_SENTINEL_MASTER is set but REDIS_SENTINELS is not'],
    [
      { REDIS_PASSWORD: 'x', REDIS_PASSWORD_FILE: '/run/secrets/redis' },
      'Set REDIS_PASSWORD or REDIS_PASSWORD_FILE, not both',
    ],
    [
      { REDIS_URL: 'redis://:a@r:6379', REDIS_PASSWORD: 'b' },
      'REDIS_URL = "redis://:***@r:6379" holds a password and REDIS_PASSWORD gives one too',
    ],
    [{ REDIS_URL: 'redis://r:6379/cache' }, 'its path is a database number'],
    [{ REDIS_TLS_CERT_FILE: '/x.crt' }, 'REDIS_TLS_CERT_FILE is set but REDIS_TLS_KEY_FILE is not'],
    [
      { DATABASE_TLS_CA_FILE: '/ca.crt' },
      'DATABASE_TLS_CA_FILE is for PostgreSQL, but neither DATABASE_URL nor a postgres:// QUEUE_URL is set',
    ],
    [{ REDIS_PASSWORD_FILE: '/nonexistent/pw' }, 'Cannot read REDIS_PASSWORD_FILE /nonexistent/pw: ENOENT'],
  ])('refuses %o: %s', (env, message) => {
    expect(configError(() => load(env))).toContain(message);
  });

  it('refuses TLS files with a redis:// URL, and a file that holds no certificate, naming the variable', () => {
    expect(configError(() => load({ REDIS_TLS_CA_FILE: ca.caFile }))).toContain(
      'REDIS_TLS_* files are set but REDIS_URL = "redis://127.0.0.1:6379" asks for no TLS: use a rediss:// URL',
    );
    expect(
      configError(() => load({ REDIS_URL: 'rediss://r:6380', REDIS_TLS_CA_FILE: ca.clientKey })),
    ).toContain(`REDIS_TLS_CA_FILE = "${ca.clientKey}" holds no certificate`);
    expect(
      configError(() =>
        load({
          REDIS_URL: 'rediss://r:6380',
          REDIS_TLS_CERT_FILE: ca.clientCert,
          REDIS_TLS_KEY_FILE: ca.serverKey,
        }),
      ),
    ).toContain(`REDIS_TLS_KEY_FILE = "${ca.serverKey}" cannot be used with REDIS_TLS_CERT_FILE`);
  });

  it('reads the passwords from their files, trimmed, and never prints them or the key', () => {
    const dir = ca.dir;
    writeFileSync(join(dir, 'redis-pw'), 'redis-secret\n');
    writeFileSync(join(dir, 'sentinel-pw'), 'sentinel-secret\n');
    const config = load({
      REDIS_SENTINELS: 's1:26379,s2:26379,s3:26379',
      REDIS_SENTINEL_MASTER: 'mymaster',
      REDIS_PASSWORD_FILE: join(dir, 'redis-pw'),
      REDIS_SENTINEL_PASSWORD_FILE: join(dir, 'sentinel-pw'),
      REDIS_TLS_CA_FILE: ca.caFile,
      REDIS_TLS_CERT_FILE: ca.clientCert,
      REDIS_TLS_KEY_FILE: ca.clientKey,
    });
    expect(config.redis).toMatchObject({ password: 'redis-secret', sentinelPassword: 'sentinel-secret' });
    const printed = JSON.stringify(describeConfig(config));
    expect(printed).not.toMatch(/redis-secret|sentinel-secret/);
    expect(printed).not.toContain('PRIVATE KEY');
    expect(printed).toContain('"sentinelPassword":"***"');
    expect(printed).toContain(`"keyFile":"${ca.clientKey}"`);
    const summary = summarizeConfig(config, jobs);
    expect(summary).not.toMatch(/redis-secret|sentinel-secret/);
    expect(summary).toContain('redis:   master "mymaster" of sentinels s1:26379,s2:26379,s3:26379');
    expect(summary).toContain(
      'connection: Redis Sentinel (REDIS_SENTINELS, 3 sentinels, master "mymaster"), sentinel password set, Redis password set; TLS on: CA',
    );
    expect(summary).toContain(`client certificate ${ca.clientCert} (CN=glacier-collector)`);
  });

  it('masks the passwords in the message of an invalid environment', () => {
    const message = configError(() =>
      load({ REDIS_PASSWORD: 'hunter2', REDIS_SENTINEL_PASSWORD: 'hunter3', METRICS_PORT: 'x' }),
    );
    expect(message).toContain('METRICS_PORT');
    expect(message).not.toContain('hunter');
  });

  it('says in config check whether Redis is reached over TLS', () => {
    expect(summarizeConfig(load({}), jobs)).toContain(
      'connection: one Redis (REDIS_URL), password not set; TLS off (a rediss:// URL turns it on)',
    );
    const tls = load({ REDIS_URL: 'rediss://:pw@r:6380', REDIS_TLS_CA_FILE: ca.caFile });
    expect(summarizeConfig(tls, jobs)).toContain(
      `connection: one Redis (REDIS_URL), password in REDIS_URL; TLS on: CA ${ca.caFile} (CN=test-ca), no client certificate`,
    );
  });

  it.each(['{glacier}', 'glacier', 'a-b_c'])('accepts service.queuePrefix %s', (queuePrefix) => {
    expect(loadConfig({ env: {}, file: { service: { queuePrefix } } }).service.queuePrefix).toBe(queuePrefix);
  });

  it.each(['{glacier', 'gla{cier}', '{}', 'a:b'])('refuses service.queuePrefix %s', (queuePrefix) => {
    expect(configError(() => loadConfig({ env: {}, file: { service: { queuePrefix } } }))).toContain(
      'service.queuePrefix',
    );
  });
});

describe('PostgreSQL TLS', () => {
  const files = () => {
    const config = load({
      DATABASE_URL: 'postgres://u:pw@db.example.com/glacier',
      DATABASE_TLS_CA_FILE: ca.caFile,
      DATABASE_TLS_CERT_FILE: ca.clientCert,
      DATABASE_TLS_KEY_FILE: ca.clientKey,
    });
    if (config.database.kind !== 'postgres' || !config.database.tls) throw new Error('no TLS');
    return config.database.tls;
  };

  it.each([
    ['postgres://u@h/d', true],
    ['postgres://u@h/d?sslmode=verify-full', true],
    ['postgres://u@h/d?sslmode=require', true],
    ['postgres://u@h/d?sslmode=verify-ca', false],
  ])('builds node-postgres ssl for %s (host name checked: %s)', (url, checksHost) => {
    const ssl = postgresSsl(url, files());
    expect(ssl.rejectUnauthorized).toBe(true);
    expect(ssl.ca?.toString()).toContain('BEGIN CERTIFICATE');
    expect(ssl.key?.toString()).toContain('PRIVATE KEY');
    expect(ssl.checkServerIdentity === undefined).toBe(checksHost);
  });

  it.each([
    ['postgres://u@h/d?sslmode=disable', 'turns verification off (sslmode=disable)'],
    ['postgres://u@h/d?sslmode=no-verify', 'turns verification off (sslmode=no-verify)'],
    ['postgres://u@h/d?sslrootcert=/ca.crt', 'names TLS files (sslrootcert)'],
  ])('refuses %s with the TLS files', (url, message) => {
    expect(configError(() => load({ DATABASE_URL: url, DATABASE_TLS_CA_FILE: ca.caFile }))).toContain(
      message,
    );
  });

  it('gives node-postgres a URL without sslmode (it would override ssl) and prints no key', () => {
    expect(withoutSslParameters('postgres://u:p@h/d?sslmode=verify-full&application_name=x')).toBe(
      'postgres://u:p@h/d?application_name=x',
    );
    const config = load({
      DATABASE_URL: 'postgres://u:hunter2@db.example.com/glacier?sslmode=verify-full',
      DATABASE_TLS_CA_FILE: ca.caFile,
    });
    const printed = JSON.stringify(describeConfig(config));
    expect(printed).not.toContain('hunter2');
    expect(printed).not.toContain('BEGIN');
    expect(summarizeConfig(config, jobs)).toContain(`TLS on (verify-full): CA ${ca.caFile} (CN=test-ca)`);
  });
});
