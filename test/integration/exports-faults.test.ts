import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExportsPayload } from '../../jobs/exports.js';
import { exportFilePath } from '../../src/exports/files.js';
import { exportRequest, requestHash, windowDates } from '../../src/exports/requests.js';
import type { Continuation, ProgressSink } from '../../src/kernel/index.js';
import type { SimulatorOptions } from '../../src/simulator/index.js';
import { claimExportWindow, type ExportOperationRow, getExportOperation } from '../../src/store/index.js';
import { type Collector, evmExportPayload, startCollector } from '../support/collector.js';
import {
  count,
  createRequests,
  drainPolls,
  queuePayload,
  runExportsPass,
  runPoll,
} from '../support/exports.js';
import { tempDir } from '../support/tmp.js';

let collector: Collector | undefined;
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  await collector?.close();
  collector = undefined;
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function setup(sim: SimulatorOptions = {}) {
  collector = await startCollector({ sim });
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  return { c: collector, dir: dir.dir };
}

const simfail = `0x${'simfail'.padEnd(40, '0')}`;

function withDefinition(payload: ExportsPayload, patch: Record<string, unknown>): ExportsPayload {
  const [def] = payload.definitions;
  return { ...payload, definitions: [{ ...def, ...patch } as ExportsPayload['definitions'][number]] };
}

async function operations(c: Collector): Promise<ExportOperationRow[]> {
  const ids = await c.store.all<{ operation_id: string }>(
    'SELECT operation_id FROM export_operations ORDER BY recorded_at, attempt',
  );
  return Promise.all(
    ids.map(async (r) => (await getExportOperation(c.store, r.operation_id)) as ExportOperationRow),
  );
}

/** A progress sink that aborts the run once a task whose name starts with `prefix` reports. */
function abortOn(prefix: string, abort: AbortController): ProgressSink {
  return {
    update: (task, done) => {
      if (task.startsWith(prefix) && done > 0) abort.abort(new Error(`simulated crash during ${prefix}`));
    },
    end: () => undefined,
  };
}

