import type { Job } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { demoCb58 } from '../../../src/commands/demo-config.js';
import { dumpQueue } from '../../support/queue.js';
import { jobRuns, type ServiceHarness, serviceHarness, waitFor } from '../../support/service.js';

let h: ServiceHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const yearly = '0 0 1 1 *';
const nonEmpty = (jobs: Job[]) => (jobs.length > 0 ? jobs : undefined);

describe('a failed run fails its BullMQ job', () => {
  it('what retrying cannot fix (401) fails at once, without further attempts', async () => {
    h = await serviceHarness({ sim: { requireApiKey: true } });
    const svc = await h.start(h.config({ jobs: { supply: { schedule: yearly, runOnStart: true } } }));
    const failed = await waitFor(async () => nonEmpty(await svc.queue.getFailed()), 10_000, 'a failed job');
    expect(failed[0]!.attemptsMade).toBe(1);
    expect(failed[0]!.failedReason).toContain('401');
    expect(await jobRuns(svc)).toMatchObject([{ job: 'supply', status: 'failed' }]);
  });

  it('what may pass later (503 after the client gave up) is retried with backoff', async () => {
    h = await serviceHarness({ sim: { faults: { endpoints: { supply: { errorRate: 1 } } } } });
    const svc = await h.start(
      h.config({ jobs: { supply: { schedule: yearly, runOnStart: true } }, client: { maxAttempts: 1 } }),
    );
    const delayed = await waitFor(async () => nonEmpty(await svc.queue.getDelayed()), 10_000, 'a retry');
    expect(delayed[0]!.attemptsMade).toBe(1);
    expect(delayed[0]!.opts.attempts).toBeGreaterThan(1);
    expect((await jobRuns(svc))[0]).toMatchObject({ status: 'failed' });
    expect((await jobRuns(svc))[0]!.error).toContain('503');
  });

  it('records what a failed run committed before it failed', async () => {
    // Page 1 and 2 of transactions answer; page 3 fails for good.
    h = await serviceHarness({
      sim: {
        faults: { endpoints: { transactions: { plan: [{ kind: 'ok' }, { kind: 'ok' }, { status: 400 }] } } },
      },
    });
    const svc = await h.start(
      h.config({ jobs: { transactions: { schedule: yearly, runOnStart: true, maxPages: 5 } } }),
    );
    await waitFor(
      async () => (await jobRuns(svc)).some((r) => r.status === 'failed'),
      10_000,
      'the failed run',
    );
    expect((await jobRuns(svc))[0]).toMatchObject({ status: 'failed', rows_written: 200 });
  });

  it('job data in the queue (Redis or PostgreSQL) and the metrics hold no secret', async () => {
    const key = 'secret-api-key-0123456789abcdef';
    h = await serviceHarness();
    const svc = await h.start(
      h.config(
        { jobs: { signatures: { schedule: yearly, runOnStart: true, txHashes: [demoCb58('s1')] } } },
        { GLACIER_API_KEY: key },
      ),
    );
    await waitFor(async () => (await jobRuns(svc)).some((r) => r.status === 'succeeded'), 10_000, 'a run');
    const scrape = await (await fetch(`${svc.url}/metrics`)).text();
    expect(scrape).toContain('glacier_job_runs_total');
    expect(scrape).not.toContain(key);
    const dumps = await dumpQueue(h.prefix);
    expect(dumps.length).toBeGreaterThan(0);
    for (const dump of dumps) expect(dump).not.toContain(key);
  });
});
