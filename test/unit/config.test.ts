import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { demoAddress, demoCb58, demoFileConfig, demoNodeId } from '../../src/commands/demo-config.js';
import { parseDuration } from '../../src/config/durations.js';
import { addressProblem, nodeIdProblem, txHashProblem } from '../../src/config/identifiers.js';
import { ConfigError, describeConfig, loadConfig } from '../../src/config/index.js';
import { tempDir } from '../support/tmp.js';

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function withFile(content: unknown, name = 'config.json') {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return { dir, path };
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

const rewards = (extra: Record<string, unknown>) => ({
  jobs: { rewards: { schedule: '0 * * * *', addresses: [demoAddress('a')], ...extra } },
});

describe('config file validation', () => {
  it.each([
    {
      name: 'an address without the network prefix',
      file: rewards({ network: 'mainnet', addresses: [demoAddress('a', 'fuji')] }),
      expected: [`jobs.rewards.addresses[0] = "${demoAddress('a', 'fuji')}"`, 'must start with "avax1"'],
    },
    {
      name: 'an address with a typo',
      file: rewards({ addresses: [`${demoAddress('a').slice(0, -1)}q`] }),
      expected: ['jobs.rewards.addresses[0]', 'checksum'],
    },
    {
      name: 'an unknown currency',
      file: rewards({ currency: 'btc' }),
      expected: ['jobs.rewards.currency = "btc"', 'usd'],
    },
    {
      name: 'an unknown network',
      file: rewards({ network: 'devnet' }),
      expected: ['jobs.rewards.network = "devnet"', 'mainnet', 'fuji'],
    },
    {
      name: 'rewards with neither addresses nor node ids',
      file: { jobs: { rewards: { schedule: '0 * * * *' } } },
      expected: ['jobs.rewards.addresses', 'at least one address or node id'],
    },
    {
      name: 'a bad cron expression',
      file: { jobs: { supply: { schedule: '61 * * * *' } } },
      expected: ['jobs.supply.schedule = "61 * * * *"', 'cron'],
    },
    {
      name: 'a page size of 0',
      file: { jobs: { transactions: { schedule: '* * * * *', pageSize: 0 } } },
      expected: ['jobs.transactions.pageSize = 0', '>=1'],
    },
    {
      name: 'a page size over 100',
      file: { jobs: { transactions: { schedule: '* * * * *', pageSize: 500 } } },
      expected: ['jobs.transactions.pageSize = 500', '<=100'],
    },
    {
      name: 'a misspelt key',
      file: { jobs: { supply: { schedule: '* * * * *', schedul: 'x' } } },
      expected: ['jobs.supply.schedul: unknown key'],
    },
    {
      name: 'a bad node id',
      file: rewards({ nodeIds: ['Node-123'] }),
      expected: ['jobs.rewards.nodeIds[0] = "Node-123"', 'NodeID-'],
    },
    {
      name: 'a bad signature transaction hash',
      file: { jobs: { signatures: { schedule: '* * * * *', txHashes: ['0xabc'] } } },
      expected: ['jobs.signatures.txHashes[0] = "0xabc"', 'cb58'],
    },
    {
      name: 'an unknown usage-metrics group',
      file: {
        jobs: {
          usageMetrics: { schedule: '0 * * * *', sources: [{ source: 'subnetRpc', groupBy: 'country' }] },
        },
      },
      expected: ['jobs.usageMetrics.sources[0].groupBy = "country"', 'rpcMethod'],
    },
    {
      name: 'a bad duration',
      file: {
        jobs: {
          usageMetrics: { schedule: '0 * * * *', sources: [{ source: 'dataApi', lookback: 'a week' }] },
        },
      },
      expected: ['jobs.usageMetrics.sources[0].lookback = "a week"', 'duration'],
    },
    {
      name: 'an export with a non-EVM address',
      file: {
        jobs: {
          exports: {
            schedule: '0 2 * * *',
            definitions: [
              { name: 'x', type: 'TRANSACTION_EXPORT_EVM', addresses: ['avax1'], includeChains: ['43114'] },
            ],
          },
        },
      },
      expected: ['jobs.exports.definitions[0].addresses[0] = "avax1"', '0x'],
    },
  ])('rejects $name, naming the key and the value', ({ file, expected }) => {
    const { path } = withFile(file);
    const err = configError(() => loadConfig({ env: {}, configPath: path }));
    for (const fragment of expected) expect(err.message).toContain(fragment);
  });

  it.each(['UTC', 'Europe/Paris', 'Asia/Calcutta', 'Etc/GMT+5', 'utc', 'GMT'])(
    'accepts the time zone %s',
    (tz) => {
      const { path } = withFile({ service: { timezone: tz } });
      expect(loadConfig({ env: {}, configPath: path }).service.timezone).toBe(tz);
    },
  );

  it.each(['Mars/Olympus', 'Europe/paris ', ''])('refuses the time zone %j', (tz) => {
    const { path } = withFile({ service: { timezone: tz } });
    expect(configError(() => loadConfig({ env: {}, configPath: path })).message).toContain(
      'service.timezone',
    );
  });

  it('reports every problem at once', () => {
    const { path } = withFile({
      jobs: { supply: { schedule: 'often' }, transactions: { schedule: '* * * * *', pageSize: 0 } },
    });
    const err = configError(() => loadConfig({ env: {}, configPath: path }));
    expect(err.problems).toHaveLength(2);
  });

  it('accepts the demo configuration and fills the documented defaults', () => {
    const { path } = withFile(demoFileConfig());
    const config = loadConfig({ env: {}, configPath: path });
    expect(config.jobs.transactions?.pageSize).toBe(100);
    expect(config.jobs.rewards?.currency).toBe('usd');
    expect(config.jobs.rewards?.maxPages).toBe(50);
    expect(config.jobs.usageMetrics?.sources[0]?.lookback).toBe(2 * 86_400_000);
    expect(config.baseUrl).toBe('https://data-api.avax.network');
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(config.metricsPort).toBe(9464);
  });

  it('reads YAML', () => {
    const { path } = withFile(`jobs:\n  supply:\n    schedule: "*/5 * * * *"\n`, 'c.yaml');
    expect(loadConfig({ env: {}, configPath: path }).jobs.supply?.schedule).toBe('*/5 * * * *');
  });

  it('names a config file that does not exist', () => {
    const err = configError(() => loadConfig({ env: {}, configPath: '/nonexistent/glacier.yaml' }));
    expect(err.message).toContain('/nonexistent/glacier.yaml');
  });
});

describe('environment', () => {
  it.each([
    { env: { GLACIER_BASE_URL: 'ftp://x' }, expected: 'GLACIER_BASE_URL = "ftp://x"' },
    { env: { METRICS_PORT: '70000' }, expected: 'METRICS_PORT = "70000"' },
    { env: { LOG_LEVEL: 'loud' }, expected: 'LOG_LEVEL = "loud"' },
    { env: { REDIS_URL: 'http://localhost' }, expected: 'REDIS_URL = "http://localhost"' },
  ])('rejects $expected', ({ env, expected }) => {
    const err = configError(() => loadConfig({ env, cwd: '/nonexistent' }));
    expect(err.message).toContain(expected);
  });

  it('reads the key from GLACIER_API_KEY_FILE and never prints it', () => {
    const { path } = withFile('secret-key-123\n', 'key');
    const config = loadConfig({ env: { GLACIER_API_KEY_FILE: path }, cwd: '/nonexistent' });
    expect(config.apiKey).toBe('secret-key-123');
    expect(JSON.stringify(describeConfig(config))).not.toContain('secret-key-123');
  });

  it('names an unreadable key file', () => {
    const err = configError(() =>
      loadConfig({ env: { GLACIER_API_KEY_FILE: '/nonexistent/key' }, cwd: '/' }),
    );
    expect(err.message).toContain('Cannot read GLACIER_API_KEY_FILE /nonexistent/key: ENOENT');
  });

  it('masks the Redis password', () => {
    const config = loadConfig({ env: { REDIS_URL: 'redis://user:hunter2@redis:6379' }, cwd: '/nonexistent' });
    expect(JSON.stringify(describeConfig(config))).not.toContain('hunter2');
  });
});

describe('the database', () => {
  it('is the SQLite file of DATABASE_PATH, by default ./data/glacier.db', () => {
    expect(loadConfig({ env: {}, cwd: '/srv' }).database).toEqual({
      kind: 'sqlite',
      path: '/srv/data/glacier.db',
    });
    expect(loadConfig({ env: { DATABASE_PATH: 'x/c.db' }, cwd: '/srv' }).database).toEqual({
      kind: 'sqlite',
      path: '/srv/x/c.db',
    });
  });

  it.each(['postgres', 'postgresql'])('is PostgreSQL when DATABASE_URL is a %s:// URL', (scheme) => {
    const url = `${scheme}://collector:hunter2@db.example.com:5432/glacier`;
    const config = loadConfig({ env: { DATABASE_URL: url }, cwd: '/nonexistent' });
    expect(config.database).toMatchObject({ kind: 'postgres', url });
    const described = JSON.stringify(describeConfig(config));
    expect(described).not.toContain('hunter2');
    expect(described).toContain('db.example.com:5432/glacier');
  });

  it('refuses DATABASE_URL and DATABASE_PATH both set, naming both, the password masked', () => {
    const err = configError(() =>
      loadConfig({
        env: { DATABASE_URL: 'postgres://collector:hunter2@db:5432/glacier', DATABASE_PATH: 'glacier.db' },
        cwd: '/nonexistent',
      }),
    );
    expect(err.message).toContain('DATABASE_URL');
    expect(err.message).toContain('DATABASE_PATH');
    expect(err.message).not.toContain('hunter2');
  });

  it.each(['mysql://collector:hunter2@db/glacier', 'collector:hunter2@db/glacier'])(
    "refuses a DATABASE_URL that is not PostgreSQL's (%s), the password masked",
    (url) => {
      const err = configError(() => loadConfig({ env: { DATABASE_URL: url }, cwd: '/nonexistent' }));
      expect(err.message).toContain('DATABASE_URL');
      expect(err.message).toContain('postgres://');
      expect(err.message).not.toContain('hunter2');
    },
  );
});

describe('the queue backend', () => {
  it('is Redis at REDIS_URL by default; a redis:// QUEUE_URL is REDIS_URL', () => {
    expect(loadConfig({ env: {}, cwd: '/nonexistent' }).queue).toEqual({
      kind: 'redis',
      setting: 'REDIS_URL',
    });
    const config = loadConfig({ env: { QUEUE_URL: 'rediss://:hunter2@redis:6380' }, cwd: '/nonexistent' });
    expect(config.queue).toEqual({ kind: 'redis', setting: 'QUEUE_URL' });
    expect(config.redisUrl).toBe('rediss://:hunter2@redis:6380');
  });

  it('is PostgreSQL for a postgres:// QUEUE_URL, in the schema <queuePrefix>_queue, the password masked', () => {
    const url = 'postgres://collector:hunter2@db:5432/glacier';
    const config = loadConfig({
      env: { QUEUE_URL: url },
      file: { service: { queuePrefix: 'team-a' } },
      cwd: '/nonexistent',
    });
    expect(config.queue).toEqual({ kind: 'postgres', url, schema: 'team_a_queue', setting: 'QUEUE_URL' });
    expect(JSON.stringify(describeConfig(config))).not.toContain('hunter2');
  });

  it('refuses QUEUE_URL and REDIS_URL both set, naming both, the passwords masked', () => {
    const err = configError(() =>
      loadConfig({
        env: { QUEUE_URL: 'postgres://c:hunter2@db/glacier', REDIS_URL: 'redis://:hunter3@redis:6379' },
        cwd: '/nonexistent',
      }),
    );
    expect(err.message).toContain('Set QUEUE_URL or REDIS_URL, not both');
    expect(err.message).not.toMatch(/hunter[23]/);
  });

  it('refuses a QUEUE_URL of another scheme, saying which are read, the password masked', () => {
    const err = configError(() =>
      loadConfig({ env: { QUEUE_URL: 'amqp://u:hunter2@mq:5672' }, cwd: '/nonexistent' }),
    );
    expect(err.message).toContain('QUEUE_URL');
    expect(err.message).toContain('a redis://, rediss:// or postgres:// URL');
    expect(err.message).not.toContain('hunter2');
  });
});

describe('identifiers', () => {
  it.each([
    [demoAddress('x'), 'mainnet', undefined],
    [`P-${demoAddress('x')}`, 'mainnet', undefined],
    [`X-${demoAddress('x', 'fuji')}`, 'fuji', undefined],
    [demoAddress('x', 'fuji'), 'testnet', undefined],
    [demoAddress('x'), 'fuji', 'must start with "fuji1"'],
    ['avax1h2ccj9f5ay5acl6tyn9mwmw32p8wref8vl8ctg', 'mainnet', undefined],
    ['avax1h2ccj9f5ay5acl6tyn9mwmw32p8wref8vl8ctq', 'mainnet', 'checksum'],
    ['avax1abc', 'mainnet', 'must have 38 characters'],
  ] as const)('%s on %s', (address, network, problem) => {
    const found = addressProblem(address, network);
    if (problem) expect(found).toContain(problem);
    else expect(found).toBeUndefined();
  });

  it('makes valid node ids and tx hashes for the demo', () => {
    expect(nodeIdProblem(demoNodeId('n'))).toBeUndefined();
    expect(txHashProblem(demoCb58('t'))).toBeUndefined();
  });

  // cb58 carries a checksum (the last 4 bytes of the payload's sha256): a typo is caught as in an address.
  const node = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
  const tx = '3P91K6nuDFvDodcRuJTsgdf9SvYe5pMiKk38HppsoeAiEztCP';
  it.each([
    [node, undefined],
    ['NodeID-111111111111111111116DBWJs', undefined],
    [`${node.slice(0, -1)}h`, 'has an invalid cb58 checksum (a typo?)'],
    [node.slice(0, -2), 'is not a node id: its cb58 holds 19 bytes where a node id has 20'],
    [`${node}7`, 'is not a node id: its cb58 holds 21 bytes where'],
    ['NodeID-0Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', 'contains "0", which is not a cb58 character'],
    ['7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', 'must be "NodeID-" followed by a cb58 id'],
    // The OpenAPI's own example of a second node id does not carry a valid checksum.
    ['NodeID-222222222222222222227DBWJs', 'is not a node id'],
  ])('node id %s', (id, problem) => {
    const found = nodeIdProblem(id);
    if (problem) expect(found).toContain(problem);
    else expect(found).toBeUndefined();
  });

  it.each([
    [tx, undefined],
    [`${tx.slice(0, -1)}Q`, 'has an invalid cb58 checksum (a typo?)'],
    [tx.slice(0, -2), 'is not a P-Chain or X-Chain transaction id: its cb58 holds'],
    [`0x${'ab'.repeat(32)}`, 'is an EVM hash (0x…)'],
  ])('transaction id %s', (id, problem) => {
    const found = txHashProblem(id);
    if (problem) expect(found).toContain(problem);
    else expect(found).toBeUndefined();
  });
});

describe('durations', () => {
  it.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['24h', 86_400_000],
    ['7d', 604_800_000],
    ['250ms', 250],
    ['1500', 1500],
    [42, 42],
    ['soon', undefined],
    ['-5s', undefined],
  ] as const)('%s → %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });
});

