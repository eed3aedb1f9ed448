/**
 * Sentinels that lie or freeze (issue 34, D2, D6, D11), under `start` given only REDIS_SENTINELS:
 * - a sentinel answering `get-master-addr-by-name` with port 99999 (a small RESP server, the lie
 *   being the fault): before, 100 % of a core, RSS +35 MB/s, SIGTERM ignored; now the answer is
 *   refused, the sentinels are asked again with back-off, a line says so, and SIGTERM stops it;
 * - one naming a host of 1 MiB: before, logged whole (13.6 MB in 10 s); now bounded, and once the
 *   sentinel names the real master the service connects and runs;
 * - a real redis-sentinel, SIGSTOPped, listed first before a healthy one: before, no connection and
 *   no line for good (ioredis gives sentinel commands no timeout); now it is skipped for the next
 *   within seconds, and a line names it.
 *
 * Counted, not timed: lines and bytes of output over a window; CPU, memory and the time to resume
 * are printed as figures.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSentinel, startFakeSentinel } from '../support/fake-sentinel.js';
import { type RedisProcess, spawnRedis } from '../support/redis-process.js';
import { freePort, type PrivateRedis, startPrivateRedis } from '../support/redis-server.js';
import { type ServiceHarness, serviceHarness, waitFor } from '../support/service.js';
import { tempDir } from '../support/tmp.js';
import { cpuSeconds } from './backend-support.js';
import { query, sleep } from './support.js';

const MASTER = 'mymaster';
let master: PrivateRedis;
let h: ServiceHarness | undefined;
let fake: FakeSentinel | undefined;
const sentinels: RedisProcess[] = [];
let sentinelDir: { dir: string; cleanup: () => void };

beforeAll(async () => {
  master = await startPrivateRedis();
  sentinelDir = tempDir('glacier-sentinel-answers-');
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await fake?.close();
  fake = undefined;
  for (const s of sentinels.splice(0)) await s.kill();
});
afterAll(async () => {
  await master?.stop();
  sentinelDir?.cleanup();
});

const succeeded = async (location: string) =>
  (
    await query<{ n: number }>(
      location,
      "SELECT COUNT(*) AS n FROM job_runs WHERE job = 'supply' AND status = 'succeeded'",
    )
  )[0]!.n;

const rssKiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

/** `start` with only the sentinels, a supply run every 2 s. */
async function startWithSentinels(list: string) {
  h = await serviceHarness({ redisUrl: master.url });
  const started = await h.spawnStart(
    { jobs: { supply: { schedule: '*/2 * * * * *', runOnStart: true } } },
    { REDIS_SENTINELS: list, REDIS_SENTINEL_MASTER: MASTER, LOG_FORMAT: 'json', LOG_LEVEL: 'info' },
  );
  await started.proc.waitForOutput(/glacier-collector started/, 60_000);
  return started;
}

/** The fault's window: lines, bytes, CPU and memory growth of the process over `ms`. */
async function watch(pid: number, output: () => string, ms: number) {
  const from = output().length;
  const cpu0 = cpuSeconds(pid);
  const rss0 = rssKiB(pid);
  const t0 = Date.now();
  await sleep(ms);
  const seconds = (Date.now() - t0) / 1000;
  const text = output().slice(from);
  const lines = text.split('\n').filter((l) => l.length > 0);
  return {
    lines,
    bytes: text.length,
    cpu: (cpuSeconds(pid) - cpu0) / seconds,
    rssGrowthMiB: (rssKiB(pid) - rss0) / 1024,
    seconds,
  };
}

describe('a lying or frozen sentinel', () => {
  it('port 99999: the answer is refused, a line says so at most once a minute, the process stays idle, SIGTERM stops it', async () => {
    fake = await startFakeSentinel('127.0.0.1', '99999');
    const { proc } = await startWithSentinels(fake.address);
    const w = await watch(proc.child.pid!, proc.output, 20_000);
    console.info(
      `D2 figures: ${w.lines.length} lines (${w.bytes} bytes) in ${w.seconds.toFixed(0)} s; CPU ${(w.cpu * 100).toFixed(1)} % of a core; RSS ${w.rssGrowthMiB.toFixed(1)} MiB more; asked ${fake.asked()} times`,
    );
    expect(proc.output()).toMatch(/port \\?"99999\\?" is not in 1\.\.65535/);
    // One line when it started (the outage), one a minute at most after: never a flood.
    expect(w.lines.length, w.lines.join('\n')).toBeLessThanOrEqual(4);
    // Asked again with back-off (up to 10 s), not in a loop.
    expect(fake.asked()).toBeLessThan(40);

    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
  }, 180_000);

  it('a host of 1 MiB: logged bounded; once the sentinel names the real master, the service connects and runs', async () => {
    fake = await startFakeSentinel('h'.repeat(1024 * 1024), String(master.port));
    const { proc } = await startWithSentinels(fake.address);
    const w = await watch(proc.child.pid!, proc.output, 15_000);
    console.info(
      `D11 figures: ${w.lines.length} lines (${w.bytes} bytes) in ${w.seconds.toFixed(0)} s; CPU ${(w.cpu * 100).toFixed(1)} % of a core`,
    );
    expect(proc.output()).toMatch(/is not a host name or IP address/);
    expect(
      Math.max(
        ...proc
          .output()
          .split('\n')
          .map((l) => l.length),
      ),
    ).toBeLessThan(4_000);
    expect(w.lines.length).toBeLessThanOrEqual(4);

    const before = await succeeded(h!.location);
    fake.answer('127.0.0.1', String(master.port));
    const fixedAt = Date.now();
    await waitFor(
      async () => (await succeeded(h!.location)) > before,
      60_000,
      'a run once the answer is right',
    );
    console.info(
      `D11 figures: a run succeeded ${((Date.now() - fixedAt) / 1000).toFixed(1)} s after the answer was right`,
    );
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
  }, 180_000);

  it('a frozen first sentinel (SIGSTOP) is skipped for the next, which names the master; a line names the frozen one', async () => {
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const conf = join(sentinelDir.dir, `sentinel-${port}.conf`);
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${sentinelDir.dir}`,
          `sentinel monitor ${MASTER} 127.0.0.1 ${master.port} 1`,
          '',
        ].join('\n'),
      );
      // redis-server in sentinel mode: the same program as Debian's redis-sentinel, which not every image has.
      sentinels.push(await spawnRedis('redis-server', [conf, '--sentinel'], port));
    }
    const [frozen, healthy] = sentinels as [RedisProcess, RedisProcess];
    process.kill(frozen.pid, 'SIGSTOP');
    try {
      const { proc } = await startWithSentinels(`127.0.0.1:${frozen.port},127.0.0.1:${healthy.port}`);
      const startedAt = Date.now();
      await waitFor(
        async () => (await succeeded(h!.location)) > 0,
        60_000,
        'a run through the second sentinel',
      );
      console.info(
        `D6 figures: a first run succeeded ${((Date.now() - startedAt) / 1000).toFixed(1)} s after start`,
      );
      expect(proc.output()).toContain(`sentinel 127.0.0.1:${frozen.port}`);
      const w = await watch(proc.child.pid!, proc.output, 10_000);
      console.info(
        `D6 figures: ${w.lines.filter((l) => /sentinel/i.test(l)).length} sentinel lines in ${w.seconds.toFixed(0)} s; CPU ${(w.cpu * 100).toFixed(1)} % of a core`,
      );
      proc.child.kill('SIGTERM');
      expect(await proc.exited).toBe(0);
    } finally {
      process.kill(frozen.pid, 'SIGCONT');
    }
  }, 180_000);
});
