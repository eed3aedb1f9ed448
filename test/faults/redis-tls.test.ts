/**
 * `rediss://` whose handshake fails (issue 34, D12), under `start`: a redis-server of the test's own
 * that listens only on TLS, reached with a CA that did not sign its certificate, or under a name its
 * certificate does not hold. Before: a `worker error` line at every reconnect, and SIGTERM took 12 s
 * and abandoned the worker. Now: one line per cause when it starts (the connection's, naming
 * REDIS_TLS_CA_FILE or the name), then at most one a minute, no `worker error`; SIGTERM stops the
 * process within its deadline, exit 0, nothing abandoned.
 *
 * Counted, not timed: lines over a window; CPU and the time SIGTERM took are printed as figures.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RedisProcess } from '../support/redis-process.js';
import { startTlsRedis } from '../support/redis-server.js';
import { type ServiceHarness, serviceHarness } from '../support/service.js';
import { makeTestCa, type TestCa } from '../support/test-ca.js';
import { cpuSeconds, linesMatching } from './backend-support.js';
import { sleep } from './support.js';

let ca: TestCa;
const servers: RedisProcess[] = [];
let h: ServiceHarness | undefined;

async function tlsRedis(server?: { cert: string; key: string }): Promise<RedisProcess> {
  const redis = await startTlsRedis(ca, server);
  servers.push(redis);
  return redis;
}

beforeAll(() => {
  ca = makeTestCa();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const s of servers.splice(0)) await s.kill();
});
afterAll(() => ca?.cleanup());

const cases = [
  {
    cause: 'a CA that did not sign its certificate',
    server: () => tlsRedis(),
    caFile: () => ca.otherCaFile,
    named: /REDIS_TLS_CA_FILE|not signed|certificate/i,
  },
  {
    cause: 'a name its certificate does not hold',
    server: () => tlsRedis({ cert: ca.elsewhereCert, key: ca.elsewhereKey }),
    caFile: () => ca.caFile,
    named: /127\.0\.0\.1|name|altname|Hostname/i,
  },
];

describe('rediss:// whose handshake fails', () => {
  for (const c of cases) {
    it(`${c.cause}: one line for the cause, no worker error lines, SIGTERM stops it within its deadline, nothing abandoned`, async () => {
      const redis = await c.server();
      h = await serviceHarness();
      const { proc } = await h.spawnStart(
        { jobs: { supply: { schedule: '*/2 * * * * *', runOnStart: true } } },
        {
          REDIS_URL: `rediss://127.0.0.1:${redis.port}`,
          REDIS_TLS_CA_FILE: c.caFile(),
          REDIS_TLS_CERT_FILE: ca.clientCert,
          REDIS_TLS_KEY_FILE: ca.clientKey,
          LOG_FORMAT: 'json',
          LOG_LEVEL: 'info',
        },
      );
      await proc.waitForOutput(/glacier-collector started/, 60_000);
      const from = proc.output().length;
      const cpu0 = cpuSeconds(proc.child.pid!);
      const t0 = Date.now();
      await sleep(20_000);
      const seconds = (Date.now() - t0) / 1000;
      const cpu = (cpuSeconds(proc.child.pid!) - cpu0) / seconds;
      const all = proc.output();
      const during = all.slice(from);
      const lines = during.split('\n').filter((l) => l.length > 0);
      const tlsLines = all.split('\n').filter((l) => /tls|certificate|altname/i.test(l));
      console.info(
        `D12 figures (${c.cause}): ${lines.length} lines in ${seconds.toFixed(0)} s after start (${tlsLines.length} naming TLS since start); CPU ${(cpu * 100).toFixed(1)} % of a core`,
      );
      expect(all).toMatch(c.named);
      expect(linesMatching(all, /^worker error$/)).toEqual([]);
      // The cause's line when it started; at most one a minute after (and the epoch check's).
      expect(tlsLines.length, tlsLines.join('\n')).toBeGreaterThan(0);
      expect(tlsLines.length, tlsLines.join('\n')).toBeLessThanOrEqual(3);
      expect(lines.length, lines.join('\n')).toBeLessThanOrEqual(4);

      const stopAt = Date.now();
      proc.child.kill('SIGTERM');
      expect(await proc.exited).toBe(0);
      console.info(
        `D12 figures (${c.cause}): SIGTERM to exit ${((Date.now() - stopAt) / 1000).toFixed(1)} s (shutdownGrace 5 s)`,
      );
      expect(proc.output()).not.toMatch(/abandon/);
    }, 120_000);
  }
});
