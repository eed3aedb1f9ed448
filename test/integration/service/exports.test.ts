import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliProcess, spawnCli } from '../../support/cli.js';
import { freePort } from '../../support/redis-server.js';
import { jobRuns, type ServiceHarness, serviceHarness, waitFor } from '../../support/service.js';
import { queryAt } from '../../support/store.js';

let h: ServiceHarness | undefined;
const procs: CliProcess[] = [];
afterEach(async () => {
  for (const p of procs.splice(0)) {
    if (p.child.exitCode === null) {
      p.child.kill('SIGKILL');
      await p.exited;
    }
  }
  await h?.close();
  h = undefined;
});

const treasury = `0x${'aa'.padStart(40, '0')}`;
// The simulator fails exports of addresses holding `deadfa11` with ErrInternal.
const simfail = `0x${'deadfa11'.padEnd(40, '0')}`;

function exportsSection(dir: string, patch: Record<string, unknown> = {}) {
  return {
    schedule: '0 0 1 1 *',
    runOnStart: true,
    directory: join(dir, 'exports'),
    pollInterval: '1s',
    maxPollInterval: '2s',
    retryDelay: '1s',
    maxRetries: 1,
    definitions: [
      {
        name: 'treasury',
        type: 'TRANSACTION_EXPORT_EVM',
        addresses: [treasury],
        includeChains: ['43114'],
        window: 'previous-day',
        ...patch,
      },
    ],
  };
}

type Row = Record<string, unknown>;
const query = (location: string, sql: string) => queryAt<Row>(location, sql);

describe('exports on delayed BullMQ jobs', () => {
  it('polls at growing intervals, downloads the file and loads its rows, as the CSV says', async () => {
    h = await serviceHarness({ sim: { exports: { runningMs: 2_500 } } });
    const svc = await h.start(h.config({ jobs: { exports: exportsSection(h.dir) } }));
    const location = h.location;
    await waitFor(
      async () =>
        (await query(location, 'SELECT loaded_at FROM export_files WHERE loaded_at IS NOT NULL')).length,
      30_000,
    );
    const [file] = await query(location, 'SELECT * FROM export_files');
    const csv = parse(readFileSync(file!.path as string), { columns: true }) as Row[];
    const loaded = await query(location, 'SELECT tx_hash FROM exported_transactions');
    expect(loaded.map((r) => r.tx_hash).sort()).toEqual(csv.map((r) => r.txHash).sort());
    expect(file!.rows_loaded).toBe(csv.length);
    // The scheduled pass created it; the status reads ran as their own (delayed) jobs.
    const runs = await jobRuns(svc);
    expect(runs.filter((r) => r.job === 'exports')).toHaveLength(1);
    expect(runs.filter((r) => r.job === 'export-poll').length).toBeGreaterThanOrEqual(2);
    expect(h.sim.requests.filter((r) => r.endpoint === 'createExport')).toHaveLength(1);
    expect(h.sim.requests.filter((r) => r.endpoint === 'download')).toHaveLength(1);
  });

  it('chains follow-ups of a truncated export until the requested range is covered', async () => {
    h = await serviceHarness({ sim: { exports: { runningMs: 0, maxRangeDays: 10, rowsPerDay: 5 } } });
    await h.start(h.config({ jobs: { exports: exportsSection(h.dir, { window: { lastDays: 25 } }) } }));
    const location = h.location;
    const ops = await waitFor(async () => {
      const rows = await query(
        location,
        'SELECT first_date, last_date, status FROM export_operations ORDER BY first_date',
      );
      return rows.length === 3 && rows.every((r) => r.status !== 'RUNNING') ? rows : undefined;
    }, 30_000);
    expect(ops.map((o) => o.status)).toEqual([
      'COMPLETED_WITH_WARNING',
      'COMPLETED_WITH_WARNING',
      'COMPLETED',
    ]);
    await waitFor(
      async () =>
        (await query(location, 'SELECT 1 FROM export_files WHERE loaded_at IS NOT NULL')).length === 3,
      20_000,
    );
  });

  it('a FAILED export fails the run that saw it (ErrInternal: retried a bounded number of times)', async () => {
    h = await serviceHarness({ sim: { exports: { runningMs: 0 } } });
    const svc = await h.start(
      h.config({ jobs: { exports: exportsSection(h.dir, { addresses: [simfail] }) } }),
    );
    const location = h.location;
    // maxRetries 1: two tries, both FAILED, each seen by a failed run.
    await waitFor(
      async () =>
        (await query(location, "SELECT 1 FROM export_operations WHERE status = 'FAILED'")).length === 2,
      30_000,
    );
    await waitFor(
      async () =>
        (await jobRuns(svc)).filter((r) => r.job === 'export-poll' && r.status === 'failed').length === 2,
      10_000,
    );
    const failed = (await jobRuns(svc)).filter((r) => r.status === 'failed');
    expect(failed.every((r) => /ErrInternal/.test(r.error ?? ''))).toBe(true);
    expect(h.sim.requests.filter((r) => r.endpoint === 'createExport')).toHaveLength(2);
  });

  it('kill -9 while an export is RUNNING: after a restart the same operation is polled, one file, rows once', async () => {
    h = await serviceHarness({ sim: { exports: { runningMs: 4_000 } } });
    const configPath = join(h.dir, 'glacier.json');
    writeFileSync(
      configPath,
      // A kill that lands while a poll is active leaves it stalled: taken back after stalledJobTimeout
      // (and up to one more check interval), which BullMQ's default 30 s made outlast the wait below.
      JSON.stringify({
        jobs: { exports: exportsSection(h.dir) },
        service: { queuePrefix: h.prefix, stalledJobTimeout: '5s' },
      }),
    );
    const env = async () => ({
      GLACIER_BASE_URL: h!.sim.url,
      ...h!.dbEnv,
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(await freePort()),
    });
    const first = spawnCli(['start', '-c', configPath], await env());
    procs.push(first);
    const location = h.location;
    const sim = h.sim;
    await waitFor(() => sim.requests.some((r) => r.endpoint === 'getOperation'), 20_000, 'a status read');
    first.child.kill('SIGKILL');
    await first.exited;
    const [running] = await query(location, 'SELECT operation_id, status FROM export_operations');
    expect(running).toMatchObject({ status: 'RUNNING' });

    const second = spawnCli(['start', '-c', configPath], await env());
    procs.push(second);
    await waitFor(
      async () => (await query(location, 'SELECT 1 FROM export_files WHERE loaded_at IS NOT NULL')).length,
      60_000,
    );
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    const ops = await query(location, 'SELECT operation_id FROM export_operations');
    expect(ops).toEqual([{ operation_id: running!.operation_id }]);
    expect(sim.requests.filter((r) => r.endpoint === 'createExport')).toHaveLength(1);
    expect(sim.requests.filter((r) => r.endpoint === 'download')).toHaveLength(1);
    const [file] = await query(location, 'SELECT path, rows_loaded FROM export_files');
    const csv = parse(readFileSync(file!.path as string), { columns: true }) as Row[];
    expect((await query(location, 'SELECT COUNT(*) AS n FROM exported_transactions'))[0]!.n).toBe(csv.length);
    expect(file!.rows_loaded).toBe(csv.length);
  }, 120_000); // two service start-ups, a status read, a download and a load: more than the default under load
});
