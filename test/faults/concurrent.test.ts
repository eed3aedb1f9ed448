import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAddress } from '../../src/commands/demo-config.js';
import type { SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../support/cli.js';
import {
  cliEnv,
  integrityCheck,
  iterations,
  onPostgres,
  query,
  startFaultSimulator,
  T0,
  workspace,
} from './support.js';

/**
 * Two collectors writing one database at once: two `run` processes of the same job (one cursor, the
 * same rows) and of two jobs, on a database neither has created yet (both migrate it at once). No
 * run may fail (SQLite: with SQLITE_BUSY within the busy timeout; PostgreSQL: on a unique key or a
 * deadlock, the migrations' advisory lock and the cursor's serialize them), and nothing may be
 * stored twice.
 */
const TOTAL_TX = 2_000;
const addresses = Array.from({ length: 6 }, (_, i) => demoAddress(`concurrent-holder-${i}`));

let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startFaultSimulator({
    initialTransactions: TOTAL_TX,
    epochMs: T0,
    faults: { all: { latencyMs: [1, 5] } },
  });
});
afterAll(() => sim.close());

const config = {
  jobs: {
    transactions: { schedule: '* * * * *', networks: ['mainnet'], pageSize: 100, maxPages: TOTAL_TX / 100 },
    rewards: { schedule: '0 * * * *', network: 'mainnet', addresses, maxPages: 1000 },
  },
};

describe('two collectors on one database', () => {
  it.each(Array.from({ length: iterations(5) }, (_, i) => i))(
    'iteration %i: two runs of one job and a run of another, at once, all succeed with nothing twice',
    async () => {
      const ws = await workspace(config);
      try {
        const runs = await Promise.all([
          runCli(['run', 'transactions'], cliEnv(sim, ws)),
          runCli(['run', 'transactions'], cliEnv(sim, ws)),
          runCli(['run', 'rewards'], cliEnv(sim, ws)),
        ]);
        for (const r of runs) {
          expect(r.code, r.stdout + r.stderr).toBe(0);
          expect(r.stdout + r.stderr).not.toMatch(
            /SQLITE_BUSY|database is locked|duplicate key|deadlock detected|could not serialize/,
          );
        }
        if (!onPostgres) expect(integrityCheck(ws.location)).toBe('ok');
        const [stored] = await query<{ n: number; distinct_n: number }>(
          ws.location,
          "SELECT COUNT(*) AS n, COUNT(DISTINCT chain_id || ':' || tx_hash) AS distinct_n FROM transactions",
        );
        expect(stored).toEqual({ n: TOTAL_TX, distinct_n: TOTAL_TX });
        const truth = new Set(
          sim.truth.transactions({ network: 'mainnet' }).map((t) => `${t.chainId}:${t.txHash}`),
        );
        const keys = await query<{ k: string }>(
          ws.location,
          "SELECT chain_id || ':' || tx_hash AS k FROM transactions",
        );
        expect(keys.every((r) => truth.has(r.k))).toBe(true);
        const rewards = sim.truth.rewards('mainnet', { addresses });
        expect((await query<{ n: number }>(ws.location, 'SELECT COUNT(*) AS n FROM rewards'))[0]!.n).toBe(
          rewards.length,
        );
        const runsTable = await query<{ status: string }>(ws.location, 'SELECT status FROM job_runs');
        expect(runsTable.map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
      } finally {
        await ws.cleanup();
      }
    },
  );
});
