import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../support/cli.js';
import {
  cliEnv,
  integrityCheck,
  query,
  startFaultSimulator,
  T0,
  tryMount,
  type Workspace,
  workspace,
} from './support.js';

/**
 * Disk full during ingest: the database lives on a small tmpfs (mounting needs root; without it the
 * test is skipped, saying why). The run fails with a clear error, what was committed is intact, and
 * once there is space again the next run completes without a gap. SQLite only: PostgreSQL's disk is
 * the server's (one shared by every test), not a file the collector writes.
 */
const TOTAL_TX = 3_000;

describe('disk full during ingest (SQLite: the database file on a full disk)', () => {
  let sim: SimulatorHandle;
  let ws: Workspace;
  let mountDir: string;
  let cannotMount: string | undefined;

  beforeAll(async () => {
    ws = await workspace({
      jobs: {
        transactions: {
          schedule: '* * * * *',
          networks: ['mainnet'],
          pageSize: 100,
          maxPages: TOTAL_TX / 100,
        },
      },
    });
    mountDir = join(ws.dir, 'small-disk');
    mkdirSync(mountDir);
    // Room for the schema and a few pages, not for 3,000 transactions with their WAL.
    cannotMount = tryMount(mountDir, '1200k');
    if (cannotMount) console.warn(`disk-full test skipped: cannot mount a tmpfs (${cannotMount})`);
    sim = await startFaultSimulator({ initialTransactions: TOTAL_TX, epochMs: T0 });
  });

  afterAll(async () => {
    if (!cannotMount) execFileSync('umount', [mountDir]);
    await ws.cleanup();
    await sim.close();
  });

  it('fails with a clear error, keeps what was committed, and completes once there is space', async (ctx) => {
    if (cannotMount) ctx.skip();
    const path = join(mountDir, 'glacier.db');
    const env = cliEnv(sim, ws, { DATABASE_PATH: path, LOG_LEVEL: 'info' });
    const full = await runCli(['run', 'transactions'], env);
    expect(full.code).toBe(1);
    const output = full.stdout + full.stderr;
    expect(output).toMatch(/disk is full/);
    expect(output).toContain(path);
    expect(integrityCheck(path)).toBe('ok');
    const [{ n: committed }] = (await query<{ n: number }>(
      path,
      'SELECT COUNT(*) AS n FROM transactions',
    )) as [{ n: number }];
    expect(committed % 100).toBe(0); // whole pages only

    execFileSync('mount', ['-o', 'remount,size=64m', mountDir]);
    const next = await runCli(['run', 'transactions'], env);
    expect(next.code, next.stdout + next.stderr).toBe(0);
    expect(integrityCheck(path)).toBe('ok');
    const keys = await query<{ k: string }>(path, "SELECT chain_id || ':' || tx_hash AS k FROM transactions");
    const truth = sim.truth.transactions({ network: 'mainnet' }).map((t) => `${t.chainId}:${t.txHash}`);
    expect(new Set(keys.map((r) => r.k))).toEqual(new Set(truth));
    expect(keys.length).toBe(TOTAL_TX);
  });
});
