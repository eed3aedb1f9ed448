/**
 * A hostile upstream: a small local server plays the Data API (test/support/hostile-api.ts) and
 * answers what an attacker, or a broken deployment, would. Each case is one test, on both stores:
 * the refusal happens before any connection (every connect of this process is fenced to loopback,
 * test/support/no-remote.ts), nothing partial is stored, the error names the field, host or file, and
 * a second run spends nothing.
 */
import { existsSync, readdirSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jobs as allJobs } from '../../jobs/index.js';
import { demoAddress, demoCb58 } from '../../src/commands/demo-config.js';
import { loadConfig } from '../../src/config/index.js';
import { findJob, runJob } from '../../src/kernel/index.js';
import { createMetrics } from '../../src/metrics/index.js';
import { buildRewardsReport } from '../../src/report/rewards.js';
import { rewardsFormats } from '../../src/report/rewards-formats.js';
import { formatSummaryCsv, summarizeRewards } from '../../src/report/rewards-summary.js';
import { collectStatus, formatStatus } from '../../src/report/status.js';
import { createManualClock, type ManualClock } from '../../src/runtime/clock.js';
import { createLogger } from '../../src/runtime/logger.js';
import { formatTable } from '../../src/terminal/text-table.js';
import { configOf, evmExportPayload, T0 } from '../support/collector.js';
import { runExports, type TestExportsPayload } from '../support/exports.js';
import {
  type HostileApi,
  hostileClient,
  operation,
  type Routes,
  startDownloadHost,
  startHostileApi,
} from '../support/hostile-api.js';
import { captureLog } from '../support/log.js';
import { type ConnectFence, fenceConnects } from '../support/no-remote.js';
import { type TestStore, testStore } from '../support/store.js';
import { rewardsText, transaction } from '../unit/upstream/fixtures.js';

const API_KEY = 'glc-hostile-suite-key-5d1e';
const cleanups: (() => void | Promise<void>)[] = [];
let fence: ConnectFence;
beforeEach(() => {
  fence = fenceConnects();
});
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
  fence.restore();
});

interface Rig {
  api: HostileApi;
  db: TestStore;
  directory: string;
  payload: TestExportsPayload;
  run: (payload?: TestExportsPayload) => ReturnType<typeof runJob>;
  count: (sql: string) => Promise<number>;
  logs: () => string;
  /** Runs another job as the worker does, configured by `jobs` (a config file's `jobs` section). */
  runConfigured: (job: string, jobs: Record<string, unknown>) => ReturnType<typeof runJob>;
  clock: ManualClock;
}

async function rig(routes: Routes, payload: Partial<TestExportsPayload> = {}): Promise<Rig> {
  const api = await startHostileApi(routes);
  cleanups.push(api.close);
  const db = await testStore();
  cleanups.push(db.cleanup);
  const clock = createManualClock(T0);
  const client = hostileClient(api, API_KEY, clock, cleanups);
  const { log, text: logs } = captureLog('debug');
  const directory = join(db.dir, 'exports');
  const full = { ...evmExportPayload(directory), ...payload };
  const deps = { client, store: db.store, log, clock, secrets: [API_KEY] };
  return {
    api,
    db,
    directory,
    payload: full,
    run: (p = full) => runExports(deps, p),
    count: async (sql) => (await db.store.get<{ n: number }>(sql))!.n,
    logs,
    clock,
    runConfigured: (job, jobs) => {
      const config = loadConfig({ env: {}, cwd: '/nonexistent', file: { jobs } });
      const def = findJob(allJobs, job);
      if (!def) throw new Error(`no job ${job}`);
      return runJob(def, deps, { config });
    },
  };
}

/** The API answers every export with one COMPLETED operation whose file is at `downloadUrl`. */
function completedAt(downloadUrl: string, message?: string): Routes {
  const op = () => operation({ operationId: 'op-1', downloadUrl, ...(message !== undefined && { message }) });
  return {
    'POST /v1/operations/transactions:export': () => ({ body: op() }),
    'GET /v1/operations/op-1': () => ({ body: op() }),
  };
}