describe('exports: failed operations', () => {
  it('ErrInvalidRequest fails the run and is never asked for again until the definition changes', async () => {
    const { c, dir } = await setup({ exports: { runningMs: 0 } });
    const payload = withDefinition(queuePayload(evmExportPayload(dir)), {
      window: { firstDate: '2025-02-30', lastDate: '2025-02-30' },
    });
    const pass = await runExportsPass(c, payload);
    const [poll] = await drainPolls(c, payload, pass.continuations);
    expect(poll?.status).toBe('failed');
    expect(poll?.error?.message).toMatch(
      /FAILED with ErrInvalidRequest: Invalid (first|last)Date.*not asked for again until the definition changes/,
    );
    expect(poll?.continuations).toEqual([]);
    const run = (await c.store.get<{ status: string; error: string }>(
      "SELECT status, error FROM job_runs WHERE job = 'export-poll'",
    ))!;
    expect(run.status).toBe('failed');
    expect((await operations(c))[0]).toMatchObject({ status: 'FAILED', code: 'ErrInvalidRequest' });

    for (let i = 0; i < 2; i++) expect((await runExportsPass(c, payload)).continuations).toEqual([]);
    expect(createRequests(c)).toBe(1);
    expect(c.logs()).toContain('change the definition to try again');

    // A changed definition is a new request: asked for once.
    const changed = withDefinition(payload, { addresses: ['0x00000000000000000000000000000000000000bb'] });
    await runExportsPass(c, changed);
    expect(createRequests(c)).toBe(2);
  });

  it('ErrInternal is retried a bounded number of times with backoff; each run that sees it fails', async () => {
    const { c, dir } = await setup({ exports: { runningMs: 0 } });
    const payload = {
      ...withDefinition(queuePayload(evmExportPayload(dir)), { addresses: [simfail] }),
      maxRetries: 2,
    };
    const pass = await runExportsPass(c, payload);
    const polls = await drainPolls(c, payload, pass.continuations);
    const failed = polls.filter((r) => r.status === 'failed');
    expect(failed).toHaveLength(3);
    expect(failed[0]?.error?.message).toMatch(/FAILED with ErrInternal.*retry 1 of 2 in \d+ ms/);
    expect(failed[0]?.continuations[0]?.delayMs).toBeGreaterThanOrEqual(5);
    expect(failed[0]?.continuations[0]?.delayMs).toBeLessThanOrEqual(10);
    expect(failed[1]?.continuations[0]?.delayMs).toBeGreaterThanOrEqual(10);
    expect(failed[2]?.error?.message).toMatch(/no retry left \(maxRetries 2\)/);
    expect(failed[2]?.continuations).toEqual([]);
    expect(createRequests(c)).toBe(3);
    expect((await operations(c)).map((o) => o.attempt)).toEqual([1, 2, 3]);

    // Nothing more, run after run.
    c.clock.advance(86_400_000);
    await runExportsPass(c, { ...payload, definitions: [] });
    expect(createRequests(c)).toBe(3);
  });

  it('run exports fails when an export fails, after its retries', async () => {
    const { c, dir } = await setup({ exports: { runningMs: 0 } });
    const payload = { ...withDefinition(evmExportPayload(dir), { addresses: [simfail] }), maxRetries: 1 };
    const run = await runExportsPass(c, payload);
    expect(run.status).toBe('failed');
    expect(run.error?.message).toMatch(/ErrInternal.*no retry left/);
    expect(createRequests(c)).toBe(2);
    const row = (await c.store.get<{ status: string }>("SELECT status FROM job_runs WHERE job = 'exports'"))!;
    expect(row.status).toBe('failed');
  });

  it('the scheduled pass makes a retry whose continuation was lost, once its backoff has passed', async () => {
    const { c, dir } = await setup({ exports: { runningMs: 0 } });
    const payload = {
      ...withDefinition(queuePayload(evmExportPayload(dir)), { addresses: [simfail] }),
      retryDelay: 60_000,
    };
    const pass = await runExportsPass(c, payload);
    const poll = await runPoll(c, payload, pass.continuations[0] as Continuation);
    expect(poll.status).toBe('failed');
    // The retry continuation is lost (Redis lost): the pass does it, not before its backoff.
    await runExportsPass(c, payload);
    expect(createRequests(c)).toBe(1);
    c.clock.advance(61_000);
    const later = await runExportsPass(c, payload);
    expect(createRequests(c)).toBe(2);
    expect(later.continuations).toHaveLength(1);
    expect((await operations(c)).map((o) => o.attempt)).toEqual([1, 2]);
  });

  it('an operation RUNNING past the timeout is given up: the run fails and polling stops', async () => {
    const { c, dir } = await setup({ exports: { runningMs: 10 * 3_600_000 } });
    const payload = { ...queuePayload(evmExportPayload(dir)), timeout: 60_000, maxRetries: 0 };
    const pass = await runExportsPass(c, payload);
    const first = await runPoll(c, payload, pass.continuations[0] as Continuation);
    expect(first.status).toBe('succeeded');
    c.clock.advance(61_000);
    const late = await runPoll(c, payload, first.continuations[0] as Continuation);
    expect(late.status).toBe('failed');
    expect(late.error?.message).toMatch(
      /given up: still RUNNING after 60000 ms \(the timeout setting\); no retry left/,
    );
    expect((await operations(c))[0]?.gaveUpAt).toBeTruthy();
    const again = await runExportsPass(c, payload);
    expect(again.continuations).toEqual([]);
    expect(createRequests(c)).toBe(1);
  });
});

