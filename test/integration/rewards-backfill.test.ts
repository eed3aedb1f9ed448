import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jobs } from '../../jobs/index.js';
import { type RewardsPayload, rewards } from '../../jobs/rewards.js';
import { demoAddress, demoNodeId } from '../../src/commands/demo-config.js';
import { type Config, loadConfig } from '../../src/config/index.js';
import { runHandler } from '../../src/kernel/index.js';
import type { RewardsBackfill } from '../../src/report/backfill.js';
import { collectRewardsBackfill } from '../../src/report/backfill-progress.js';
import { collectStatus } from '../../src/report/status.js';
import { runCli } from '../support/cli.js';
import { type Collector, startCollector } from '../support/collector.js';
import { value } from '../support/exposition.js';
import { rig } from '../support/metrics-rig.js';
import { tempDir } from '../support/tmp.js';

/**
 * A first rewards backfill you can watch: `status` reads each batch's progress from its cursor,
 * and it is the same whether the backfill ran in one go or was interrupted and resumed.
 */

const addresses = [demoAddress('backfill-a-17'), demoAddress('backfill-b-17')];
const nodeId = demoNodeId('backfill-node-17');
const PAGE = 25;

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

function configOf(maxPages: number): Config {
  return loadConfig({
    env: {},
    cwd: '/nonexistent',
    file: {
      jobs: {
        rewards: { schedule: '0 * * * *', addresses, nodeIds: [nodeId], pageSize: PAGE, maxPages },
      },
      budget: { computeUnitsPerMinute: 1_000, computeUnitsPerDay: 100_000 },
    },
  });
}

function payloadOf(maxPages: number): RewardsPayload {
  return { network: 'mainnet', addresses, nodeIds: [nodeId], currency: 'usd', pageSize: PAGE, maxPages };
}

/** The truth of each batch, newest first: the addresses' rewards, then the node id's. */
function truth(c: Collector) {
  return [
    c.sim.truth.rewards('mainnet', { addresses }, 'usd'),
    c.sim.truth.rewards('mainnet', { nodeIds: [nodeId] }, 'usd'),
  ];
}

async function backfill(c: Collector, maxPages = 100): Promise<RewardsBackfill> {
  const b = await collectRewardsBackfill(configOf(maxPages), c.store, {
    nowMs: c.clock.now(),
    spentToday: 0,
    history: '730d',
  });
  return b!;
}

/** What a batch's progress must say once `pages` pages of its truth were read. */
function progressAfter(list: readonly { endTimestamp: number }[], pages: number) {
  const read = list.slice(0, pages * PAGE);
  return {
    pages,
    rewards: read.length,
    oldestReward: new Date(read.at(-1)!.endTimestamp * 1000).toISOString(),
    complete: read.length === list.length,
  };
}

const progressOf = (b: RewardsBackfill) =>
  b.batches.map(({ pages, rewards, oldestReward, complete }) => ({ pages, rewards, oldestReward, complete }));