/** A download host on loopback (the API's own class, so allowed), closed after the test. */
async function downloadHost(answer: (res: ServerResponse) => void) {
  const host = await startDownloadHost(answer);
  cleanups.push(host.close);
  return host;
}

const filesUnder = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: 'utf8' }) : [];

/** The case's shared ending: the run failed with `message`, nothing partial, and a second run spent nothing. */
async function expectRefusedAndStable(r: Rig, message: string) {
  const first = await r.run();
  expect(first.status).toBe('failed');
  expect(first.errorMessage).toContain(message);
  expect(fence.attempts).toEqual([]);
  expect(await r.count('SELECT COUNT(*) AS n FROM export_files')).toBe(0);
  expect(await r.count('SELECT COUNT(*) AS n FROM exported_transactions')).toBe(0);
  expect(filesUnder(r.directory).filter((f) => f.endsWith('.csv') || f.endsWith('.part'))).toEqual([]);
  const op = await r.db.store.get<{ message: string; status: string }>(
    "SELECT message, status FROM export_operations WHERE operation_id = 'op-1'",
  );
  expect(op?.status).toBe('COMPLETED');
  expect(op?.message).toContain(message);
  const job = await r.db.store.get<{ error: string }>(
    "SELECT error FROM job_runs WHERE job = 'exports' ORDER BY id DESC LIMIT 1",
  );
  expect(job?.error).toContain(message);

  const before = r.api.requests.length;
  const second = await r.run();
  expect(second.status).toBe('failed');
  expect(second.errorMessage).toContain(message);
  expect(second.requests).toBe(0);
  expect(second.computeUnits).toBe(0);
  expect(r.api.requests.length).toBe(before);
  expect(await r.count('SELECT COUNT(*) AS n FROM export_operations')).toBe(1);
  expect(fence.attempts).toEqual([]);
}

describe('hostile upstream: export downloads', () => {
  it('refuses a download URL at the cloud metadata address before connecting', async () => {
    const r = await rig(completedAt('http://169.254.169.254/latest/meta-data/iam'));
    await expectRefusedAndStable(r, 'refusing to download from 169.254.169.254: a link-local address');
  });

  it('refuses a private address written as an IPv4-mapped IPv6 literal', async () => {
    const r = await rig(completedAt('http://[::ffff:10.0.0.1]/export.csv'));
    await expectRefusedAndStable(r, 'refusing to download from ::ffff:a00:1 (10.0.0.1): a private address');
  });

  it('refuses the metadata address written in hexadecimal', async () => {
    const r = await rig(completedAt('http://0xa9fea9fe/latest/meta-data/'));
    await expectRefusedAndStable(r, 'refusing to download from 169.254.169.254: a link-local address');
  });

  it('refuses a redirect hop into carrier-grade NAT space', async () => {
    const host = await downloadHost((res) => {
      res.writeHead(302, { location: 'http://100.64.0.1/internal.csv' });
      res.end();
    });
    const r = await rig(completedAt(`${host.url}/export.csv`));
    await expectRefusedAndStable(
      r,
      'refusing to download from 100.64.0.1: a carrier-grade NAT (100.64.0.0/10) address',
    );
    // The first hop (loopback, the API's own class) was fetched once per run, nothing past it.
    expect(host.requests()).toBe(2);
  });

  it('stops a file past maxFileSize and removes the partial file', async () => {
    const chunk = `txHash\n${'0xaa\n'.repeat(10_000)}`;
    const host = await downloadHost((res) => {
      res.writeHead(200);
      for (let i = 0; i < 20; i++) res.write(chunk);
      res.end();
    });
    const r = await rig(completedAt(`${host.url}/export.csv`), { maxFileSize: 100_000 });
    const first = await r.run();
    expect(first.status).toBe('failed');
    expect(first.errorMessage).toContain('larger than jobs.exports.maxFileSize (100000 bytes');
    expect(await r.count('SELECT COUNT(*) AS n FROM export_files')).toBe(0);
    expect(filesUnder(r.directory).filter((f) => f.endsWith('.csv') || f.endsWith('.part'))).toEqual([]);
    // Not retried within the run, and no new export asked for by the next one.
    expect(host.requests()).toBe(1);
    const second = await r.run();
    expect(second.status).toBe('failed');
    expect(second.computeUnits).toBe(0);
    expect(r.api.requests.filter((q) => q.startsWith('POST'))).toHaveLength(1);
  });
});

