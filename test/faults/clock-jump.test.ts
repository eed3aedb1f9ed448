import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { type CliProcess, runCli, spawnCli, stopCli } from '../support/cli.js';
import { skipUnless } from '../support/prometheus.js';
import { freePort } from '../support/redis-server.js';
import { type ServiceHarness, serviceHarness, waitFor } from '../support/service.js';
import { queryAt } from '../support/store.js';

/**
 * The system clock steps (NTP) under a running `start`: libfaketime shifts the wall clock of that
 * process only (its monotonic clock runs on), through a file the test rewrites, so no other process
 * of the machine sees it. The container's time zone (TZ) differs from `service.timezone`. Without
 * libfaketime (apt-get install faketime) the test is skipped, saying why, and fails under CI.
 */
const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
const HOUR_S = 3_600;
const DAY_MS = 86_400_000;

interface Run {
  scope: string;
  status: string;
}
/** The slot of a service run (`slot <ISO>`), in ms. */
const slotOf = (r: Run) => Date.parse(r.scope.replace(/^slot /, ''));

describe.skipIf(
  skipUnless(existsSync(LIBFAKETIME), `libfaketime (${LIBFAKETIME}; apt-get install faketime)`),
)('the clock steps under the service', () => {
  it('an hour forward then back: no slot twice, the next slot runs after each step, the skipped hour runs once the clock is back over it', async () => {
    const h = await serviceHarness();
    let proc: CliProcess | undefined;
    try {
      await stepTheClock(h, (p) => {
        proc = p;
      });
    } finally {
      await stopCli(proc);
      await h.close();
    }
    // Its own waits (a start, two runs, two steps) bound it, not the default 30 s.
  }, 120_000);
});

/** The test's body: starts `start` under libfaketime and steps its clock. */
async function stepTheClock(h: ServiceHarness, started: (p: CliProcess) => void): Promise<void> {
  const offset = join(h.dir, 'faketime');
  writeFileSync(offset, '+0');
  const configPath = join(h.dir, 'glacier.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      jobs: { supply: { schedule: '*/2 * * * * *' } },
      service: { queuePrefix: h.prefix, timezone: 'UTC', shutdownGrace: '2s' },
    }),
  );
  const faked = {
    LD_PRELOAD: LIBFAKETIME,
    FAKETIME_TIMESTAMP_FILE: offset,
    FAKETIME_NO_CACHE: '1',
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
    // The container's zone, 14 hours ahead of UTC: slots and the day budget still follow UTC.
    TZ: 'Pacific/Kiritimati',
  };
  const p = spawnCli(['start', '-c', configPath], {
    GLACIER_BASE_URL: h.sim.url,
    ...h.dbEnv,
    METRICS_HOST: '127.0.0.1',
    METRICS_PORT: String(await freePort()),
    ...faked,
  });
  started(p);
  await p.waitForOutput(/glacier-collector started/, 30_000);
  const location = h.location;
  const runs = () =>
    queryAt<Run>(location, "SELECT scope, status FROM job_runs WHERE job = 'supply' ORDER BY id");
  await waitFor(async () => (await runs()).length >= 2, 30_000, 'two runs');
  const beforeStep = Math.max(...(await runs()).map(slotOf));

  writeFileSync(offset, `+${HOUR_S}`);
  await p.waitForOutput(/stepped forward by 36\d\d s/, 15_000);
  await waitFor(
    async () => (await runs()).some((r) => slotOf(r) >= beforeStep + HOUR_S * 1000),
    15_000,
    'a slot after the step forward',
  );
  const afterForward = (await runs()).map(slotOf);

  writeFileSync(offset, '+0');
  await p.waitForOutput(/stepped back by 36\d\d s/, 15_000);
  // The hour the step forward skipped was never fired: its slots run now, once each.
  await waitFor(
    async () => (await runs()).some((r) => slotOf(r) > beforeStep && slotOf(r) < beforeStep + HOUR_S * 1000),
    15_000,
    'a slot of the skipped hour',
  );
  const all = await runs();
  expect(new Set(all.map((r) => r.scope)).size).toBe(all.length);
  expect(all.map(slotOf).filter((t) => afterForward.includes(t))).toEqual(afterForward);
  expect(all.every((r) => r.status === 'succeeded' || r.status === 'running')).toBe(true);
  // The missed slots of the step forward are one line, not one per slot.
  expect(p.output().match(/slots missed/g)?.length ?? 0).toBeLessThanOrEqual(1);

  // The day budget's window is the UTC day, whatever TZ says.
  const redis = new Redis('redis://127.0.0.1:6379');
  try {
    const keys = await redis.keys(`${h.prefix}:budget:cu:d*`);
    expect(keys).toContain(`${h.prefix}:budget:cu:d${Math.floor(Date.now() / DAY_MS)}`);
  } finally {
    redis.disconnect();
  }
  p.child.kill('SIGTERM');
  expect(await p.exited).toBe(0);

  // `status` reads the schedules in service.timezone too: the daily maintenance at 03:17 UTC.
  const status = await runCli(['status', '--json'], { ...h.dbEnv, ...faked, GLACIER_CONFIG: configPath });
  const maintenance = (JSON.parse(status.stdout) as { jobs: { job: string; nextRunAt: string }[] }).jobs.find(
    (j) => j.job === 'maintenance',
  );
  expect(maintenance?.nextRunAt).toMatch(/T03:17:00\.000Z$/);
}
