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
import { Agent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jobs as allJobs } from '../../jobs/index.js';
import { loadConfig } from '../../src/config/index.js';
import { findJob, runJob } from '../../src/kernel/index.js';
import { createMetrics } from '../../src/metrics/index.js';
import { collectStatus, formatStatus } from '../../src/report/status.js';
import { createManualClock, type ManualClock } from '../../src/runtime/clock.js';
import { createLogger } from '../../src/runtime/logger.js';
import { formatTable } from '../../src/terminal/text-table.js';
import { createDataApiClient } from '../../src/upstream/index.js';
import { evmExportPayload, T0 } from '../support/collector.js';
import { runExports, type TestExportsPayload } from '../support/exports.js';
import {
  type HostileApi,
  operation,
  type Routes,
  startDownloadHost,
  startHostileApi,
} from '../support/hostile-api.js';
import { captureLog } from '../support/log.js';
import { type ConnectFence, fenceConnects } from '../support/no-remote.js';
import { type TestStore, testStore } from '../support/store.js';
import { transaction } from '../unit/upstream/fixtures.js';

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
  const dispatcher = new Agent({ keepAliveTimeout: 1_000 });
  cleanups.push(() => dispatcher.destroy());
  const clock = createManualClock(T0);
  const client = createDataApiClient({
    baseUrl: api.url,
    apiKey: API_KEY,
    clock,
    dispatcher,
    sleep: async () => undefined,
  });
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
  it('counts usage group values that are huge or hold escape sequences under one "invalid" group, logged once', async () => {
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
      expect(requests.find((l) => l.includes('group="invalid"'))).toMatch(/ 18$/);
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
  it('refuses a page whose chain id is not digits, naming the field, and stores nothing of it', async () => {
    const good = { ...transaction };
    const bad = { ...transaction, txHash: `0x${'ab'.repeat(32)}`, chainId: '43114\u001b[2J' };
    const r = await rig({
      'GET /v1/transactions': () => ({ body: { transactions: [good, bad], nextPageToken: 'next' } }),
    });
    const transactions = { schedule: '* * * * *', pageSize: 2, maxPages: 1 };
    const run = await r.runConfigured('transactions', { transactions });
    expect(run.status).toBe('failed');
    expect(run.errorMessage).toContain('transactions.1.chainId: expected an EVM chain id');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence
    expect(run.errorMessage).not.toMatch(/[\u0000-\u001f]/);
    expect(await r.count('SELECT COUNT(*) AS n FROM transactions')).toBe(0);
    expect(await r.count('SELECT COUNT(*) AS n FROM sync_state')).toBe(0);
    // Garbage is not retried: one request for the run.
    expect(r.api.requests).toHaveLength(1);
  });
});