describe('hostile upstream: text that reaches a sink', () => {
  it('stores, logs and reports an operation message holding the API key scrubbed', async () => {
    const op = operation({
      operationId: 'op-1',
      operationStatus: 'FAILED',
      code: 'ErrInvalidRequest',
      message: `key ${API_KEY} is not allowed \u001b[2J`,
    });
    const r = await rig({ 'POST /v1/operations/transactions:export': () => ({ body: op }) });
    const first = await r.run();
    expect(first.status).toBe('failed');
    const stored = await r.db.store.get<{ message: string }>('SELECT message FROM export_operations');
    expect(stored?.message).toBe('key *** is not allowed \u001b[2J');
    const job = await r.db.store.get<{ error: string }>('SELECT error FROM job_runs');
    expect(job?.error).toContain('key *** is not allowed');
    expect(r.logs()).not.toContain(API_KEY);
    // `status` prints the last error: the escape sequence is shown, not sent to the terminal.
    const config = loadConfig({
      env: {},
      cwd: '/nonexistent',
      file: { jobs: { exports: { schedule: '0 3 * * *', definitions: r.payload.definitions } } },
    });
    const text = formatStatus(await collectStatus(allJobs, config, r.db.store, new Date(T0)));
    expect(text).toContain('exports failed:');
    expect(text).toContain('is not allowed \\x1b[2J');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    const posts = r.api.requests.length;
    expect((await r.run()).computeUnits).toBe(0);
    expect(r.api.requests.length).toBe(posts);
  });

  it('pretty logs and terminal tables show upstream escape sequences instead of running them', async () => {
    let out = '';
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        out += chunk.toString();
        done();
      },
    });
    const log = createLogger({ level: 'info', pretty: true, destination });
    log.warn({ err: 'upstream said \u001b]0;owned\u0007', nested: { v: ['\u009b2J'] } }, 'msg \u001b[2J');
    log.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(out).toContain('msg \\x1b[2J');
    expect(out).toContain('upstream said');
    // pino-pretty's own colours are escape sequences; the upstream's are not among them.
    expect(out).not.toContain('\u001b]0;');
    expect(out).not.toContain('\u001b[2J');
    expect(out).not.toContain('\u0007');
    expect(out).not.toContain('\u009b');
    const table = formatTable(['node', 'type'], [['NodeID-x\u001b[31m', 'VALIDATOR\r']]);
    expect(table.split('\n')[2]).toBe('NodeID-x\\x1b[31m  VALIDATOR\\x0d');
  });
});

