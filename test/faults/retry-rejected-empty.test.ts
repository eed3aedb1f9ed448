/**
 * `run <job> --retry-rejected` with nothing to retry (issue 34, D16): before, exit 1 and no output at
 * all. Now one line says so, and the exit is 0: a job that sets no records aside (supply), and one
 * that does but holds none (transactions, on a fresh database).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../support/cli.js';
import { cliEnv, startFaultSimulator, type Workspace, workspace } from './support.js';

let sim: SimulatorHandle;
let ws: Workspace;

beforeAll(async () => {
  sim = await startFaultSimulator();
  ws = await workspace({
    jobs: {
      supply: { schedule: '0 * * * *' },
      transactions: { schedule: '0 * * * *', networks: ['mainnet'] },
    },
  });
  const migrated = await runCli(['migrate'], cliEnv(sim, ws));
  expect(migrated.code, migrated.stderr).toBe(0);
}, 60_000);
afterAll(async () => {
  await ws?.cleanup();
  await sim?.close();
});

describe('run --retry-rejected with nothing to retry', () => {
  it('a job that sets no records aside: one line, exit 0, no request', async () => {
    const before = sim.requests.length;
    const r = await runCli(['run', 'supply', '--retry-rejected'], cliEnv(sim, ws), { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(`${r.stdout}${r.stderr}`.trim()).toBe('supply sets no records aside: nothing to retry');
    expect(sim.requests.length).toBe(before);
  });

  it('a job with none set aside: one line, exit 0, no request', async () => {
    const before = sim.requests.length;
    const r = await runCli(['run', 'transactions', '--retry-rejected'], cliEnv(sim, ws), {
      timeoutMs: 60_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(`${r.stdout}${r.stderr}`.trim()).toBe('transactions: no records set aside: nothing to retry');
    expect(sim.requests.length).toBe(before);
  });
});
