import { afterEach, describe, expect, it } from 'vitest';
import { demoAddress, demoNodeId } from '../../../src/commands/demo-config.js';
import { jobRuns, type ServiceHarness, serviceHarness, waitFor } from '../../support/service.js';

let h: ServiceHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('scheduling on BullMQ', () => {
  it('runs each slot exactly once with two schedulers side by side', async () => {
    h = await serviceHarness();
    const config = h.config({ jobs: { supply: { schedule: '* * * * * *' } } });
    const skipped: string[] = [];
    const worker = await h.start(config, { role: 'worker' });
    await h.start(config, { role: 'scheduler', onSkippedSlot: (j) => skipped.push(j) });
    await h.start(config, { role: 'scheduler', onSkippedSlot: (j) => skipped.push(j) });
    await waitFor(async () => (await jobRuns(worker)).length >= 5, 15_000, '5 runs');
    const runs = (await jobRuns(worker)).filter((r) => r.status !== 'running');
    const slots = runs.map((r) => r.scope);
    expect(new Set(slots).size).toBe(slots.length);
    expect(runs.every((r) => r.status === 'succeeded')).toBe(true);
    // The second scheduler's add of a slot meets the first one's job id, not the per-job dedup.
    expect(skipped).toEqual([]);
  });

  it('does not overlap a slow job with its next slot, and counts the skipped slots', async () => {
    // Every transactions request takes 1.5 s; the schedule fires every second.
    h = await serviceHarness({ sim: { faults: { endpoints: { transactions: { latencyMs: 1500 } } } } });
    const config = h.config({
      jobs: { transactions: { schedule: '* * * * * *', maxPages: 1 } },
      service: { concurrency: 4 },
    });
    const skipped: string[] = [];
    const svc = await h.start(config, { onSkippedSlot: (j) => skipped.push(j) });
    await waitFor(
      async () => (await jobRuns(svc)).filter((r) => r.finished_at).length >= 2,
      15_000,
      '2 finished runs',
    );
    await waitFor(() => skipped.length >= 1, 5_000, 'a skipped slot');
    const runs = await jobRuns(svc);
    for (let i = 1; i < runs.length; i++) {
      // Each run starts after the one before it finished.
      expect(runs[i - 1]!.finished_at).not.toBeNull();
      expect(runs[i]!.started_at >= runs[i - 1]!.finished_at!).toBe(true);
    }
    expect(skipped.every((j) => j === 'transactions')).toBe(true);
  });

  it('fires runOnStart jobs once at start-up', async () => {
    h = await serviceHarness();
    const config = h.config({ jobs: { supply: { schedule: '0 0 1 1 *', runOnStart: true } } });
    const svc = await h.start(config);
    await waitFor(
      async () => (await jobRuns(svc)).some((r) => r.status === 'succeeded'),
      10_000,
      'the start-up run',
    );
    expect(await jobRuns(svc)).toHaveLength(1);
    expect((await jobRuns(svc))[0]!.scope).toMatch(/^slot /);
  });
});

describe('a first rewards backfill at start', () => {
  const rewards = (nodeIds: string[]) => ({
    schedule: '0 0 1 1 *',
    addresses: [demoAddress('validator-1')],
    nodeIds,
    currency: 'eur',
  });

  it('runs the rewards job at start while a configured subject was never read, and only then', async () => {
    h = await serviceHarness();
    const config = h.config({ jobs: { rewards: rewards([]) } });
    const first = await h.start(config);
    await waitFor(
      async () => (await jobRuns(first)).some((r) => r.job === 'rewards' && r.status === 'succeeded'),
      15_000,
      'the first backfill run',
    );
    await first.close();
    // Every batch read: a restart waits for the schedule.
    const again = await h.start(config);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await jobRuns(again)).filter((r) => r.job === 'rewards')).toHaveLength(1);
    await again.close();
    // A node id added is a batch never read: read at start again.
    const added = await h.start(h.config({ jobs: { rewards: rewards([demoNodeId('node-1')]) } }));
    await waitFor(
      async () =>
        (await jobRuns(added)).filter((r) => r.job === 'rewards' && r.status === 'succeeded').length === 2,
      15_000,
      'the added batch read at start',
    );
  });
});