describe('settings a new user gets wrong', () => {
  const exportsJob = (extra: Record<string, unknown>) => ({
    jobs: {
      exports: {
        schedule: '0 2 * * *',
        definitions: [
          {
            name: 'x',
            type: 'TRANSACTION_EXPORT_EVM',
            addresses: ['0x00000000000000000000000000000000000000aa'],
            includeChains: ['43114'],
          },
        ],
        ...extra,
      },
    },
  });

  it('reads maxFileSize as bytes or text with a unit, and allowedDownloadHosts as bare hosts', () => {
    const load = (extra: Record<string, unknown>) =>
      loadConfig({ env: {}, cwd: '/nonexistent', file: exportsJob(extra) }).jobs.exports!;
    expect(load({}).maxFileSize).toBe(10 * 2 ** 30);
    expect(load({}).allowedDownloadHosts).toEqual([]);
    expect(load({ maxFileSize: '500MiB' }).maxFileSize).toBe(500 * 2 ** 20);
    expect(load({ maxFileSize: 2048 }).maxFileSize).toBe(2048);
    expect(
      load({ allowedDownloadHosts: ['Exports.Example.com', '[fd00::1]', '10.0.0.9'] }).allowedDownloadHosts,
    ).toEqual(['exports.example.com', 'fd00::1', '10.0.0.9']);
    expect(configError(() => load({ maxFileSize: '10 parsecs' })).message).toContain(
      'jobs.exports.maxFileSize = "10 parsecs": must be a size in bytes from 1024 to 1099511627776',
    );
    expect(configError(() => load({ maxFileSize: 10 })).message).toContain('jobs.exports.maxFileSize = 10');
    expect(
      configError(() => load({ allowedDownloadHosts: ['https://exports.example.com/'] })).message,
    ).toContain(
      'jobs.exports.allowedDownloadHosts[0] = "https://exports.example.com/": must be a host name or an IP address, without scheme, port or path',
    );
  });

  it.each([
    {
      file: exportsJob({ pollInterval: '25d' }),
      key: 'jobs.exports.pollInterval = "25d"',
      range: '1s to 1h',
    },
    { file: exportsJob({ pollInterval: '0s' }), key: 'jobs.exports.pollInterval = "0s"', range: '1s to 1h' },
    { file: exportsJob({ maxWait: '30d' }), key: 'jobs.exports.maxWait = "30d"', range: '1s to 1d' },
    { file: { client: { attemptTimeout: '25d' } }, key: 'client.attemptTimeout = "25d"', range: '1s to 10m' },
    { file: { client: { callTimeout: 0 } }, key: 'client.callTimeout = 0', range: '1s to 1h' },
    { file: { service: { shutdownGrace: '2d' } }, key: 'service.shutdownGrace = "2d"', range: '1s to 1h' },
    {
      file: {
        jobs: { usageMetrics: { schedule: '0 * * * *', sources: [{ source: 'dataApi', lookback: '5y' }] } },
      },
      key: 'jobs.usageMetrics.sources[0].lookback = "5y"',
      range: '1h to 366d',
    },
  ])('refuses $key out of range, naming the range', ({ file, key, range }) => {
    const { path } = withFile(file);
    const err = configError(() => loadConfig({ env: {}, configPath: path }));
    expect(err.message).toContain(key);
    expect(err.message).toContain(range);
  });

  it('refuses a call time limit shorter than one attempt', () => {
    const { path } = withFile({ client: { attemptTimeout: '1m', callTimeout: '30s' } });
    expect(configError(() => loadConfig({ env: {}, configPath: path })).message).toContain(
      'client.callTimeout',
    );
  });

  it('takes every default from one source', async () => {
    const { defaultRetryPolicy } = await import('../../src/upstream/retry.js');
    const { clientDefaults } = await import('../../src/upstream/defaults.js');
    const config = loadConfig({ env: {}, cwd: '/nonexistent' });
    expect(config.client).toEqual({
      maxAttempts: defaultRetryPolicy.maxAttempts,
      attemptTimeout: clientDefaults.attemptTimeoutMs,
      callTimeout: clientDefaults.callTimeoutMs,
    });
  });

  it.each([
    {
      file: { jobs: { transactions: { schedule: '* * * * *', networks: ['fuji', 'testnet'] } } },
      key: 'transactions.networks[1]',
    },
    {
      file: { jobs: { transactions: { schedule: '* * * * *', statuses: ['all', 'all'] } } },
      key: 'transactions.statuses[1]',
    },
    {
      file: {
        jobs: {
          usageMetrics: {
            schedule: '0 * * * *',
            sources: [
              { source: 'primaryNetworkRpc', network: 'fuji', lookback: '1d' },
              { source: 'primaryNetworkRpc', network: 'testnet', lookback: '2d' },
            ],
          },
        },
      },
      key: 'usageMetrics.sources[1]',
    },
    {
      file: {
        jobs: {
          usageMetrics: {
            schedule: '0 * * * *',
            sources: [{ source: 'subnetRpc', chainIds: ['432204', '432204'] }],
          },
        },
      },
      key: 'usageMetrics.sources[0].chainIds[1]',
    },
  ])('refuses duplicate streams ($key)', ({ file, key }) => {
    const { path } = withFile(file);
    const err = configError(() => loadConfig({ env: {}, configPath: path }));
    expect(err.message).toContain(`jobs.${key}`);
    expect(err.message).toContain('duplicate');
  });

  it('refuses a non-ASCII API key at start-up, naming the variable and not the value', () => {
    const err = configError(() =>
      loadConfig({ env: { GLACIER_API_KEY: 'clé-secrète' }, cwd: '/nonexistent' }),
    );
    expect(err.message).toContain('GLACIER_API_KEY');
    expect(err.message).not.toContain('secrète');
    const { path } = withFile('clé-secrète\n', 'key');
    const fromFile = configError(() => loadConfig({ env: { GLACIER_API_KEY_FILE: path }, cwd: '/' }));
    expect(fromFile.message).toContain('GLACIER_API_KEY_FILE');
    expect(fromFile.message).not.toContain('secrète');
  });

  it('refuses a base URL with a query string or a fragment', () => {
    for (const url of ['https://api.example/?x=1', 'https://api.example/#top']) {
      const err = configError(() => loadConfig({ env: { GLACIER_BASE_URL: url }, cwd: '/nonexistent' }));
      expect(err.message).toContain('GLACIER_BASE_URL');
      expect(err.message).toContain('query string');
    }
  });

  it('masks credentials in the base URL, also in errors', () => {
    const config = loadConfig({
      env: { GLACIER_BASE_URL: 'https://proxy-user:hunter2@proxy.example/glacier' },
      cwd: '/nonexistent',
    });
    const shown = JSON.stringify(describeConfig(config));
    expect(shown).not.toContain('hunter2');
    expect(shown).not.toContain('proxy-user');
    expect(shown).toContain('https://***:***@proxy.example/glacier');
    const err = configError(() =>
      loadConfig({ env: { GLACIER_BASE_URL: 'https://u:hunter2@proxy.example/?q' }, cwd: '/nonexistent' }),
    );
    expect(err.message).not.toContain('hunter2');
  });
});

