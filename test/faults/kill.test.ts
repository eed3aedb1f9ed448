import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAddress } from '../../src/commands/demo-config.js';
import type { SimulatorHandle } from '../../src/simulator/index.js';
import { runCli, spawnCli } from '../support/cli.js';
import {
  cliEnv,
  countRows,
  integrityCheck,
  iterations,
  onPostgres,
  query,
  sleep,
  startFaultSimulator,
  T0,
  type Workspace,
  workspace,
} from './support.js';

/**
 * kill -9 of `run transactions` / `run rewards` at random points (after a random number of committed
 * rows, plus a random few milliseconds so that some kills land inside a transaction), once or twice
 * per iteration; then a run to completion, after which the database equals the simulator's ground
 * truth: every row, none twice, the content as served.
 */
const TOTAL_TX = 3_000;
const PAGES = TOTAL_TX / 100;
const addresses = Array.from({ length: 12 }, (_, i) => demoAddress(`kill-holder-${i}`));

/** SQLite's default (binary) text order; rows are sorted here, whatever PostgreSQL's collation. */
const binary = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

let sim: SimulatorHandle;
beforeAll(async () => {
  // Latency stretches a run over a second or so, so that the kills land while it collects.
  // The epoch at the frozen clock: the list holds exactly TOTAL_TX transactions, so every run, however
  // interrupted, ends at the end of the list, and the ground truth is the whole list.
  sim = await startFaultSimulator({
    initialTransactions: TOTAL_TX,
    epochMs: T0,
    faults: { all: { latencyMs: [2, 12] } },
  });
});
afterAll(() => sim.close());

/** Kills a `run <job>` once `table` holds at least `threshold` rows (or when it ends), then waits a bit. */
async function killDuring(job: string, ws: Workspace, table: string, threshold: number): Promise<void> {
  const { child, done } = spawnCli(['run', job], cliEnv(sim, ws));
  const started = Date.now();
  while (child.exitCode === null && Date.now() - started < 30_000) {
    if ((await countRows(ws.location, table)) >= threshold) break;
    await sleep(3);
  }
  await sleep(Math.floor(Math.random() * 15));
  child.kill('SIGKILL');
  await done;
}

async function killThenComplete(job: string, ws: Workspace, table: string, total: number, kills: number) {
  for (let k = 0; k < kills; k++) {
    await killDuring(job, ws, table, Math.floor(Math.random() * total));
  }
  const final = await runCli(['run', job], cliEnv(sim, ws));
  expect(final.code, final.stdout + final.stderr).toBe(0);
  // PostgreSQL rolls a killed client's transaction back on its own; its files are the server's.
  if (!onPostgres) expect(integrityCheck(ws.location)).toBe('ok');
  // A run killed mid-way leaves its job_runs row `running`: proof that the kills hit a run.
  interrupted += (
    await query<{ n: number }>(ws.location, "SELECT COUNT(*) AS n FROM job_runs WHERE status = 'running'")
  )[0]!.n;
}

let interrupted = 0;
afterAll(() => {
  expect(interrupted).toBeGreaterThan(0);
});

describe('kill -9 during collection', () => {
  it.each(Array.from({ length: iterations(20) }, (_, i) => i))(
    'transactions, iteration %i: after a re-run the database equals the ground truth',
    async (i) => {
      const ws = await workspace({
        jobs: {
          transactions: { schedule: '* * * * *', networks: ['mainnet'], pageSize: 100, maxPages: PAGES },
        },
      });
      try {
        await killThenComplete('transactions', ws, 'transactions', TOTAL_TX, 1 + (i % 2));
        const truth = sim.truth.transactions({ network: 'mainnet' });
        const rows = (
          await query<{ chain_id: string; tx_hash: string; block_hash: string; value: string }>(
            ws.location,
            'SELECT chain_id, tx_hash, block_hash, value FROM transactions',
          )
        ).sort((a, b) => binary(a.chain_id, b.chain_id) || binary(a.tx_hash, b.tx_hash));
        const expected = truth
          .map((t) => ({ chain_id: t.chainId, tx_hash: t.txHash, block_hash: t.blockHash, value: t.value }))
          .sort((a, b) => binary(a.chain_id, b.chain_id) || binary(a.tx_hash, b.tx_hash));
        expect(rows.length).toBe(TOTAL_TX);
        expect(rows).toEqual(expected);
      } finally {
        await ws.cleanup();
      }
    },
  );

  it.each(Array.from({ length: iterations(20) }, (_, i) => i))(
    'rewards, iteration %i: after a re-run the database equals the ground truth',
    async (i) => {
      const ws = await workspace({
        jobs: { rewards: { schedule: '0 * * * *', network: 'mainnet', addresses, maxPages: 1000 } },
      });
      const truth = sim.truth.rewards('mainnet', { addresses });
      try {
        await killThenComplete('rewards', ws, 'rewards', truth.length, 1 + (i % 2));
        const rows = await query<{ utxo_id: string; amount: string; price_value: string | null }>(
          ws.location,
          `SELECT r.utxo_id, r.amount, p.value AS price_value FROM rewards r
           LEFT JOIN reward_prices p ON p.network = r.network AND p.utxo_id = r.utxo_id AND p.currency = 'usd'
           ORDER BY r.utxo_id`,
        );
        rows.sort((a, b) => binary(a.utxo_id, b.utxo_id));
        const expected = truth
          .map((r) => ({
            utxo_id: r.utxoId,
            amount: r.reward.amount,
            price_value: r.reward.historicalPrice ? String(r.reward.historicalPrice.value) : null,
          }))
          .sort((a, b) => binary(a.utxo_id, b.utxo_id));
        expect(rows).toEqual(expected);
        const links = (
          await query<{ n: number }>(ws.location, 'SELECT COUNT(*) AS n FROM reward_addresses')
        )[0]!.n;
        expect(links).toBe(truth.reduce((n, r) => n + r.addresses.length, 0));
      } finally {
        await ws.cleanup();
      }
    },
  );
});
