/**
 * How far the first backfill of each rewards batch got, read back from its cursors, with the
 * estimate of report/backfill.ts (apart: `plan` estimates without a database, and loads none).
 */

import type { Config } from '../config/index.js';
import { JOB_NAMES } from '../kernel/job-names.js';
import { readCron } from '../queue/schedule.js';
import { isoOfSeconds } from '../runtime/clock.js';
import { readCursor, type Store } from '../store/index.js';
import { backfillComplete, type NewestFirstCursor } from '../sync/newest-first.js';
import { rewardStreams } from '../sync/reward-streams.js';
import { canonicalNetwork } from '../upstream/endpoints.js';
import {
  assumedPages,
  type BatchBackfill,
  estimateBackfill,
  historyStart,
  pagesLeftOf,
  type RewardsBackfill,
} from './backfill.js';

/** The backfill of the configured rewards batches, or undefined without a rewards job. */
export async function collectRewardsBackfill(
  config: Config,
  store: Store | undefined,
  o: {
    nowMs: number;
    spentToday: number;
    history?: string | undefined;
    /** When the job's next run starts (its next slot), unless one is going: the estimate counts from it. */
    nextRunMs?: number | undefined;
  },
): Promise<RewardsBackfill | undefined> {
  const job = config.jobs.rewards;
  if (!job) return undefined;
  const startMs = historyStart(o.history, o.nowMs);
  const startSec = startMs / 1000;
  const nowSec = o.nowMs / 1000;
  const batches: BatchBackfill[] = [];
  for (const [i, s] of rewardStreams(job).entries()) {
    const cursor = store ? await readCursor<NewestFirstCursor>(store, JOB_NAMES.rewards, s.scope) : undefined;
    const p = cursor?.backfill;
    const started = cursor !== undefined;
    const complete = backfillComplete(cursor);
    const estimated =
      p?.oldest && p.newest
        ? pagesLeftOf(
            { items: p.items, oldestSec: p.oldest.ts, newestSec: p.newest.ts },
            startSec,
            job.pageSize,
          )
        : undefined;
    batches.push({
      kind: s.kind,
      batch: i + 1,
      ids: s.ids.length,
      firstId: s.ids[0] ?? '',
      started,
      complete,
      pages: p?.pages ?? 0,
      rewards: p?.items ?? 0,
      oldestReward: p?.oldest ? isoOfSeconds(p.oldest.ts) : null,
      pagesLeft: complete
        ? 0
        : (estimated ??
          assumedPages(s.kind, s.ids.length, (p?.oldest?.ts ?? nowSec) - startSec, job.pageSize)),
    });
  }
  const budget = {
    computeUnitsPerMinute: config.budget.computeUnitsPerMinute,
    computeUnitsPerDay: config.budget.computeUnitsPerDay,
    spentToday: o.spentToday,
  };
  return {
    network: canonicalNetwork(job.network),
    currency: job.currency,
    historyStart: new Date(startMs).toISOString(),
    complete: batches.every((b) => b.complete),
    batches,
    budget,
    estimate: estimateBackfill(batches, {
      perMinute: budget.computeUnitsPerMinute,
      perDay: budget.computeUnitsPerDay,
      spentToday: o.spentToday,
      nowMs: o.nowMs,
      maxPages: job.maxPages,
      runsPerDay: job.enabled ? readCron(job.schedule, config.service.timezone).runsPerDay() : 0,
      startMs: o.nextRunMs,
    }),
  };
}
