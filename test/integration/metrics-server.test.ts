import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { jobs } from '../../jobs/index.js';
import { loadConfig } from '../../src/config/index.js';
import { createMetrics, type Readiness } from '../../src/metrics/index.js';
import { type HttpServer, startHttpServer } from '../../src/metrics/server.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { createLogger } from '../../src/runtime/logger.js';
import { parseExposition, value } from '../support/exposition.js';
import { testStore } from '../support/store.js';

const log = createLogger({ level: 'silent', pretty: false });
const config = loadConfig({
  env: {},
  cwd: '/nonexistent',
  file: { jobs: { supply: { schedule: '* * * * *' } } },
});
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function newMetrics() {
  const db = await testStore();
  closers.push(db.cleanup);
  return createMetrics({ store: db.store, config, jobs, log, clock: createManualClock(0) });
}

async function serve(options: { readiness?: () => Promise<Readiness>; readinessTimeoutMs?: number } = {}) {
  const metrics = await newMetrics();
  const server = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    log,
    metrics,
    readiness: options.readiness ?? (async () => ({ ready: true, checks: { database: { ok: true } } })),
    readinessTimeoutMs: options.readinessTimeoutMs,
  });
  closers.push(server.close);
  return { metrics, server };
}

async function get(
  server: HttpServer,
  path: string,
  init: { method?: 'GET' | 'HEAD' | 'POST'; accept?: string } = {},
) {
  const res = await request(`${server.url}${path}`, {
    method: init.method ?? 'GET',
    headers: init.accept ? { accept: init.accept } : {},
  });
  return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
}

describe('metrics server', () => {
  it('serves /healthz, /readyz with every check, 404 elsewhere and 405 for other methods', async () => {
    const { server } = await serve();
    expect(await get(server, '/healthz')).toMatchObject({ status: 200, body: '{"status":"ok"}\n' });
    const ready = await get(server, '/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toEqual({ status: 'ready', checks: { database: { ok: true } } });
    expect((await get(server, '/nope')).status).toBe(404);
    const post = await get(server, '/metrics', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });

  it('answers 503 with the failing check and why, and when the checks hang', async () => {
    const failing = await serve({
      readiness: async () => ({
        ready: false,
        checks: {
          database: { ok: true },
          redis: { ok: false, error: 'connect ECONNREFUSED 127.0.0.1:6379' },
        },
      }),
    });
    const res = await get(failing.server, '/readyz');
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body)).toEqual({
      status: 'not ready',
      checks: { database: { ok: true }, redis: { ok: false, error: 'connect ECONNREFUSED 127.0.0.1:6379' } },
    });
    const hanging = await serve({ readiness: () => new Promise(() => undefined), readinessTimeoutMs: 50 });
    const late = await get(hanging.server, '/readyz');
    expect(late.status).toBe(503);
    expect(JSON.parse(late.body).checks.readiness).toEqual({
      ok: false,
      error: 'checks did not answer within 50 ms',
    });
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const { server } = await serve();
    const head = await get(server, '/healthz', { method: 'HEAD' });
    expect(head).toMatchObject({ status: 200, body: '' });
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(head.headers['content-length']).toBe('16');
    const metricsHead = await get(server, '/metrics', { method: 'HEAD' });
    expect(metricsHead.status).toBe(200);
    expect(metricsHead.body).toBe('');
    expect(metricsHead.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  });

  it('serves OpenMetrics when the Accept header asks, without renaming counters for later scrapes', async () => {
    const { server } = await serve();
    const prometheusAccept =
      'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
    const om = await get(server, '/metrics', { accept: prometheusAccept });
    expect(om.headers['content-type']).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    expect(om.body.endsWith('# EOF\n')).toBe(true);
    const omFamilies = parseExposition(om.body);
    const runs = omFamilies.find((f) => f.name === 'glacier_job_runs');
    expect(runs?.type).toBe('counter');
    expect(runs?.samples.map((s) => s.name)).toContain('glacier_job_runs_total');

    const text = await get(server, '/metrics', { accept: 'text/plain' });
    expect(text.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const families = parseExposition(text.body);
    expect(families.find((f) => f.name === 'glacier_job_runs_total')?.type).toBe('counter');
    expect(value(families, 'glacier_job_runs_total', { job_name: 'supply', outcome: 'failed' })).toBe(0);
  });

  it('closes with a keep-alive connection open, and leaves nothing listening', async () => {
    const { server } = await serve();
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    closers.push(() => agent.close());
    const res = await request(`${server.url}/healthz`, { dispatcher: agent });
    await res.body.text();
    await server.close();
    await expect(request(`${server.url}/healthz`, { dispatcher: new Agent() })).rejects.toThrow();
  });

  it('refuses a port in use with a clear error', async () => {
    const { server } = await serve();
    await expect(
      startHttpServer({
        host: '127.0.0.1',
        port: server.port,
        log,
        readiness: async () => ({ ready: true, checks: {} }),
      }),
    ).rejects.toThrow(`metrics server cannot listen on 127.0.0.1:${server.port}: EADDRINUSE`);
  });

  it('keeps everything on its own registry: two in one process', async () => {
    const a = await newMetrics();
    const b = await newMetrics();
    a.observeSkippedSlot('supply');
    const countOf = async (m: typeof a) =>
      value(parseExposition((await m.expose()).body), 'glacier_job_skipped_slots_total', {
        job_name: 'supply',
      });
    expect(await countOf(a)).toBe(1);
    expect(await countOf(b)).toBe(0);
  });
});