describe('export windows', () => {
  const withWindow = (window: unknown) => ({
    jobs: {
      exports: {
        schedule: '0 2 * * *',
        definitions: [
          {
            name: 'w',
            type: 'TRANSACTION_EXPORT_EVM',
            addresses: [`0x${'aa'.padStart(40, '0')}`],
            includeChains: ['43114'],
            window,
          },
        ],
      },
    },
  });
  it.each([
    [{ firstDate: '2025-02-30', lastDate: '2025-03-01' }, 'not a calendar date'],
    [{ firstDate: '2025-03-02', lastDate: '2025-03-01' }, 'firstDate must not be after lastDate'],
  ])('refuses %j at start-up', (window, message) => {
    expect(() => loadConfig({ env: {}, file: withWindow(window) })).toThrow(message);
  });
});

describe('config as input', () => {
  it('refuses a config file over 1 MiB before reading it, naming the file', () => {
    const { dir, path } = withFile('jobs: {}\n', 'huge.yaml');
    // 100 MB, sparse: reading it whole is what must not happen.
    truncateSync(path, 100 * 1024 * 1024);
    const error = configError(() => loadConfig({ env: { GLACIER_CONFIG: path }, cwd: dir }));
    expect(error.message).toBe(
      `config file ${path} is 104857600 bytes: larger than the 1048576 bytes (1 MiB) a config file may have; is it the right file?`,
    );
    truncateSync(path, 1024 * 1024);
    // At the bound it is read (and here fails on its content, not its size).
    expect(configError(() => loadConfig({ env: { GLACIER_CONFIG: path }, cwd: dir })).message).not.toContain(
      'larger than',
    );
  });

  it('refuses a config path that is a directory, naming it', () => {
    const { dir } = withFile('');
    expect(configError(() => loadConfig({ env: { GLACIER_CONFIG: dir }, cwd: '/' })).message).toBe(
      `Cannot read config file ${dir}: not a regular file (a directory)`,
    );
  });

  it.each([
    ['GLACIER_BASE_URL', 'https://data-api.avax.network\n', 'U+000A, a line break) at position 30'],
    ['METRICS_HOST', '0.0.0.0\n', 'U+000A, a line break) at position 8'],
    ['REDIS_URL', 'redis://127.0.0.1:6379\u001b[2J', 'U+001B) at position 23'],
    ['GLACIER_API_KEY', 'key-with-a-tab\there', 'U+0009) at position 15'],
  ])(
    'refuses %s holding a control character, naming the variable and not the value',
    (name, value, where) => {
      const error = configError(() => loadConfig({ env: { [name]: value }, cwd: '/nonexistent' }));
      expect(error.message).toContain(`${name}: holds a control character (${where}`);
      expect(error.message).not.toContain(value.slice(0, 12));
    },
  );
});

