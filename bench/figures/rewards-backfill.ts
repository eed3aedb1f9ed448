/**
 * A first rewards backfill bound by the budget: 75 addresses (about 10,000 rewards, ~100 pages of
 * one batch) against a simulator key of 2,000 CU per minute (20 rewards pages), with the
 * collector's shared budget (Redis, the service's) set to the same. It starts on an aligned minute.
 *
 * - wall time against the minimum the budget allows: k = ⌈CU ÷ budget per minute⌉ aligned
 *   windows, so the last page cannot start before (k − 1) minutes, plus that last window's pages at
 *   the unconstrained pace of the first window. Goal ≤ 1.1×, and no 429 from the API.
 * - the estimate `status` gives one minute in (after the first window's pages: the density it reads
 *   from), beside the time the backfill then really took. Goal within 20 %. The history start is
 *   the simulator's (two years before its epoch), given as `--history` would give it.
 * - CPU time of the collector process against the wall time.
 *
 * One run whatever `--runs` (it takes minutes by design); `--scale` scales the addresses.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { Agent } from 'undici';
import { type RewardsPayload, rewards } from '../../jobs/rewards.js';
import { demoAddress } from '../../src/commands/demo-config.js';
import { loadConfig } from '../../src/config/index.js';
import { runHandler } from '../../src/kernel/index.js';
import { createSharedBudget } from '../../src/queue/budget.js';
import { redisSharedParts } from '../../src/queue/redis-backend.js';
import { collectRewardsBackfill } from '../../src/report/backfill-progress.js';
import { systemClock } from '../../src/runtime/clock.js';
import { createLogger } from '../../src/runtime/logger.js';
import { openStore } from '../../src/store/index.js';
import { createDataApiClient, endpoints } from '../../src/upstream/index.js';
import { deletePrefix } from '../../test/support/service.js';
import { startSimulatorProcess } from '../../test/support/sim-process.js';
import { type Figure, figure, scaled } from '../lib.js';
import { scratch } from '../support.js';

const PER_MINUTE = 2_000;
const PER_DAY = 10_000_000;
const PAGE = 100;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** The simulator's reward histories start this long before its epoch (src/simulator/data/rewards.ts). */
const SIM_HISTORY_DAYS = 730;
const REDIS_URL = 'redis://127.0.0.1:6379';

