import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { storeLocation } from '../../src/config/index.js';
import { loadExportFile } from '../../src/exports/csv-load.js';
import type { Continuation } from '../../src/kernel/index.js';
import { type Collector, evmExportPayload, startCollector } from '../support/collector.js';
import {
  count,
  createRequests,
  drainPolls,
  loadedRowsAsCsv,
  parseCsvFile,
  queuePayload,
  runExportsPass,
  runPoll,
} from '../support/exports.js';
import { tempDir } from '../support/tmp.js';

let collector: Collector | undefined;
let cleanupDir: (() => void) | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await collector?.close();
  cleanupDir?.();
  for (const c of cleanups.splice(0)) c();
  collector = undefined;
  cleanupDir = undefined;
});

async function setup(sim: Parameters<typeof startCollector>[0] = {}) {
  collector = await startCollector(sim);
  const dir = tempDir();
  cleanupDir = dir.cleanup;
  return { c: collector, dir: dir.dir };
}

describe('exports: run exports (in-process)', () => {
  it('starts an export, polls it, downloads its file (size, sha256) and loads its rows once', async () => {
    const { c, dir } = await setup({ sim: { exports: { runningMs: 0 } }, apiKey: 'key-for-the-api-only' });
    const payload = evmExportPayload(dir);
    const result = await runExportsPass(c, payload);
    expect(result.status).toBe('succeeded');
    const op = (await c.store.get<Record<string, string>>('SELECT * FROM export_operations'))!;
    expect(op).toMatchObject({
      export_name: 'treasury',
      first_date: '2025-06-14',
      last_date: '2025-06-14',
      status: 'COMPLETED',
      attempt: 1,
    });
    expect(op.request_hash).toMatch(/^[0-9a-f]{64}$/);
    const file = (await c.store.get<Record<string, string | number>>('SELECT * FROM export_files'))!;
    const bytes = readFileSync(file.path as string);
    expect(file.size_bytes).toBe(bytes.length);
    expect(file.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));

    // The rows in SQL are the file's rows, parsed here independently, and the simulator's truth.
    const csv = parseCsvFile(file.path as string);
    expect(csv.length).toBe(500);
    expect(file.rows_loaded).toBe(500);
    expect(file.loaded_at).toBeTruthy();
    const sortKey = (r: Record<string, string>) =>
      `${(r.blockTimestamp ?? '').padStart(12, '0')}|${r.txHash}`;
    const sorted = [...csv].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1));
    expect(await loadedRowsAsCsv(c, op.operation_id as string)).toEqual(sorted);
    const truth = [...(c.sim.truth.exportRows(op.operation_id as string) ?? [])];
    expect(truth.map((r) => r.txHash).sort()).toEqual(csv.map((r) => r.txHash).sort());
    // Amounts stay exact text (wei passes 2^53).
    const big = await c.store.get<{ value: string }>(
      'SELECT value FROM exported_transactions WHERE length(CAST(value AS TEXT)) > 16 LIMIT 1',
    );
    if (big) expect(csv.some((r) => r.value === big.value)).toBe(true);
    expect(result.rowsWritten).toBe(1 + 1 + 1 + 500); // operation, status read, file, rows

    // No key to the download host.
    const downloads = c.sim.requests.filter((r) => r.endpoint === 'download');
    expect(downloads).toHaveLength(1);
    expect(downloads.every((r) => !r.hadApiKey)).toBe(true);

    // The same window is not exported twice; a re-load adds nothing.
    const again = await runExportsPass(c, payload);
    expect(again.status).toBe('succeeded');
    expect(createRequests(c)).toBe(1);
    const reload = await loadExportFile(
      c.store,
      {
        path: file.path as string,
        operationId: op.operation_id as string,
        exportName: 'treasury',
        operationType: 'TRANSACTION_EXPORT_EVM',
      },
      { at: () => new Date(c.clock.now()).toISOString() },
    );
    expect(reload).toEqual({ rows: 500, added: 0, setAside: 0 });
    expect(await count(c, 'SELECT COUNT(*) AS n FROM exported_transactions')).toBe(500);
  });

  it('a file recorded but not loaded nor on this disk (another host downloaded it) is downloaded again here, its rows loaded once', async () => {
    const { c, dir } = await setup({ sim: { exports: { runningMs: 0 } } });
    expect((await runExportsPass(c, evmExportPayload(dir))).status).toBe('succeeded');
    // As another host leaves it when it stops after the download: recorded, not loaded, on its disk.
    const recorded = (await c.store.get<{ path: string }>('SELECT path FROM export_files'))!;
    await c.store.run(
      "UPDATE export_files SET rows_loaded = NULL, loaded_at = NULL, load_status = 'pending'",
    );
    rmSync(recorded.path);
    const here = tempDir();
    cleanups.push(here.cleanup);

    const again = await runExportsPass(c, evmExportPayload(here.dir));
    expect(again.status).toBe('succeeded');
    expect(c.sim.requests.filter((r) => r.endpoint === 'download')).toHaveLength(2);
    const file = (await c.store.get<{ path: string; rows_loaded: number; loaded_at: string | null }>(
      'SELECT path, rows_loaded, loaded_at FROM export_files',
    ))!;
    expect(file.path.startsWith(here.dir)).toBe(true);
    expect(file).toMatchObject({ rows_loaded: 500, loaded_at: expect.any(String) });
    expect(parseCsvFile(file.path)).toHaveLength(500);
    expect(await count(c, 'SELECT COUNT(*) AS n FROM exported_transactions')).toBe(500);
    expect(createRequests(c)).toBe(1);
  });

  it('continues a truncated export from its nextDate until the range is covered', async () => {
    const { c, dir } = await setup({ sim: { exports: { runningMs: 0, maxRangeDays: 10, rowsPerDay: 20 } } });
    const result = await runExportsPass(c, evmExportPayload(dir, { lastDays: 25 }));
    expect(result.status).toBe('succeeded');
    const ops = await c.store.all<Record<string, string | null>>(
      'SELECT status, code, first_date, last_date, next_date, follow_up_of, operation_id FROM export_operations ORDER BY first_date',
    );
    expect(ops).toHaveLength(3);
    expect(ops[0]).toMatchObject({
      status: 'COMPLETED_WITH_WARNING',
      code: 'WarnTruncatedExport',
      first_date: '2025-05-21',
    });
    for (let i = 1; i < ops.length; i++) {
      expect(ops[i]?.first_date).toBe(ops[i - 1]?.next_date);
      expect(ops[i]?.follow_up_of).toBe(ops[i - 1]?.operation_id);
    }
    expect(ops.at(-1)).toMatchObject({ status: 'COMPLETED', last_date: '2025-06-14' });
    expect(await count(c, 'SELECT COUNT(*) AS n FROM export_files WHERE loaded_at IS NOT NULL')).toBe(3);
    // 25 days of 20 rows, each once.
    expect(await count(c, 'SELECT COUNT(*) AS n FROM exported_transactions')).toBe(25 * 20);
    const day =
      c.store.dialect === 'postgres'
        ? "to_char(to_timestamp(block_timestamp) AT TIME ZONE 'UTC', 'YYYY-MM-DD')"
        : "date(block_timestamp, 'unixepoch')";
    expect(await count(c, `SELECT COUNT(DISTINCT ${day}) AS n FROM exported_transactions`)).toBe(25);
  });

  it('a sleep between polls leaves no abort listener behind (no MaxListenersExceededWarning)', async () => {
    const { c, dir } = await setup({ sim: { exports: { runningMs: 60_000 } } });
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const abort = new AbortController();
      const run = runExportsPass(
        c,
        // maxWait past the 60 s the clock is advanced by: the run must see COMPLETED, not its deadline.
        { ...evmExportPayload(dir), maxPollInterval: 10, maxWait: 120_000 },
        { signal: abort.signal },
      );
      // Let it poll well past 11 times, then let the operation finish.
      while (c.sim.requests.filter((r) => r.endpoint === 'getOperation').length < 15) {
        await new Promise((r) => setTimeout(r, 20));
      }
      c.clock.advance(60_000);
      expect((await run).status).toBe('succeeded');
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('reports waiting and download progress', async () => {
    const { c, dir } = await setup({ sim: { exports: { runningMs: 0 } } });
    const seen: { task: string; done: number; total?: number | undefined; unit?: string | undefined }[] = [];
    const ended: string[] = [];
    const result = await runExportsPass(c, evmExportPayload(dir), {
      progress: {
        update: (task, done, total, unit) => seen.push({ task, done, total, unit }),
        end: (task) => ended.push(task),
      },
    });
    expect(result.status).toBe('succeeded');
    expect(
      seen.some((p) => p.task === 'exports' && p.unit === 'operations' && p.done === 1 && p.total === 1),
    ).toBe(true);
    expect(seen.some((p) => p.task.startsWith('download') && p.unit === 'bytes' && p.done > 0)).toBe(true);
    expect(ended).toContain('exports');
  });
});

