/**
 * kill -9 of `run exports` while the operation is RUNNING, during its download and during its CSV
 * load; then a run to completion: the same operation, one complete file whose sha256 matches, its
 * rows loaded once.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import type { SimulatorHandle } from '../../src/simulator/index.js';
import { runCli, spawnCli } from '../support/cli.js';
import {
  cliEnv,
  countRows,
  query,
  sleep,
  startFaultSimulator,
  type Workspace,
  workspace,
} from './support.js';

let sim: SimulatorHandle | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const c of cleanups.splice(0)) await c();
});

async function setup(dir = 'exports', settings: Record<string, unknown> = {}): Promise<Workspace> {
  const ws = await workspace({});
  cleanups.push(ws.cleanup);
  const config = {
    jobs: {
      exports: {
        schedule: '0 2 * * *',
        directory: join(ws.dir, dir),
        pollInterval: '1s',
        maxPollInterval: '1s',
        ...settings,
        definitions: [
          {
            name: 'treasury',
            type: 'TRANSACTION_EXPORT_EVM',
            addresses: [`0x${'aa'.padStart(40, '0')}`],
            includeChains: ['43114'],
          },
        ],
      },
    },
  };
  // workspace() wrote an empty config: write the real one, which names the workspace's directory.
  writeFileSync(ws.configPath, JSON.stringify(config));
  return ws;
}

const partFiles = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith('.part'))
    : [];

/**
 * Starts `run exports` and kills it with -9 once `ready` holds. No deadline of its own (under load
 * the download alone took longer than a fixed 60 s): the run either reaches the moment or ends
 * first, which fails here; the test's timeout bounds the whole.
 */
async function killWhen(ws: Workspace, ready: () => boolean | Promise<boolean>): Promise<void> {
  const { child, done } = spawnCli(['run', 'exports'], cliEnv(sim!, ws));
  while (child.exitCode === null && !(await ready())) await sleep(5);
  const ended = child.exitCode;
  child.kill('SIGKILL');
  const result = await done;
  if (ended !== null)
    throw new Error(`the run ended (exit ${ended}) before the moment to kill came: ${result.stderr}`);
}