describe('exports: crashes', () => {
  it('a claim left by a crash before the POST answered holds the window, then is taken over once', async () => {
    const { c, dir } = await setup({ exports: { runningMs: 0 } });
    const payload = queuePayload(evmExportPayload(dir));
    const [def] = payload.definitions;
    if (!def) throw new Error('no definition');
    const { firstDate, lastDate } = windowDates(def.window, c.clock.now());
    const key = {
      exportName: def.name,
      firstDate,
      lastDate,
      requestHash: requestHash(exportRequest(def, firstDate, lastDate)),
    };
    await claimExportWindow(c.store, key, undefined, new Date(c.clock.now()).toISOString(), () => ({
      claim: 1,
    }));

    await runExportsPass(c, payload);
    expect(createRequests(c)).toBe(0);
    c.clock.advance(16 * 60_000);
    const pass = await runExportsPass(c, payload);
    expect(createRequests(c)).toBe(1);
    expect(c.logs()).toContain('export claim abandoned by a crashed run');
    await drainPolls(c, payload, pass.continuations);
    expect(await count(c, 'SELECT COUNT(*) AS n FROM export_claims WHERE operation_id IS NOT NULL')).toBe(1);
    expect(await count(c, 'SELECT COUNT(*) AS n FROM exported_transactions')).toBe(500);
  });

  it('after the POST, a restart polls the same operation (its continuations were lost)', async () => {
    const { c, dir } = await setup({ exports: { runningMs: 1_000 } });
    const payload = queuePayload(evmExportPayload(dir));
    const lost = await runExportsPass(c, payload);
    const restart = await runExportsPass(c, payload);
    expect(restart.continuations).toEqual(lost.continuations.map((p) => ({ ...p, delayMs: 0 })));
    c.clock.advance(1_000);
    await drainPolls(c, payload, restart.continuations);
    expect(createRequests(c)).toBe(1);
    expect(await count(c, 'SELECT COUNT(*) AS n FROM export_files')).toBe(1);
    expect(await count(c, 'SELECT COUNT(*) AS n FROM exported_transactions')).toBe(500);
  });

  it('mid-download: the poll run again downloads once more, deletes the stale .part, loads rows once', async () => {
    const { c, dir } = await setup({ exports: { runningMs: 0, rowsPerDay: 8_000 } });
    const payload = queuePayload(evmExportPayload(dir));
    const pass = await runExportsPass(c, payload);
    const abort = new AbortController();
    const crashed = await runPoll(c, payload, pass.continuations[0] as Continuation, {
      signal: abort.signal,
      progress: abortOn('download', abort),
    });
    expect(crashed.status).toBe('failed');
    const row = (await operations(c))[0] as ExportOperationRow;
    const path = exportFilePath(dir, row);
    // What a kill -9 leaves: a partial file beside the final name.
    writeFileSync(`${path}.0123456789ab.part`, 'partial');
    expect(existsSync(path)).toBe(false);

    // The restarted service's pass asks for the poll again (status reads are recorded: same id).
    const restart = await runExportsPass(c, payload);
    const runs = await drainPolls(c, payload, restart.continuations);
    expect(runs.every((r) => r.status === 'succeeded')).toBe(true);
    expect(readdirSync(dirname(path)).filter((n) => n.endsWith('.part'))).toEqual([]);
    expect(c.sim.requests.filter((r) => r.endpoint === 'download')).toHaveLength(2);
    expect(createRequests(c)).toBe(1);
    expect(await count(c, 'SELECT COUNT(*) AS n FROM exported_transactions')).toBe(8_000);
  });

  it('mid-load: the poll run again loads the rest from the same file, rows once', async () => {
    const { c, dir } = await setup({ exports: { runningMs: 0, rowsPerDay: 12_000 } });
    const payload = queuePayload(evmExportPayload(dir));
    const pass = await runExportsPass(c, payload);
    const abort = new AbortController();
    const crashed = await runPoll(c, payload, pass.continuations[0] as Continuation, {
      signal: abort.signal,
      progress: abortOn('load', abort),
    });
    expect(crashed.status).toBe('failed');
    const committed = await count(c, 'SELECT COUNT(*) AS n FROM exported_transactions');
    expect(committed).toBeGreaterThan(0);
    expect(committed).toBeLessThan(12_000);
    expect(crashed.rowsWritten).toBe(1 + 1 + committed); // status read, file, committed rows
    expect(await count(c, 'SELECT COUNT(*) AS n FROM export_files WHERE loaded_at IS NULL')).toBe(1);

    const restart = await runExportsPass(c, payload);
    const [resumed] = await drainPolls(c, payload, restart.continuations);
    expect(resumed?.status).toBe('succeeded');
    expect(resumed?.requests).toBe(0);
    expect(resumed?.rowsWritten).toBe(12_000 - committed);
    expect(c.sim.requests.filter((r) => r.endpoint === 'download')).toHaveLength(1);
    expect(await count(c, 'SELECT COUNT(*) AS n FROM exported_transactions')).toBe(12_000);
    expect(await count(c, 'SELECT rows_loaded AS n FROM export_files')).toBe(12_000);
  });
});

