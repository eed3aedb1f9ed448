/**
 * The soak of test/soak/soak.ts, short, in the fault suite (`npm run test:faults`, both stores):
 * `start` with every job on schedules of seconds against the simulator and a private Redis. The
 * long one is `npm run test:soak` (10 minutes by default). SOAK_SECONDS sets this one's length.
 */
import { expect, it } from 'vitest';
import { formatSoakReport, runSoak } from './soak.js';

const seconds = Number(process.env.SOAK_SECONDS ?? 90);

it(
  `start with every job on schedules of seconds for ${seconds} s: nothing keeps growing, no run fails or is missed, SIGTERM exits 0`,
  async () => {
    const report = await runSoak({ durationMs: seconds * 1000 });
    const text = formatSoakReport(report);
    console.log(text);
    expect(report.problems, text).toEqual([]);
    expect(report.exitCode).toBe(0);
  },
  seconds * 1000 + 240_000,
);