async function completeAndCheck(ws: Workspace, operationId: string): Promise<void> {
  const r = await runCli(['run', 'exports'], cliEnv(sim!, ws));
  expect(r.code, r.stderr).toBe(0);
  expect(await query(ws.location, 'SELECT operation_id FROM export_operations')).toEqual([
    { operation_id: operationId },
  ]);
  expect(sim!.requests.filter((q) => q.endpoint === 'createExport')).toHaveLength(1);
  const [file] = await query<{ path: string; sha256: string; size_bytes: number; rows_loaded: number }>(
    ws.location,
    'SELECT path, sha256, size_bytes, rows_loaded FROM export_files',
  );
  const bytes = readFileSync(file!.path);
  expect(file!.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
  expect(file!.size_bytes).toBe(bytes.length);
  const rows = (parse(bytes, { columns: true }) as unknown[]).length;
  expect(file!.rows_loaded).toBe(rows);
  expect(await countRows(ws.location, 'exported_transactions')).toBe(rows);
  expect(partFiles(join(ws.dir, 'exports'))).toEqual([]);
}

// The download test moves ~100 MB twice and loads 500,000 rows: minutes when both stores' projects
// run at once (PostgreSQL's multi-row inserts load about a quarter as fast as SQLite's here).
describe('kill -9 of `run exports`', { timeout: 400_000 }, () => {
  it('while the operation is RUNNING: the same operation is polled after the restart', async () => {
    sim = await startFaultSimulator({ clock: undefined, exports: { runningMs: 3_000, rowsPerDay: 200 } });
    const ws = await setup();
    await killWhen(ws, () => sim!.requests.some((r) => r.endpoint === 'getOperation'));
    const [op] = await query<{ operation_id: string; status: string }>(
      ws.location,
      'SELECT operation_id, status FROM export_operations',
    );
    expect(op!.status).toBe('RUNNING');
    await completeAndCheck(ws, op!.operation_id);
  });

  it('during the download: the file is downloaded again from the start, complete once', async () => {
    // ~4 MB at 2 MB/s: the download lasts about 2 s, far longer than the kill takes, whatever the load.
    sim = await startFaultSimulator({
      clock: undefined,
      exports: { runningMs: 0, rowsPerDay: 20_000, bytesPerSecond: 2_000_000 },
    });
    const ws = await setup();
    await killWhen(ws, () => partFiles(join(ws.dir, 'exports')).length > 0);
    expect(await countRows(ws.location, 'export_files')).toBe(0);
    const [op] = await query<{ operation_id: string }>(
      ws.location,
      'SELECT operation_id FROM export_operations',
    );
    await completeAndCheck(ws, op!.operation_id);
  });

  it('during the CSV load: the rows are loaded once, the file is not downloaded again', async () => {
    sim = await startFaultSimulator({ clock: undefined, exports: { runningMs: 0, rowsPerDay: 150_000 } });
    const ws = await setup();
    await killWhen(ws, async () => (await countRows(ws.location, 'exported_transactions')) > 0);
    const [file] = await query<{ loaded_at: string | null }>(
      ws.location,
      'SELECT loaded_at FROM export_files',
    );
    expect(file?.loaded_at ?? null).toBeNull();
    const downloads = sim.requests.filter((r) => r.endpoint === 'download').length;
    const [op] = await query<{ operation_id: string }>(
      ws.location,
      'SELECT operation_id FROM export_operations',
    );
    await completeAndCheck(ws, op!.operation_id);
    expect(sim.requests.filter((r) => r.endpoint === 'download')).toHaveLength(downloads);
  });

  it('a load killed downloadAttempts times: the file is failed, not loaded again, and each killed run is interrupted', async () => {
    sim = await startFaultSimulator({ clock: undefined, exports: { runningMs: 0, rowsPerDay: 150_000 } });
    const ws = await setup('exports', { downloadAttempts: 2 });
    for (let kill = 0; kill < 2; kill++) {
      await killWhen(ws, async () => {
        const [started] = await query<{ n: number }>(
          ws.location,
          'SELECT COUNT(*) AS n FROM export_files WHERE load_starts > ?',
          [kill],
        ).catch(() => [{ n: 0 }]);
        return Number(started?.n ?? 0) > 0;
      });
    }
    const [before] = await query<{ load_starts: number; load_status: string }>(
      ws.location,
      'SELECT load_starts, load_status FROM export_files',
    );
    expect(before).toMatchObject({ load_starts: 2, load_status: 'pending' });
    const downloads = sim.requests.filter((r) => r.endpoint === 'download').length;
    // The third start would be one more kill (out of memory, in the case this guards): given up instead.
    const given = await runCli(['run', 'exports'], cliEnv(sim, ws));
    expect(given.code).toBe(1);
    expect(given.stderr + given.stdout).toContain(
      'its load was started 2 times and the process died in it each time',
    );
    const [file] = await query<{ load_status: string; load_error: string }>(
      ws.location,
      'SELECT load_status, load_error FROM export_files',
    );
    expect(file!.load_status).toBe('failed');
    expect(file!.load_error).toContain('never finished');
    const runs = await query<{ status: string; error: string | null }>(
      ws.location,
      "SELECT status, error FROM job_runs WHERE job = 'exports' ORDER BY id",
    );
    expect(runs.map((r) => r.status)).toEqual(['failed', 'failed', 'failed']);
    expect(runs[0]!.error).toMatch(/^interrupted: the process died while loading the export file/);
    expect(runs[1]!.error).toMatch(/^interrupted: the process died while loading the export file/);
    // Not downloaded, nor loaded, again: the next run leaves the window alone.
    const again = await runCli(['run', 'exports'], cliEnv(sim, ws));
    expect(again.code, again.stderr).toBe(0);
    expect(sim.requests.filter((r) => r.endpoint === 'download')).toHaveLength(downloads);
  });
});