describe('hostile upstream: metric labels', () => {
  it('counts usage group values that hold escape sequences under one "invalid" group, logged once; a huge one is set aside', async () => {
    const value = (groupValue: string, totalRequests: number) => ({
      groupValue,
      groupedBy: 'requestPath',
      totalRequests,
      apiCreditsUsed: totalRequests,
      requestsPerSecond: 0,
      successRatePercent: 100,
      medianResponseTimeMsecs: 20,
      invalidRequests: 0,
      apiCreditsWasted: 0,
    });
    const bucket = Math.floor(T0 / 3_600_000) * 3600;
    const r = await rig({
      'GET /v1/apiUsageMetrics': () => ({
        body: {
          aggregateDuration: '1h',
          orgId: 'org',
          metrics: [
            {
              timestamp: bucket,
              values: [
                value('/v1/transactions', 5),
                value('\u001b]0;owned\u0007\u001b[2J/v1/x', 7),
                value(`/v1/${'a'.repeat(200_000)}`, 11),
              ],
            },
          ],
        },
      }),
    });
    const usageMetrics = {
      schedule: '0 * * * *',
      sources: [{ source: 'dataApi', timeInterval: 'hourly', groupBy: 'requestPath', lookback: '2d' }],
    };
    const run = await r.runConfigured('usage-metrics', { usageMetrics });
    expect(run.status).toBe('succeeded');
    // A group value of 200,000 characters is part of no key a database indexes: set aside.
    expect(run.rejected).toEqual({ bounds: 1 });
    const { log, text } = captureLog('info');
    const config = loadConfig({ env: {}, cwd: '/nonexistent', file: { jobs: { usageMetrics } } });
    const metrics = createMetrics({ store: r.db.store, config, log, clock: r.clock, jobs: allJobs });
    for (let scrape = 0; scrape < 2; scrape++) {
      const body = (await metrics.expose()).body;
      expect(body.length).toBeLessThan(100_000);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence
      expect(body).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
      const requests = body.split('\n').filter((l) => l.startsWith('glacier_usage_requests{'));
      expect(requests).toHaveLength(2);
      expect(requests.find((l) => l.includes('group="/v1/transactions"'))).toMatch(/ 5$/);
      expect(requests.find((l) => l.includes('group="invalid"'))).toMatch(/ 7$/);
    }
    const lines = text()
      .split('\n')
      .filter((l) => l.includes('label value from the upstream'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('glacier_usage_requests');
  });
});

describe('hostile upstream: error texts', () => {
  it('quotes at most a short excerpt of an error body, its escape sequences shown', async () => {
    const r = await rig({
      'GET /v1/avax/supply': () => ({
        status: 400,
        body: {
          message: `\u001b]0;owned\u0007\u001b[2J${'x'.repeat(2_000)}`,
          statusCode: 400,
          error: 'Bad Request',
        },
      }),
    });
    const run = await r.runConfigured('supply', { supply: { schedule: '*/5 * * * *' } });
    expect(run.status).toBe('failed');
    const job = await r.db.store.get<{ error: string }>('SELECT error FROM job_runs');
    expect(job?.error).toContain('[GET] /v1/avax/supply: 400 Bad Request: \\x1b]0;owned\\x07\\x1b[2Jxxx');
    expect(job?.error.length).toBeLessThan(600);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence
    expect(job?.error).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(r.logs()).not.toContain('\\u001b[2J');
  });
});

describe('hostile upstream: narrow fields', () => {
  it('sets aside a transaction whose chain id is not digits, naming the field; the page and the cursor go on', async () => {
    const good = { ...transaction };
    const bad = { ...transaction, txHash: `0x${'ab'.repeat(32)}`, chainId: '43114\u001b[2J' };
    const r = await rig({
      'GET /v1/transactions': () => ({ body: { transactions: [good, bad], nextPageToken: 'next' } }),
    });
    const transactions = { schedule: '* * * * *', pageSize: 2, maxPages: 1 };
    const run = await r.runConfigured('transactions', { transactions });
    expect(run.status).toBe('succeeded');
    expect(run.rejected).toEqual({ schema: 1 });
    expect(await r.count('SELECT COUNT(*) AS n FROM transactions')).toBe(1);
    expect(await r.count('SELECT COUNT(*) AS n FROM sync_state')).toBe(1);
    const aside = await r.db.store.get<{ fields: string; problems: string; naturalKey: string | null }>(
      'SELECT fields, problems, natural_key AS "naturalKey" FROM rejected_records',
    );
    expect(aside).toEqual({
      fields: 'chainId',
      problems: 'chainId: expected an EVM chain id: digits, e.g. "43114"',
      // Its chain id is the broken field: no natural key, the raw record's hash instead.
      naturalKey: null,
    });
    // The log line names the field; no escape sequence reaches it.
    const line = r
      .logs()
      .split('\n')
      .find((l) => l.includes('record set aside'))!;
    expect(line).toContain('chainId: expected an EVM chain id');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence
    expect(line).not.toMatch(/[\u0000-\u001f]/);
    expect(r.api.requests).toHaveLength(1);
  });
});

/** A reward the hostile API sends: the fixture's, as its `i`th output, `fields` changed. */
function rewardOf(
  i: number,
  fields: Record<string, unknown> = {},
  asset: Record<string, unknown> = {},
): Record<string, unknown> {
  const base = (JSON.parse(rewardsText('12.5')) as { historicalRewards: Record<string, unknown>[] })
    .historicalRewards[0]!;
  const end = Math.floor(T0 / 1000) - 86_400 * 2 - i * 600;
  return {
    ...base,
    addresses: [REWARD_ADDRESS],
    utxoId: demoCb58(`utxo-${i}`),
    endTimestamp: end,
    startTimestamp: end - 14 * 86_400,
    ...fields,
    reward: { ...(base['reward'] as object), ...asset },
  };
}

const REWARD_ADDRESS = demoAddress('hostile-rewards');
const rewardsJob = {
  schedule: '0 * * * *',
  network: 'mainnet',
  addresses: [REWARD_ADDRESS],
  currency: 'usd',
  pageSize: 60,
};

/** The rewards route: `pages` of rewards, newest first, chained by page tokens `p1`, `p2`… */
function rewardPages(pages: unknown[][]): Routes {
  return {
    'GET /v1/networks/mainnet/rewards': (_req, url) => {
      const token = url.searchParams.get('pageToken');
      const index = token ? Number(token.slice(1)) : 0;
      const next = index + 1 < pages.length ? { nextPageToken: `p${index + 1}` } : {};
      return { body: { historicalRewards: pages[index] ?? [], ...next } };
    },
  };
}

describe('hostile upstream: one record never stalls a job', () => {
  it('120 rewards over two pages, two malformed: 118 stored and reported, two set aside; a second run spends what a clean one does', async () => {
    const pagesOf = (malformed: boolean) => {
      const all = Array.from({ length: 120 }, (_, i) => rewardOf(i));
      if (malformed) {
        all[7] = rewardOf(7, { utxoId: 'not an id!' });
        all[77] = rewardOf(77, {}, { amount: '12.5' });
      }
      return [all.slice(0, 60), all.slice(60)];
    };
    const runTwice = async (malformed: boolean) => {
      const r = await rig(rewardPages(pagesOf(malformed)));
      const first = await r.runConfigured('rewards', { rewards: rewardsJob });
      const second = await r.runConfigured('rewards', { rewards: rewardsJob });
      return { r, first, second };
    };
    const clean = await runTwice(false);
    const hostile = await runTwice(true);
    expect(hostile.first).toMatchObject({ status: 'succeeded', rejected: { schema: 2 } });
    expect(await hostile.r.count('SELECT COUNT(*) AS n FROM rewards')).toBe(118);
    const aside = await hostile.r.db.store.all<{ fields: string; naturalKey: string | null }>(
      'SELECT fields, natural_key AS "naturalKey" FROM rejected_records ORDER BY fields',
    );
    expect(aside).toEqual([
      { fields: 'reward.amount', naturalKey: `mainnet:${demoCb58('utxo-77')}` },
      { fields: 'utxoId', naturalKey: null },
    ]);
    expect(hostile.second.status).toBe('succeeded');
    expect(hostile.second.computeUnits).toBeLessThanOrEqual(clean.second.computeUnits);
    expect(hostile.second.rejected).toEqual({});
    // The accountant's report has the 118.
    const config = configOf({ jobs: { rewards: rewardsJob } });
    const report = await buildRewardsReport(hostile.r.db.store, config.jobs.rewards, {
      from: '2025-01-01',
      to: '2025-12-31',
    });
    expect(report.rows).toHaveLength(118);
    expect(report.invalid).toEqual([]);
  });

  it('sets aside rewards with a denomination of -3, 1.5 or 1e300; every report format and the summary work', async () => {
    const r = await rig(
      rewardPages([
        [
          rewardOf(0),
          rewardOf(1, {}, { denomination: -3 }),
          rewardOf(2, {}, { denomination: 1.5 }),
          rewardOf(3, {}, { denomination: 1e300 }),
          rewardOf(4, { endTimestamp: 1e14 }),
          rewardOf(5),
        ],
      ]),
    );
    const run = await r.runConfigured('rewards', { rewards: rewardsJob });
    expect(run.status).toBe('succeeded');
    expect(await r.count('SELECT COUNT(*) AS n FROM rewards')).toBe(2);
    expect(await r.count('SELECT COUNT(*) AS n FROM rejected_records')).toBe(4);
    const config = configOf({ jobs: { rewards: rewardsJob } });
    const report = await buildRewardsReport(r.db.store, config.jobs.rewards, {
      from: '2025-01-01',
      to: '2025-12-31',
    });
    expect(report.rows).toHaveLength(2);
    for (const [name, format] of Object.entries(rewardsFormats)) {
      expect(format.write(report), name).toContain('0.005001');
    }
    expect(formatSummaryCsv(report, summarizeRewards(report, 'year'))).toContain('2025,');
  });

  it('stores 60 transactions with two contract creations (no `to`, `to: null`) with a NULL recipient', async () => {
    const txs = Array.from({ length: 60 }, (_, i) => ({
      ...transaction,
      txHash: `0x${i.toString(16).padStart(64, '0')}`,
      blockTimestamp: Math.floor(T0 / 1000) - i,
    }));
    const { to: _to, ...created } = txs[10]!;
    txs[10] = created as (typeof txs)[number];
    txs[20] = { ...txs[20]!, to: null as never };
    const r = await rig({ 'GET /v1/transactions': () => ({ body: { transactions: txs } }) });
    const run = await r.runConfigured('transactions', {
      transactions: { schedule: '* * * * *', pageSize: 60, maxPages: 1 },
    });
    expect(run).toMatchObject({ status: 'succeeded', rowsWritten: 60, rejected: {} });
    expect(await r.count('SELECT COUNT(*) AS n FROM transactions WHERE to_address IS NULL')).toBe(2);
    expect(await r.count('SELECT COUNT(*) AS n FROM rejected_records')).toBe(0);
  });

  it('sets aside a transaction from -1e15 and a reward ending at 1e14; status and --json work', async () => {
    const r = await rig({
      'GET /v1/transactions': () => ({
        body: {
          transactions: [
            transaction,
            { ...transaction, txHash: `0x${'12'.repeat(32)}`, blockTimestamp: -1e15 },
          ],
        },
      }),
      ...rewardPages([[rewardOf(0), rewardOf(1, { endTimestamp: 1e14 })]]),
    });
    await r.runConfigured('transactions', {
      transactions: { schedule: '* * * * *', pageSize: 2, maxPages: 1 },
    });
    await r.runConfigured('rewards', { rewards: rewardsJob });
    expect(await r.count('SELECT COUNT(*) AS n FROM rejected_records')).toBe(2);
    const config = configOf({ jobs: { rewards: rewardsJob, transactions: { schedule: '* * * * *' } } });
    const status = await collectStatus(allJobs, config, r.db.store, new Date(T0));
    expect(formatStatus(status)).toContain('records set aside: 2');
    expect(JSON.parse(JSON.stringify(status)).recordsSetAside).toHaveLength(2);
  });

  it('two rewards of one node of 99999999999999999999999 nAVAX each: the summary never clamps, a scrape never fails', async () => {
    const huge = '99999999999999999999999';
    const r = await rig(
      rewardPages([[rewardOf(0, {}, { amount: huge }), rewardOf(1, {}, { amount: huge })]]),
    );
    const node = rewardOf(0)['nodeId'] as string;
    const job = { ...rewardsJob, addresses: [], nodeIds: [node] };
    expect((await r.runConfigured('rewards', { rewards: job })).status).toBe('succeeded');
    const config = configOf({ jobs: { rewards: job } });
    const { log } = captureLog('info');
    const metrics = createMetrics({ store: r.db.store, config, log, clock: r.clock, jobs: allJobs });
    const body = (await metrics.expose()).body;
    expect(body).toContain('glacier_scrape_collector_success{collector="rewards"} 1');
    const line = body.split('\n').find((l) => l.startsWith('glacier_rewards_received_avax{'))!;
    // 2 × 99,999,999,999,999,999,999,999 nAVAX = about 2e14 AVAX (exact on PostgreSQL, a float past
    // 2^63 nAVAX on SQLite: never the clamped 9.2e9 AVAX).
    expect(Number(line.split(' ').at(-1))).toBeCloseTo(2e14, -2);
  });
});

/** A CSV of `rows` rows with `unknown` columns the collector cannot place, named with `nameLength` characters. */
function wideCsv(
  unknown: number,
  nameLength: number,
  rows: number,
  cell: string,
): { size: number; write: (res: ServerResponse) => void } {
  const names = Array.from(
    { length: unknown },
    (_, i) => `${String(i).padStart(4, '0')}${'n'.repeat(nameLength - 4)}`,
  );
  const header = `txHash,chainId,blockTimestamp,${names.join(',')}\n`;
  const line = (i: number) =>
    `0x${i.toString(16).padStart(64, '0')},43114,${1_750_000_000 + i},${Array(unknown).fill(cell).join(',')}\n`;
  const size =
    Buffer.byteLength(header) +
    Array.from({ length: rows }, (_, i) => Buffer.byteLength(line(i))).reduce((a, b) => a + b, 0);
  return {
    size,
    write: (res) => {
      res.writeHead(200, { 'content-type': 'text/csv' });
      res.write(header);
      let i = 0;
      const more = () => {
        while (i < rows) {
          if (!res.write(line(i++))) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    },
  };
}

describe('hostile upstream: export files of hostile shapes', () => {
  it('a header of 1,000 columns named with 1,000 characters is unsupported: not loaded, not downloaded again', async () => {
    const file = wideCsv(1000, 1000, 5_000, 'x');
    expect(file.size).toBeGreaterThan(10_000_000);
    const host = await downloadHost(file.write);
    const r = await rig(completedAt(`${host.url}/export.csv`));
    const first = await r.run();
    expect(first.status).toBe('failed');
    expect(first.errorMessage).toContain('1000 columns the collector cannot place, more than 256');
    expect(await r.count("SELECT COUNT(*) AS n FROM export_files WHERE load_status = 'unsupported'")).toBe(1);
    expect(await r.count('SELECT COUNT(*) AS n FROM exported_transactions')).toBe(0);
    const second = await r.run();
    expect(second).toMatchObject({ status: 'succeeded', computeUnits: 0 });
    expect(host.requests()).toBe(1);
  });

  it('the widest header still read loads in bounded memory, the database a small factor over the file', async () => {
    const file = wideCsv(256, 128, 200, 'c'.repeat(400));
    const host = await downloadHost(file.write);
    const r = await rig(completedAt(`${host.url}/export.csv`));
    let peak = 0;
    const base = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss - base);
    }, 5);
    const run = await r.run().finally(() => clearInterval(sampler));
    expect(run.status).toBe('succeeded');
    expect(await r.count('SELECT COUNT(*) AS n FROM exported_transactions')).toBe(200);
    // Each row's extra is at most 4 KiB, whatever the row holds (a row here: 100 KiB of cells).
    const extras = await r.db.store.all<{ n: number }>(
      'SELECT length(CAST(extra AS TEXT)) AS n FROM exported_transactions',
    );
    for (const { n } of extras) expect(Number(n)).toBeLessThanOrEqual(4096 + 256);
    const sizes = await r.db.store.tableSizes();
    const tableBytes = sizes.get('exported_transactions');
    if (tableBytes !== undefined) expect(tableBytes).toBeLessThan(file.size);
    expect(peak).toBeLessThan(256 * 1024 * 1024);
  });
});