describe('rewards backfill progress', () => {
  it('reports the same progress interrupted and resumed as in one go, and finishes', async () => {
    const c = await startCollector();
    closers.push(c.close);
    const lists = truth(c);
    const fullPages = lists.map((l) => Math.ceil(l.length / PAGE));
    expect(Math.min(...fullPages)).toBeGreaterThan(4);

    // Nothing read yet: not started, every page still to read (at the assumed rate).
    const before = await backfill(c);
    expect(before.batches.map((b) => [b.kind, b.ids, b.started, b.complete])).toEqual([
      ['addresses', 2, false, false],
      ['nodeIds', 1, false, false],
    ]);
    expect(before.estimate.pagesLeft).toBeGreaterThan(0);

    // Run 1: maxPages 2 per batch.
    expect((await runHandler('rewards', rewards, payloadOf(2), c.deps)).status).toBe('succeeded');
    const afterTwo = await backfill(c);
    expect(progressOf(afterTwo)).toEqual(lists.map((l) => progressAfter(l, 2)));

    // Run 2 is interrupted on its 3rd page of the first batch (Ctrl-C, a deploy): it fails, and
    // the pages it committed stay, counted once.
    const abort = new AbortController();
    const interrupted = await runHandler('rewards', rewards, payloadOf(100), c.deps, {
      signal: abort.signal,
      progress: {
        update: (_task, done) => {
          if (done === 3) abort.abort(new Error('interrupted'));
        },
        end: () => undefined,
      },
    });
    expect(interrupted.status).toBe('failed');
    const cut = await backfill(c);
    const readPages = cut.batches[0]!.pages;
    expect(readPages).toBeGreaterThanOrEqual(3);
    expect(progressOf(cut)).toEqual([progressAfter(lists[0]!, readPages), progressAfter(lists[1]!, 2)]);
    expect(cut.complete).toBe(false);
    // The estimate: pages left from the density read so far, 100 CU each, at 1,000 CU/minute.
    expect(cut.estimate.computeUnitsLeft).toBe(cut.estimate.pagesLeft * 100);
    expect(cut.estimate.budgetSeconds).toBe(Math.ceil((cut.estimate.computeUnitsLeft / 1_000) * 60));

    // Resumed: it finishes, with the progress of a backfill that ran in one go.
    expect((await runHandler('rewards', rewards, payloadOf(100), c.deps)).status).toBe('succeeded');
    const done = await backfill(c);
    expect(progressOf(done)).toEqual(lists.map((l, i) => progressAfter(l, fullPages[i]!)));
    expect(done.complete).toBe(true);
    expect(done.estimate).toMatchObject({ pagesLeft: 0, computeUnitsLeft: 0, seconds: 0, finishesAt: null });

    const other = await startCollector();
    closers.push(other.close);
    expect((await runHandler('rewards', rewards, payloadOf(100), other.deps)).status).toBe('succeeded');
    expect(progressOf(await backfill(other))).toEqual(progressOf(done));

    // New rewards later are read above the mark: the backfill's figures stay as they were.
    c.clock.advance(10 * 86_400_000);
    expect((await runHandler('rewards', rewards, payloadOf(100), c.deps)).status).toBe('succeeded');
    expect(progressOf(await backfill(c))).toEqual(progressOf(done));
  });

  it('is in status and its JSON, with the budget the estimate holds to', async () => {
    const c = await startCollector();
    closers.push(c.close);
    expect((await runHandler('rewards', rewards, payloadOf(1), c.deps)).status).toBe('succeeded');
    const status = await collectStatus(jobs, configOf(1), c.store, new Date(c.clock.now()), {
      history: '730d',
    });
    const b = status.rewardsBackfill!;
    // Today's spend (2 requests of 100 CU) comes off the day's budget.
    expect(b.budget).toEqual({ computeUnitsPerMinute: 1_000, computeUnitsPerDay: 100_000, spentToday: 200 });
    expect(b.historyStart).toBe(new Date(c.clock.now() - 730 * 86_400_000).toISOString());
    expect(b.batches.map((x) => x.pages)).toEqual([1, 1]);
    // maxPages 1 on an hourly schedule: the schedule, not the budget, sets the pace.
    expect(b.estimate.limitedBy).toBe('schedule');
    expect(JSON.parse(JSON.stringify(status)).rewardsBackfill).toEqual(b);
    const { formatStatus } = await import('../../src/report/status.js');
    const text = formatStatus(status);
    expect(text).toContain('rewards backfill (mainnet, usd):');
    expect(text).toMatch(/1 \(addresses\)\s+2\s+avax1\S+\s+running\s+1\s+25\s/);
  });

  it('exposes per batch whether the backfill is complete in /metrics', async () => {
    const r = await rig(closers);
    const small = (config: Config) => ({
      ...config,
      jobs: { ...config.jobs, rewards: { ...config.jobs.rewards!, pageSize: 10, maxPages: 1 } },
    });
    expect((await r.run('rewards', { adjust: small })).status).toBe('succeeded');
    const labels = (kind: string, batch: string) => ({ network: 'mainnet', kind, batch });
    let { families } = await r.scrape();
    expect(value(families, 'glacier_rewards_backfill_complete', labels('addresses', '1'))).toBe(0);
    expect(value(families, 'glacier_rewards_backfill_complete', labels('node_ids', '2'))).toBe(0);
    expect((await r.run('rewards')).status).toBe('succeeded');
    ({ families } = await r.scrape());
    expect(value(families, 'glacier_rewards_backfill_complete', labels('addresses', '1'))).toBe(1);
    expect(value(families, 'glacier_rewards_backfill_complete', labels('node_ids', '2'))).toBe(1);
  });

  it('status --json and plan --history through the CLI; a bad --history is exit 2', async () => {
    const c = await startCollector();
    closers.push(c.close);
    expect((await runHandler('rewards', rewards, payloadOf(1), c.deps)).status).toBe('succeeded');
    const dir = tempDir('glacier-backfill-');
    closers.push(dir.cleanup);
    const path = join(dir.dir, 'glacier-collector.json');
    writeFileSync(
      path,
      JSON.stringify({
        jobs: {
          rewards: { schedule: '0 * * * *', addresses, nodeIds: [nodeId], pageSize: PAGE, maxPages: 1 },
        },
      }),
    );
    const env = { ...c.dbEnv, GLACIER_CONFIG: path };
    const [status, plan, badStatus, badPlan] = await Promise.all([
      runCli(['status', '--json', '--history', '730d'], env),
      runCli(['plan', '--history', '730d'], env),
      runCli(['status', '--history', '2y'], env),
      runCli(['plan', '--history', 'forever'], env),
    ]);
    expect(status.code, status.stderr).toBe(0);
    const json = JSON.parse(status.stdout);
    expect(
      json.rewardsBackfill.batches.map((b: { pages: number; complete: boolean }) => [b.pages, b.complete]),
    ).toEqual([
      [1, false],
      [1, false],
    ]);
    expect(json.rewardsBackfill.estimate.pagesLeft).toBeGreaterThan(0);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/rewards first backfill: 730 days of history .* CU, about /);
    for (const bad of [badStatus, badPlan]) {
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("option '--history <days>' argument");
      expect(bad.stderr).toContain('not a number of days; use e.g. 730d');
    }
  });
});