describe('exports: queue-shaped handlers', () => {
  it('the pass returns polls; each poll returns the next until the file is loaded', async () => {
    const { c, dir } = await setup({ sim: { exports: { runningMs: 1_000 } } });
    const payload = queuePayload(evmExportPayload(dir));
    const pass = await runExportsPass(c, payload);
    expect(pass.status).toBe('succeeded');
    const op = (await c.store.get<{ operation_id: string }>('SELECT operation_id FROM export_operations'))!;
    expect(pass.continuations).toEqual([
      {
        job: 'export-poll',
        args: { operationId: op.operation_id, poll: 0 },
        delayMs: 10,
        id: `export-poll|${op.operation_id}|0`,
      },
    ]);
    // A second pass (a retried run, a restart) asks for the same poll, due at once: the queue
    // dedupes it by id; without the first (lost), the status is read now.
    const second = await runExportsPass(c, payload);
    expect(second.continuations).toEqual([{ ...pass.continuations[0], delayMs: 0 }]);
    expect(createRequests(c)).toBe(1);

    // Still RUNNING: the next poll, later (growing delays, capped by maxPollInterval).
    let next = pass.continuations;
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      const run = await runPoll(c, payload, next[0] as Continuation);
      expect(run.status).toBe('succeeded');
      next = run.continuations;
      delays.push(next[0]?.delayMs ?? -1);
    }
    expect(delays).toEqual([15, 23, 34]);
    // A stale poll (its reads were recorded since) reads nothing and rejoins the chain.
    const stale = await runPoll(c, payload, pass.continuations[0] as Continuation);
    expect(stale.requests).toBe(0);
    expect(stale.continuations).toEqual(next);
    c.clock.advance(1_000);
    const runs2 = await drainPolls(c, payload, next);
    expect(runs2.at(-1)?.continuations).toEqual([]);
    expect(runs2.every((r) => r.status === 'succeeded')).toBe(true);
    expect(await count(c, 'SELECT COUNT(*) AS n FROM exported_transactions')).toBe(500);
    expect(await count(c, 'SELECT status_reads AS n FROM export_operations')).toBe(4);
  }, 20_000);

  it('with the default pollInterval, reads an export done in 5 s at the second read, 6 s after the POST', async () => {
    const { c, dir } = await setup({ sim: { exports: { runningMs: 5_000 } } });
    // As the queue runs it, with the section's defaults: pollInterval 30 s, maxPollInterval 5 m.
    const payload = {
      ...queuePayload(evmExportPayload(dir)),
      pollInterval: 30_000,
      maxPollInterval: 300_000,
    };
    const pass = await runExportsPass(c, payload);
    expect(pass.continuations.map((n) => n.delayMs)).toEqual([2_000]);
    const delays: number[] = [];
    let next = pass.continuations;
    for (let i = 0; next.length > 0 && i < 20; i++) {
      // The queue (or `run exports`) runs each read at its delay: the simulator's clock moves as much.
      c.clock.advance(next[0]!.delayMs);
      next = (await runPoll(c, payload, next[0] as Continuation)).continuations;
      delays.push(...next.map((n) => n.delayMs));
    }
    // Read at 2 s (running), 4 s later (done, downloaded, loaded): not after the 30 s of pollInterval.
    expect(delays).toEqual([4_000]);
    expect(await count(c, 'SELECT status_reads AS n FROM export_operations')).toBe(2);
    expect(await count(c, 'SELECT COUNT(*) AS n FROM exported_transactions')).toBe(500);
  });

  it('two passes at once start a window once', async () => {
    const { c, dir } = await setup({
      sim: { exports: { runningMs: 1_000 }, faults: { endpoints: { createExport: { latencyMs: 50 } } } },
    });
    const payload = queuePayload(evmExportPayload(dir));
    const { openStore } = await import('../../src/store/index.js');
    const other = await openStore(storeLocation(c.location));
    try {
      const [a, b] = await Promise.all([
        runExportsPass(c, payload),
        (async () => {
          const { runHandler } = await import('../../src/kernel/index.js');
          const { exportsJob } = await import('../../jobs/exports.js');
          return runHandler('exports', exportsJob, payload, { ...c.deps, store: other });
        })(),
      ]);
      expect(a.status).toBe('succeeded');
      expect(b.status).toBe('succeeded');
      expect(createRequests(c)).toBe(1);
      expect(await count(c, 'SELECT COUNT(*) AS n FROM export_claims')).toBe(1);
    } finally {
      await other.close();
    }
  });
});