describe('retention', () => {
  const fileError = (file: unknown) => {
    const { path } = withFile(file);
    return configError(() => loadConfig({ env: {}, configPath: path }));
  };

  it('reads a duration or "forever" per table, with jobRuns 90 days, validation observations 35, the rest forever by default', () => {
    const { path } = withFile({ retention: { transactions: '30d', usageMetrics: 'forever' } });
    const config = loadConfig({ env: {}, configPath: path });
    expect(config.retention).toEqual({
      transactions: 30 * 86_400_000,
      exportedTransactions: 'forever',
      jobRuns: 90 * 86_400_000,
      supplySnapshots: 'forever',
      usageMetrics: 'forever',
      rejectedRecords: 'forever',
      validationObservations: 35 * 86_400_000,
    });
    // The maintenance job is there without a section: daily.
    expect(config.jobs.maintenance).toEqual({
      schedule: '17 3 * * *',
      enabled: true,
      runOnStart: false,
      batchSize: 1000,
    });
  });

  it('refuses what is not a retention, and a table it does not know, naming the key and what is valid', () => {
    const bad = fileError({ retention: { transactions: 'a month', rewards: '30d' } });
    expect(bad.message).toContain(
      'retention.transactions = "a month": not a retention; use "forever" or a duration',
    );
    expect(bad.message).toContain('retention.rewards');
  });

  it('refuses a retention shorter than what a job reads again on every run, with the reason', () => {
    const usage = fileError({
      jobs: {
        usageMetrics: { schedule: '0 * * * *', sources: [{ source: 'dataApi', timeInterval: 'daily' }] },
      },
      retention: { usageMetrics: '12h' },
    });
    expect(usage.message).toContain('retention.usageMetrics = "12h": too short: must be at least 2d');
    expect(usage.message).toContain('reads again, on every run, its newest bucket (daily: 1d)');

    const exports = fileError({
      jobs: {
        exports: {
          schedule: '0 3 * * *',
          definitions: [
            {
              name: 'week',
              type: 'TRANSACTION_EXPORT_EVM',
              addresses: ['0x00000000000000000000000000000000000000aa'],
              includeChains: ['43114'],
              window: { lastDays: 7 },
            },
          ],
        },
      },
      retention: { exportedTransactions: '7d' },
    });
    expect(exports.message).toContain(
      'retention.exportedTransactions = "7d": too short: must be at least 8d',
    );
    expect(fileError({ retention: { jobRuns: '12h' } }).message).toContain(
      'retention.jobRuns = "12h": too short: must be at least 1d (or "forever"), because today\'s compute units',
    );
  });
});
