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
  type Workspace,
  workspace,
} from './support.js';

/**
 * Disk full during ingest: the database lives on a small tmpfs (mounting needs root; without it the
 * test is skipped, saying why). The run fails with a clear error, what was committed is intact, and
 * once there is space again the next run completes without a gap.
 */
const TOTAL_TX = 3_000;

function tryMount(dir: string, size: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    return (err as { stderr?: Buffer }).stderr?.toString().trim() || (err as Error).message;
  }
}

let sim: SimulatorHandle;
let ws: Workspace;
let mountDir: string;
let cannotMount: string | undefined;

beforeAll(async () => {
  ws = workspace({
    jobs: {
      transactions: { schedule: '* * * * *', networks: ['mainnet'], pageSize: 100, maxPages: TOTAL_TX / 100 },
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
  ws.cleanup();
  await sim.close();
});

describe('disk full during ingest', () => {
  it('fails with a clear error, keeps what was committed, and completes once there is space', async (ctx) => {
    if (cannotMount) ctx.skip();
    const env = cliEnv(sim, ws, { DATABASE_PATH: join(mountDir, 'glacier.db'), LOG_LEVEL: 'info' });
    const full = await runCli(['run', 'transactions'], env);
    expect(full.code).toBe(1);
    const output = full.stdout + full.stderr;
    expect(output).toMatch(/disk is full/);
    expect(output).toContain(join(mountDir, 'glacier.db'));
    expect(integrityCheck(env.DATABASE_PATH)).toBe('ok');
    const committed = query<{ n: number }>(env.DATABASE_PATH, 'SELECT COUNT(*) AS n FROM transactions')[0]!.n;
    expect(committed % 100).toBe(0); // whole pages only

    execFileSync('mount', ['-o', 'remount,size=64m', mountDir]);
    const next = await runCli(['run', 'transactions'], env);
    expect(next.code, next.stdout + next.stderr).toBe(0);
    expect(integrityCheck(env.DATABASE_PATH)).toBe('ok');
    const keys = query<{ k: string }>(
      env.DATABASE_PATH,
      "SELECT chain_id || ':' || tx_hash AS k FROM transactions",
    );
    const truth = sim.truth.transactions({ network: 'mainnet' }).map((t) => `${t.chainId}:${t.txHash}`);
    expect(new Set(keys.map((r) => r.k))).toEqual(new Set(truth));
    expect(keys.length).toBe(TOTAL_TX);
  });
});
