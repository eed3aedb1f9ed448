import { afterEach, describe, expect, it } from 'vitest';
import { runHandler } from '../../src/kernel/index.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { createDataApiClient, type DataApiClient } from '../../src/upstream/index.js';
import { captureLog } from '../support/log.js';
import { type TestStore, testStore } from '../support/store.js';

let db: TestStore | undefined;
let client: DataApiClient | undefined;
afterEach(async () => {
  await client?.close();
  await db?.cleanup();
  client = undefined;
  db = undefined;
});

const lines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('the log lines of a run', () => {
  it("carry the run's job, scope and job_runs id, in the handler's lines and in the outcome line", async () => {
    db = await testStore();
    client = createDataApiClient({ baseUrl: 'http://127.0.0.1:9' });
    const { log, text } = captureLog('info');
    const deps = { client, store: db.store, log, clock: createManualClock(Date.UTC(2025, 0, 1)) };
    const summary = await runHandler(
      'probe',
      async (_: undefined, ctx) => {
        ctx.log.info({ step: 1 }, 'handler line');
      },
      undefined,
      deps,
      { scope: 'slot 2025-01-01T00:00:00.000Z' },
    );
    expect(summary.runId).toBeTypeOf('number');
    const bindings = { job: 'probe', scope: 'slot 2025-01-01T00:00:00.000Z', runId: summary.runId };
    expect(lines(text())).toEqual([
      expect.objectContaining({ ...bindings, step: 1, msg: 'handler line' }),
      expect.objectContaining({ ...bindings, status: 'succeeded', msg: 'job run' }),
    ]);
  });

  it('of a run whose start could not be recorded carry its job and scope, and no id', async () => {
    db = await testStore();
    client = createDataApiClient({ baseUrl: 'http://127.0.0.1:9' });
    const { log, text } = captureLog('info');
    const down = { ...db.store, get: () => Promise.reject(new Error('the database went away')) };
    let ran = false;
    const summary = await runHandler(
      'probe',
      async () => {
        ran = true;
      },
      undefined,
      { client, store: down, log, clock: createManualClock(Date.UTC(2025, 0, 1)) },
      { scope: 'all' },
    );
    expect(ran).toBe(false);
    expect(summary).toMatchObject({ status: 'failed', runId: undefined });
    const [line, ...rest] = lines(text());
    expect(rest).toEqual([]);
    expect(line).toMatchObject({ job: 'probe', scope: 'all', status: 'failed', msg: 'job run failed' });
    expect(line).not.toHaveProperty('runId');
  });
});