describe('exports: broken files', () => {
  it('a broken copy (a CSV error half-way) is deleted and downloaded again at once; the good copy loads', async () => {
    const { c, dir } = await setup({
      exports: { runningMs: 0 },
      faults: { endpoints: { download: { plan: [{ kind: 'malformed' }] } } },
    });
    const payload = queuePayload(evmExportPayload(dir));
    const pass = await runExportsPass(c, payload);
    const poll = await runPoll(c, payload, pass.continuations[0] as Continuation);
    expect(poll.status).toBe('succeeded');
    expect(c.logs()).toMatch(
      /not valid CSV \(CSV_INVALID_CLOSING_QUOTE\).*export file broken: deleted, downloading it again/,
    );
    expect(c.sim.requests.filter((r) => r.endpoint === 'download')).toHaveLength(2);
    expect(await c.store.get('SELECT load_status, broken_copies, rows_loaded FROM export_files')).toEqual({
      load_status: 'loaded',
      broken_copies: 1,
      rows_loaded: 500,
    });
    expect(await count(c, 'SELECT COUNT(*) AS n FROM exported_transactions')).toBe(500);
  });

  it('an unknown extra column is kept, per row, in extra', async () => {
    const { c, dir } = await setup({
      exports: { runningMs: 0 },
      faults: { endpoints: { download: { plan: [{ kind: 'extraFields' }] } } },
    });
    const run = await runExportsPass(c, evmExportPayload(dir));
    expect(run.status).toBe('succeeded');
    expect(await count(c, 'SELECT COUNT(*) AS n FROM exported_transactions')).toBe(500);
    const extras = await c.store.all<{ extra: string }>('SELECT DISTINCT extra FROM exported_transactions');
    expect(extras.map((r) => JSON.parse(r.extra))).toEqual([{ simFutureColumn: 'future' }]);
  });
});

/** A download host that accepts connections and then never answers (or stalls after the headers). */
async function startSilentHost(mode: 'silent' | 'stall-body'): Promise<string> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    if (mode === 'stall-body') {
      socket.once('data', () =>
        socket.write(
          'HTTP/1.1 200 OK\r\ncontent-type: text/csv\r\ntransfer-encoding: chunked\r\n\r\n5\r\ntxHas\r\n',
        ),
      );
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}

describe('exports: download host that never answers', () => {
  for (const mode of ['silent', 'stall-body'] as const) {
    it(`is given up after the idle timeout and the attempts (${mode})`, async () => {
      const host = await startSilentHost(mode);
      const { c, dir } = await setup({ exports: { runningMs: 0 }, publicUrl: host });
      const payload = { ...evmExportPayload(dir), downloadIdleTimeout: 150, downloadAttempts: 2 };
      const run = await runExportsPass(c, payload);
      expect(run.status).toBe('failed');
      expect(run.error?.message).toMatch(mode === 'silent' ? /Headers Timeout/ : /Body Timeout/);
      expect(run.error?.message).toMatch(/after 2 attempt\(s\)/);
      expect(await count(c, 'SELECT COUNT(*) AS n FROM export_files')).toBe(0);
    });
  }

  it('is given up when the overall download limit passes', async () => {
    const host = await startSilentHost('silent');
    const { c, dir } = await setup({ exports: { runningMs: 0 }, publicUrl: host });
    const payload = { ...evmExportPayload(dir), downloadIdleTimeout: 60_000, downloadTimeout: 300 };
    const run = await runExportsPass(c, payload);
    expect(run.status).toBe('failed');
    expect(run.error?.message).toMatch(/took longer than 300 ms/);
  });
});
