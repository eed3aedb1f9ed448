import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { exportsJob } from '../../jobs/exports.js';
import { runJob } from '../../src/runner.js';
import { type Collector, evmExportPayload, startCollector } from '../support/collector.js';
import { tempDir } from '../support/tmp.js';

let collector: Collector | undefined;
let cleanupDir: (() => void) | undefined;
afterEach(async () => {
  await collector?.close();
  cleanupDir?.();
  collector = undefined;
});

describe('exports job', () => {
  it('starts an export, polls it to the end and downloads its file with size and sha256', async () => {
    collector = await startCollector({ sim: { exports: { runningMs: 0 } } });
    const c = collector;
    const dir = tempDir();
    cleanupDir = dir.cleanup;
    const payload = evmExportPayload(dir.dir);
    const result = await runJob('exports', exportsJob, payload, c.deps);
    expect(result.status).toBe('succeeded');
    const op = c.store.sqlite.prepare('SELECT * FROM export_operations').get() as Record<string, string>;
    expect(op).toMatchObject({
      export_name: 'treasury',
      first_date: '2025-06-14',
      last_date: '2025-06-14',
      status: 'COMPLETED',
    });
    expect(JSON.parse(op.status_history ?? '[]').map((h: { status: string }) => h.status)).toContain(
      'COMPLETED',
    );
    const file = c.store.sqlite.prepare('SELECT * FROM export_files').get() as Record<
      string,
      string | number
    >;
    const bytes = readFileSync(file.path as string);
    expect(file.size_bytes).toBe(bytes.length);
    expect(file.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(bytes.toString().split('\n')[0]).toMatch(/tx/i);

    // The same window is not exported twice.
    const again = await runJob('exports', exportsJob, payload, c.deps);
    expect(again.status).toBe('succeeded');
    expect(c.sim.requests.filter((r) => r.endpoint === 'createExport')).toHaveLength(1);
  });

  it('continues a truncated export from its nextDate', async () => {
    collector = await startCollector({ sim: { exports: { runningMs: 0, maxRangeDays: 10 } } });
    const c = collector;
    const dir = tempDir();
    cleanupDir = dir.cleanup;
    const result = await runJob('exports', exportsJob, evmExportPayload(dir.dir, { lastDays: 25 }), c.deps);
    expect(result.status).toBe('succeeded');
    const ops = c.store.sqlite
      .prepare(
        'SELECT status, code, first_date, last_date, next_date, follow_up_of FROM export_operations ORDER BY first_date',
      )
      .all() as Record<string, string | null>[];
    expect(ops.length).toBeGreaterThanOrEqual(3);
    expect(ops[0]).toMatchObject({
      status: 'COMPLETED_WITH_WARNING',
      code: 'WarnTruncatedExport',
      first_date: '2025-05-21',
    });
    for (let i = 1; i < ops.length; i++) expect(ops[i]!.first_date).toBe(ops[i - 1]!.next_date);
    expect(ops.at(-1)).toMatchObject({ status: 'COMPLETED', last_date: '2025-06-14' });
    expect((c.store.sqlite.prepare('SELECT COUNT(*) AS n FROM export_files').get() as { n: number }).n).toBe(
      ops.length,
    );
  });
});
