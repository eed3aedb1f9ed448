import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/kernel/index.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { type ServiceHarness, serviceHarness, waitFor } from '../support/service.js';
import { API_KEY, integrityCheck, query, T0, tryMount } from './support.js';

/**
 * The disk fills while `start` runs (SQLite on a small tmpfs; mounting needs root, without it the
 * test is skipped saying why): runs fail with a clear error, the service stays up, /readyz says why,
 * and collection resumes by itself once there is space, with every transaction stored once.
 */
const TOTAL_TX = 3_000;

let h: ServiceHarness | undefined;
let mounted: string | undefined;
afterEach(async () => {
  // Lazily: a service left open by a failed test still holds the database there.
  if (mounted) execFileSync('umount', ['-l', mounted]);
  mounted = undefined;
  await h?.close();
  h = undefined;
});

describe('disk full under the service (SQLite)', () => {
  it('runs fail clearly, /readyz says why, and collection resumes by itself once space is freed', async (ctx) => {
    h = await serviceHarness({
      sim: {
        initialTransactions: TOTAL_TX,
        epochMs: T0,
        clock: createManualClock(T0),
        apiKeys: { [API_KEY]: { tier: 'Pro', computeUnitsPerMinute: 1e12 } },
      },
    });
    const dir = join(h.dir, 'small-disk');
    mkdirSync(dir);
    const cannotMount = tryMount(dir, '1200k');
    if (cannotMount) {
      console.warn(`disk-full service test skipped: cannot mount a tmpfs (${cannotMount})`);
      ctx.skip();
    }
    mounted = dir;
    const path = join(dir, 'glacier.db');
    const runs: RunSummary[] = [];
    const svc = await h.start(
      h.config(
        {
          jobs: {
            transactions: { schedule: '* * * * * *', networks: ['mainnet'], maxPages: TOTAL_TX / 100 },
          },
          budget: { tier: 'Pro' },
        },
        { DATABASE_PATH: path, DATABASE_URL: '', GLACIER_API_KEY: API_KEY },
      ),
      { onRun: (s) => runs.push(s) },
    );

    const failed = await waitFor(() => runs.find((r) => r.status === 'failed'), 60_000, 'a failed run');
    expect(failed.errorMessage).toMatch(/disk is full/);
    expect(failed.errorMessage).toContain(path);
    const res = await fetch(`${svc.url}/readyz`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { checks: Record<string, { ok: boolean; error?: string }> };
    expect(body.checks.disk?.ok).toBe(false);
    expect(body.checks.disk?.error).toMatch(/the last write failed: .*disk is full/);
    expect(body.checks.redis?.ok).toBe(true);

    execFileSync('mount', ['-o', 'remount,size=64m', dir]);
    await waitFor(
      async () =>
        (await query<{ n: number }>(path, 'SELECT COUNT(*) AS n FROM transactions'))[0]!.n === TOTAL_TX,
      60_000,
      'every transaction stored',
    );
    await waitFor(async () => (await svc.readiness()).ready, 30_000, 'ready again');
    const keys = await query<{ k: string }>(path, "SELECT chain_id || ':' || tx_hash AS k FROM transactions");
    const truth = h.sim.truth.transactions({ network: 'mainnet' }).map((t) => `${t.chainId}:${t.txHash}`);
    expect(new Set(keys.map((r) => r.k))).toEqual(new Set(truth));
    await svc.close();
    expect(integrityCheck(path)).toBe('ok');
    // Its own waits (a failed run, every transaction, ready again) bound it, not the default 30 s.
  }, 180_000);
});
