import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import {
  CLAIM_LEASE_MS,
  decideClaim,
  FIRST_POLL_MS,
  pollDelayMs,
  retryBackoffMs,
} from '../../src/exports/policy.js';
import { exportRequest, followUpRequest, requestHash } from '../../src/exports/requests.js';
import type { ExportOperationRow, LatestClaim } from '../../src/store/index.js';
import { tempDir } from '../support/tmp.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const definition = {
  name: 'treasury',
  type: 'TRANSACTION_EXPORT_EVM' as const,
  addresses: ['0x00000000000000000000000000000000000000aa'],
  includeChains: ['43114'],
  window: 'previous-day' as const,
};

function load(exports: Record<string, unknown>) {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  const path = join(dir, 'config.json');
  writeFileSync(
    path,
    JSON.stringify({ jobs: { exports: { schedule: '0 2 * * *', definitions: [definition], ...exports } } }),
  );
  return loadConfig({ env: {}, configPath: path });
}

describe('exports settings', () => {
  it('has documented defaults', () => {
    expect(load({}).jobs.exports).toMatchObject({
      pollInterval: 30_000,
      maxPollInterval: 300_000,
      timeout: 6 * 3_600_000,
      maxRetries: 3,
      retryDelay: 600_000,
      downloadIdleTimeout: 30_000,
      downloadTimeout: 3_600_000,
      downloadAttempts: 5,
      maxWait: 1_800_000,
    });
  });

  it.each([
    ['pollInterval', '0s', 'from 1s to 1h'],
    ['pollInterval', '25d', 'from 1s to 1h'],
    ['maxPollInterval', '7h', 'from 1s to 6h'],
    ['timeout', '30s', 'from 1m to 7d'],
    ['retryDelay', '2d', 'from 1s to 1d'],
    ['downloadIdleTimeout', '500ms', 'from 1s to 10m'],
    ['downloadTimeout', '25d', 'from 10s to 1d'],
    ['maxWait', '25d', 'from 1s to 1d'],
    ['maxRetries', 11, 'a whole number from 0 to 10'],
    ['maxRetries', 1.5, 'a whole number from 0 to 10'],
    ['downloadAttempts', 0, 'a whole number from 1 to 20'],
  ])('refuses %s = %s at start-up, naming the key and the range', (key, value, range) => {
    let error: unknown;
    try {
      load({ [key]: value });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(`jobs.exports.${key} = ${JSON.stringify(value)}`);
    expect((error as Error).message).toContain(range);
  });
});

describe('export lifecycle policy', () => {
  it('reads soon after the POST, doubling up to pollInterval, then growing 1.5 times up to maxPollInterval', () => {
    const s = { pollInterval: 30_000, maxPollInterval: 300_000 };
    expect([0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 100, 10_000].map((n) => pollDelayMs(n, s))).toEqual([
      2_000, 4_000, 8_000, 16_000, 30_000, 45_000, 67_500, 101_250, 227_813, 300_000, 300_000, 300_000,
    ]);
    // A pollInterval that is a doubling of the first read is reached exactly; a short one at once.
    expect([0, 3, 4].map((n) => pollDelayMs(n, { pollInterval: 16_000, maxPollInterval: 60_000 }))).toEqual([
      2_000, 16_000, 24_000,
    ]);
    expect([0, 1].map((n) => pollDelayMs(n, { pollInterval: 1_000, maxPollInterval: 60_000 }))).toEqual([
      1_000, 1_500,
    ]);
  });

  it('spends fewer compute units than a fixed short interval, and four reads more at most than starting at pollInterval', () => {
    const s = { pollInterval: 30_000, maxPollInterval: 300_000 };
    /** Status reads until an export `ms` long is seen done. */
    const reads = (delay: (n: number) => number, ms: number) => {
      let n = 0;
      for (let t = 0; t < ms; n++) t += delay(n);
      return n;
    };
    const fixed = (_n: number) => FIRST_POLL_MS;
    const fromPollInterval = (n: number) => Math.min(300_000, 30_000 * 1.5 ** n);
    for (const ms of [5_000, 60_000, 600_000, 6 * 3_600_000]) {
      const now = reads((n) => pollDelayMs(n, s), ms);
      expect(now).toBeLessThanOrEqual(reads(fromPollInterval, ms) + 4);
      if (ms >= 60_000) expect(now).toBeLessThan(reads(fixed, ms) / 2);
    }
    // A small export (done in 5 s) is seen done at the second read, 6 s after the POST, not at 30 s.
    expect(reads((n) => pollDelayMs(n, s), 5_000)).toBe(2);
  });

  it('backs retries off exponentially with jitter in [d/2, d]', () => {
    const s = { retryDelay: 600_000 };
    expect(retryBackoffMs(1, s, () => 0)).toBe(300_000);
    expect(retryBackoffMs(1, s, () => 0.5)).toBe(450_000);
    expect(retryBackoffMs(3, s, () => 0.5)).toBe(1_800_000);
    expect(retryBackoffMs(20, s, () => 0.5)).toBe(64_800_000);
  });

  const now = Date.UTC(2025, 5, 15);
  const at = (ms: number) => new Date(ms).toISOString();
  const s = { maxRetries: 2, retryDelay: 60_000 };
  const claim = (attempt: number, extra: Partial<LatestClaim['claim']> = {}): LatestClaim['claim'] => ({
    exportName: 'x',
    firstDate: '2025-06-14',
    lastDate: '2025-06-14',
    requestHash: 'h',
    attempt,
    followUpOf: null,
    claimedAt: at(now - 1_000),
    operationId: 'op',
    error: null,
    ...extra,
  });
  const op = (extra: Partial<ExportOperationRow>) =>
    ({
      status: 'RUNNING',
      code: null,
      gaveUpAt: null,
      polledAt: at(now - 1_000),
      recordedAt: at(now - 5_000),
      ...extra,
    }) as ExportOperationRow;

  it.each<[string, LatestClaim | undefined, ReturnType<typeof decideClaim>]>([
    ['a new window', undefined, { claim: 1 }],
    [
      'a window being created',
      { claim: claim(1, { operationId: null }), operation: undefined },
      { skip: 'being created by another run' },
    ],
    [
      'a claim abandoned by a crash',
      {
        claim: claim(2, { operationId: null, claimedAt: at(now - CLAIM_LEASE_MS - 1) }),
        operation: undefined,
      },
      { claim: 2, takeOver: true },
    ],
    [
      'a refused POST',
      { claim: claim(1, { error: '400' }), operation: undefined },
      { skip: 'the API refused it: 400' },
    ],
    ['a running export', { claim: claim(1), operation: op({}) }, { skip: 'running' }],
    ['a completed export', { claim: claim(1), operation: op({ status: 'COMPLETED' }) }, { skip: 'done' }],
    [
      'ErrInvalidRequest',
      { claim: claim(1), operation: op({ status: 'FAILED', code: 'ErrInvalidRequest' }) },
      { skip: 'it failed with ErrInvalidRequest: change the definition to try again' },
    ],
    [
      'ErrInternal within its backoff',
      { claim: claim(1), operation: op({ status: 'FAILED', code: 'ErrInternal' }) },
      { skip: 'waiting for its retry backoff' },
    ],
    [
      'ErrInternal after its backoff',
      {
        claim: claim(1),
        operation: op({ status: 'FAILED', code: 'ErrInternal', polledAt: at(now - 31_000) }),
      },
      { claim: 2 },
    ],
    [
      'a given-up export after its backoff',
      { claim: claim(2), operation: op({ gaveUpAt: at(now - 60_000) }) },
      { claim: 3 },
    ],
    [
      'ErrInternal with no retry left',
      {
        claim: claim(3),
        operation: op({ status: 'FAILED', code: 'ErrInternal', polledAt: at(now - 86_400_000) }),
      },
      { skip: 'no retries left after 3 tries' },
    ],
  ])('%s', (_name, latest, expected) => {
    expect(decideClaim(latest, s, now)).toEqual(expected);
  });

  it('a retry the queue already delayed ignores the backoff', () => {
    const latest = { claim: claim(1), operation: op({ status: 'FAILED', code: 'ErrInternal' }) };
    expect(decideClaim(latest, s, now, { ignoreBackoff: true })).toEqual({ claim: 2 });
  });

  it('hashes what a request asks for, not its dates', () => {
    const a = requestHash(exportRequest(definition, '2025-06-01', '2025-06-01'));
    expect(requestHash(exportRequest(definition, '2025-06-02', '2025-06-09'))).toBe(a);
    expect(
      requestHash(exportRequest({ ...definition, includeChains: ['43113'] }, '2025-06-01', '2025-06-01')),
    ).not.toBe(a);
    const follow = followUpRequest(
      JSON.stringify(exportRequest(definition, '2025-05-01', '2025-06-30')),
      '2025-06-01',
    );
    expect(follow).toMatchObject({ firstDate: '2025-06-01', lastDate: '2025-06-30' });
    expect(requestHash(follow)).toBe(a);
  });
});