export async function run(): Promise<Figure[]> {
  const apiKey = `bench-backfill-${randomUUID()}`;
  const epochMs = Date.now();
  const historyStartMs = Math.floor(epochMs / DAY_MS) * DAY_MS - SIM_HISTORY_DAYS * DAY_MS;
  const sim = await startSimulatorProcess({
    seed: 11,
    epochMs,
    apiKeys: { [apiKey]: { tier: 'Free', computeUnitsPerMinute: PER_MINUTE } },
  });
  const dirs = scratch('rewards-backfill');
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  const prefix = `glacier-bench-backfill:${randomUUID()}`;
  const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
  const log = createLogger({ level: 'silent', pretty: false });
  const path = dirs.path('backfill.db');
  const store = await openStore({ kind: 'sqlite', path });
  // A second connection reads the progress while the run writes, as `status` would.
  const reader = await openStore({ kind: 'sqlite', path });
  try {
    await redis.connect();
    const budget = createSharedBudget({
      backend: redisSharedParts(redis, prefix),
      prefix: 'budget',
      perMinute: PER_MINUTE,
      perDay: PER_DAY,
      clock: systemClock,
      log,
    });
    const attempts: { at: number; status: number | undefined }[] = [];
    const client = createDataApiClient({
      baseUrl: sim.url,
      apiKey,
      dispatcher,
      clock: systemClock,
      budget,
      onAttempt: (e) => attempts.push({ at: Date.now(), status: e.status }),
    });
    const addresses = Array.from({ length: scaled(75, 4) }, (_, i) => demoAddress(`backfill-bench-${i}`));
    const payload: RewardsPayload = {
      network: 'mainnet',
      addresses,
      nodeIds: [],
      currency: 'usd',
      pageSize: PAGE,
      maxPages: 10_000,
    };
    const config = loadConfig({
      env: {},
      cwd: '/nonexistent',
      file: {
        jobs: { rewards: { schedule: '0 * * * *', addresses, pageSize: PAGE, maxPages: 10_000 } },
        budget: { computeUnitsPerMinute: PER_MINUTE, computeUnitsPerDay: PER_DAY },
      },
    });

    // Start on an aligned minute, as the budget windows are.
    await sleep(MINUTE_MS - (Date.now() % MINUTE_MS) + 50);
    const cpu0 = process.cpuUsage();
    const simCpu0 = sim.cpuMs();
    const t0 = Date.now();
    // Half a minute in, the first window's pages are read and the run waits for the next minute.
    const sample = sleep(30_000).then(async () => {
      const at = Date.now();
      const b = await collectRewardsBackfill(config, reader, {
        nowMs: at,
        spentToday: 0,
        history: `${(at - historyStartMs) / DAY_MS}d`,
      });
      return { at, seconds: b!.estimate.seconds, pagesLeft: b!.estimate.pagesLeft };
    });
    const summary = await runHandler('rewards', rewards, payload, { client, store, log, clock: systemClock });
    const t1 = Date.now();
    const cpu = process.cpuUsage(cpu0);
    const simCpuMs = sim.cpuMs() - simCpu0;
    if (summary.status !== 'succeeded') throw new Error(`the backfill failed: ${summary.error}`);
    const estimate = await sample;
    if (estimate.at >= t1) throw new Error('the backfill ended before the estimate was taken');

    const pages = attempts.filter((a) => a.status === 200).length;
    const tooMany = attempts.filter((a) => a.status === 429).length;
    const failed = attempts.length - pages;
    const perWindow = PER_MINUTE / endpoints.rewards.computeUnits;
    const windows = Math.ceil(pages / perWindow);
    const firstBurstMs = (attempts[Math.min(perWindow, attempts.length) - 1]?.at ?? t0) - t0;
    const lastWindowPages = pages - (windows - 1) * perWindow;
    const minimumMs = (windows - 1) * MINUTE_MS + (firstBurstMs * lastWindowPages) / perWindow;
    const wallMs = t1 - t0;
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const touched = new Set(attempts.map((a) => Math.floor(a.at / MINUTE_MS))).size;
    const note = `${addresses.length} addresses, ${pages} pages (${pages * endpoints.rewards.computeUnits} CU) at ${PER_MINUTE} CU/minute: ${windows} windows needed, ${touched} used; ${attempts.length} attempts, ${failed} failed, ${tooMany} × 429; CPU: collector ${cpuMs.toFixed(0)} ms, simulator ${simCpuMs.toFixed(0)} ms`;
    return [
      figure({
        id: 'rewards-backfill.wall',
        title: 'budget-bound rewards backfill: wall time vs the budget minimum',
        unit: 's',
        value: wallMs / 1000,
        baseline: minimumMs / 1000,
        baselineLabel: '(⌈CU ÷ CU/minute⌉ − 1) aligned minutes + the last window at full speed',
        goal: { max: 1.1 },
        note,
      }),
      figure({
        id: 'rewards-backfill.429',
        title: 'budget-bound rewards backfill: 429 answers',
        unit: 'answers',
        value: tooMany,
        baseline: attempts.length,
        baselineLabel: 'requests sent',
        goal: { on: 'value', max: 0 },
      }),
      figure({
        id: 'rewards-backfill.estimate',
        title: "status's time-left estimate 30 s in vs the time the backfill then took",
        unit: 's',
        value: estimate.seconds,
        baseline: (t1 - estimate.at) / 1000,
        baselineLabel: 'actual time from the estimate to the end',
        goal: { min: 0.8, max: 1.2 },
        note: `${estimate.pagesLeft} pages estimated left, ${pages - attempts.filter((a) => a.at <= estimate.at && a.status === 200).length} really read after`,
      }),
      figure({
        id: 'rewards-backfill.cpu',
        title: 'budget-bound rewards backfill: collector CPU time vs wall time',
        unit: 'ms',
        value: cpuMs,
        baseline: wallMs,
        baselineLabel: 'wall time',
        note: `simulator process ${simCpuMs.toFixed(0)} ms`,
      }),
    ];
  } finally {
    await deletePrefix(REDIS_URL, prefix).catch(() => undefined);
    redis.disconnect();
    await reader.close();
    await store.close();
    await dispatcher.destroy();
    await sim.close();
    dirs.cleanup();
  }
}
