/**
 * The soak of test/soak/soak.ts, short, in the fault suite (`npm run test:faults`, both stores):
 * `start` with every job on schedules of seconds against the simulator and a private Redis, 60 s of
 * warm-up then 90 s judged on their second half, with a retention of a minute and the maintenance job
 * every 10 s, so that the database size is judged too. The long one is `npm run test:soak` (10 minutes by
 * default). SOAK_SECONDS sets this one's judged length.
 */
import { expect, it } from 'vitest';
import { formatSoakReport, runSoak } from './soak.js';

const seconds = Number(process.env.SOAK_SECONDS ?? 90);
/** Short enough that the database levels off within the warm-up, so its size is judged too. */
const RETENTION = '1m';
/** Unjudged: a 90 s soak's second half would otherwise still see the process warm up. */
const WARMUP_MS = 60_000;

it(
  `start with every job on schedules of seconds for ${seconds} s and a retention of ${RETENTION}: nothing keeps growing (the database included), no run fails or is missed, SIGTERM exits 0`,
  async () => {
    const report = await runSoak({ durationMs: seconds * 1000, warmupMs: WARMUP_MS, retention: RETENTION });
    const text = formatSoakReport(report);
    console.log(text);
    expect(report.problems, text).toEqual([]);
    expect(report.exitCode).toBe(0);
  },
  WARMUP_MS + seconds * 1000 + 240_000,
);
