/**
 * The rewards job's cycles read (ACP-236 auto-renewed staking) against the simulator over HTTP and a
 * real store (SQLite; PostgreSQL with `--project postgres`): every settled cycle of a configured node
 * id with an auto-renewed validation stored once, exact; the steady state one request per node a run
 * (one cycle on the page, for the current one), no settled cycle asked for again in bulk; time
 * settling a cycle reads it; a node of a configured address's auto-renewed reward read too; a cycle
 * whose amounts do not add up set aside naming its fields while the others are stored.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { jobs as allJobs } from '../../jobs/index.js';
import type { RewardsPayload } from '../../jobs/rewards.js';
import { rewards } from '../../jobs/rewards.js';
import { validators } from '../../jobs/validators.js';
import { demoNodeId } from '../../src/commands/demo-config.js';
import { runHandler } from '../../src/kernel/index.js';
import { createMetrics } from '../../src/metrics/index.js';
import { collectStatus, formatStatus } from '../../src/report/status.js';
import { hasAutoRenewed, historyOf } from '../../src/simulator/data/auto-renewed.js';
import { nodeIdsWithAutoRenewedStaking, reconcileCycles, upsertRewards } from '../../src/store/index.js';
import type { HistoricalReward as StoredReward } from '../../src/upstream/index.js';
import { type Collector, configOf, startCollector } from '../support/collector.js';
import { captureLog } from '../support/log.js';

let collector: Collector | undefined;
afterEach(async () => {
  await collector?.close();
  collector = undefined;
});

const SEED = 7;
const DAY_MS = 86_400_000;

function nodeWith(history: 'renewing' | 'exited' | 'aborted'): string {
  for (let i = 0; i < 500; i++) {
    const id = demoNodeId(`cycles-${i}`);
    if (hasAutoRenewed(SEED, 'testnet', id) && historyOf(SEED, id) === history) return id;
  }
  throw new Error(`no ${history} node among 500 labels`);
}

const payloadOf = (more: Partial<RewardsPayload>): RewardsPayload => ({
  network: 'fuji',
  addresses: [],
  nodeIds: [],
  currency: 'usd',
  pageSize: 100,
  maxPages: 20,
  ...more,
});

const run = (c: Collector, payload: RewardsPayload) => runHandler('rewards', rewards, payload, c.deps);

const cycleRequests = (c: Collector) => c.sim.requests.filter((r) => r.endpoint === 'validatorCycles');

async function storedCycles(c: Collector) {
  const rows = await c.store.all<Record<string, unknown>>(
    `SELECT staking_tx_hash AS "stakingTxHash", cycle_index AS "cycleIndex", reward_tx_hash AS "rewardTxHash",
       CAST(withdrawn_validation_reward AS TEXT) AS "withdrawnValidationReward",
       CAST(compounded_validation_reward AS TEXT) AS "compoundedValidationReward",
       CAST(gross_delegatee_reward AS TEXT) AS "grossDelegateeReward",
       CAST(compounded_delegatee_reward AS TEXT) AS "compoundedDelegateeReward", outcome
     FROM cycles ORDER BY staking_tx_hash, cycle_index`,
  );
  return rows.map((r) => ({ ...r, cycleIndex: Number(r['cycleIndex']) }) as Record<string, unknown>);
}

function truthCycles(c: Collector, nodeIds: string[]) {
  return nodeIds
    .flatMap((n) => c.sim.truth.autoRenewed('fuji', n).flatMap((p) => p.cycles))
    .map((x) => ({
      stakingTxHash: x.stakingTxHash,
      cycleIndex: x.cycleIndex,
      rewardTxHash: x.rewardTxHash,
      withdrawnValidationReward: x.withdrawnValidationReward,
      compoundedValidationReward: x.compoundedValidationReward,
      grossDelegateeReward: x.grossDelegateeReward,
      compoundedDelegateeReward: x.compoundedDelegateeReward,
      outcome: x.outcome,
    }))
    .sort((a, b) =>
      a.stakingTxHash === b.stakingTxHash
        ? a.cycleIndex - b.cycleIndex
        : a.stakingTxHash < b.stakingTxHash
          ? -1
          : 1,
    );
}

describe('rewards job: auto-renewed cycles', () => {
  it('stores every settled cycle once; then one request per node a run, and a cycle settling is read', async () => {
    collector = await startCollector();
    const c = collector;
    const nodes = [nodeWith('exited'), nodeWith('renewing')];
    const first = await run(c, payloadOf({ nodeIds: nodes }));
    expect(first.status).toBe('succeeded');
    expect(await storedCycles(c)).toEqual(truthCycles(c, nodes));
    expect(cycleRequests(c)).toHaveLength(2);
    // Nothing settled since: one request per node, one cycle on its page (the current cycle re-read).
    c.clock.advance(60_000);
    const before = cycleRequests(c).length;
    const second = await run(c, payloadOf({ nodeIds: nodes }));
    const steady = cycleRequests(c).slice(before);
    expect(steady).toHaveLength(2);
    expect(steady.map((r) => r.query['pageSize'])).toEqual(['1', '1']);
    expect(second.rowsWritten).toBe(0);
    // Fifteen days on, every position settled one more cycle: each read, nothing twice.
    c.clock.advance(15 * DAY_MS);
    const settledBefore = (await storedCycles(c)).length;
    await run(c, payloadOf({ nodeIds: nodes }));
    const after = await storedCycles(c);
    expect(after).toEqual(truthCycles(c, nodes));
    expect(after.length).toBeGreaterThan(settledBefore);
  });

  it("reads the node of a configured address's auto-renewed reward, and no node without auto-renewed staking", async () => {
    collector = await startCollector();
    const c = collector;
    const node = nodeWith('aborted');
    const owner = c.sim.truth.autoRenewed('fuji', node)[0]!.rewardAddress;
    // The address's auto-renewed rewards, as the API pays them (the simulator lists them by node id).
    const paid = c.sim.truth.rewards('fuji', { nodeIds: [node] }).filter((r) => r.addresses.includes(owner));
    await c.store.transaction((tx) =>
      upsertRewards(tx, 'fuji', paid as unknown as StoredReward[], new Date(c.clock.now()).toISOString()),
    );
    await run(c, payloadOf({ addresses: [owner] }));
    expect(await storedCycles(c)).toEqual(truthCycles(c, [node]));
    // The aborted cycle forfeited its validation reward; its accrued rewards returned, nothing compounded.
    const aborted = (await storedCycles(c)).find((x) => x['outcome'] === 'aborted');
    expect(aborted).toMatchObject({ compoundedValidationReward: '0', withdrawnValidationReward: '0' });

    const plain = demoNodeId('cycles-plain');
    const before = cycleRequests(c).length;
    await run(c, payloadOf({ network: 'mainnet', nodeIds: [plain] }));
    expect(cycleRequests(c).length).toBe(before);
  });

  it('sets aside a cycle whose amounts do not add up, naming the fields; the others are stored', async () => {
    collector = await startCollector({
      sim: { faults: { endpoints: { validatorCycles: { plan: [{ kind: 'badRecord' }] } } } },
    });
    const c = collector;
    const node = nodeWith('renewing');
    const summary = await run(c, payloadOf({ nodeIds: [node] }));
    expect(summary.status).toBe('succeeded');
    const truth = truthCycles(c, [node]);
    expect((await storedCycles(c)).length).toBe(truth.length - 1);
    const rejected = await c.store.all<{ endpoint: string; fields: string; problems: string }>(
      'SELECT endpoint, fields, problems FROM rejected_records',
    );
    expect(rejected).toHaveLength(1);
    expect(rejected[0]?.endpoint).toBe('validatorCycles');
    expect(rejected[0]?.fields).toContain('grossValidationReward');
    expect(rejected[0]?.problems).toMatch(
      /grossValidationReward \d+ ≠ withdrawnValidationReward \d+ \+ compoundedValidationReward \d+/,
    );
  });

  it("reconciles the stored cycles with the validators' accrued rewards: a difference is a gauge and a status warning", async () => {
    collector = await startCollector();
    const c = collector;
    const nodes = [nodeWith('renewing'), nodeWith('exited')];
    const validatorsPayload = {
      network: 'fuji' as const,
      nodeIds: nodes,
      addresses: [],
      pageSize: 100,
      maxPages: 10,
      pendingRewards: false,
      pendingRewardsEvery: 0,
      observationRetention: 35 * DAY_MS,
    };
    expect((await runHandler('validators', validators, validatorsPayload, c.deps)).status).toBe('succeeded');
    // Seen through the validator's autoRenew alone: the cycles are read.
    expect(await nodeIdsWithAutoRenewedStaking(c.store, 'fuji', { nodeIds: nodes, addresses: [] })).toEqual(
      [...nodes].sort(),
    );
    await run(c, payloadOf({ nodeIds: nodes }));
    const positions = nodes.flatMap((n) => c.sim.truth.autoRenewed('fuji', n));
    const agreed = await reconcileCycles(c.store);
    expect(agreed).toHaveLength(positions.length);
    expect(agreed.every((r) => r.difference === 0n)).toBe(true);
    const config = configOf({
      jobs: {
        rewards: { schedule: '0 * * * *', network: 'fuji', nodeIds: nodes },
        validators: { schedule: '0 * * * *', network: 'fuji', nodeIds: nodes },
      },
    });
    const ok = formatStatus(await collectStatus(allJobs, config, c.store, new Date(c.clock.now())));
    expect(ok).toContain(`auto-renewed staking: ${positions.length} position(s); the compounded rewards`);

    // A cycle lost (set aside, say): the sums disagree, and the operator is told.
    const renewing = c.sim.truth.autoRenewed('fuji', nodes[0]!).at(-1)!;
    const lost = renewing.cycles.find((x) => BigInt(x.compoundedValidationReward) > 0n)!;
    await c.store.run('DELETE FROM cycles WHERE staking_tx_hash = ? AND cycle_index = ?', [
      lost.stakingTxHash,
      lost.cycleIndex,
    ]);
    const status = await collectStatus(allJobs, config, c.store, new Date(c.clock.now()));
    expect(status.compounded?.differing).toEqual([
      expect.objectContaining({ nodeId: nodes[0], stakingTxHash: lost.stakingTxHash }),
    ]);
    expect(formatStatus(status)).toMatch(/WARNING: auto-renewed staking: 1 of \d+ position\(s\) disagree/);
    const { log } = captureLog('info');
    const metrics = createMetrics({ store: c.store, config, log, clock: c.clock, jobs: allJobs });
    const body = (await metrics.expose()).body;
    const missing =
      Number(BigInt(lost.compoundedValidationReward) + BigInt(lost.compoundedDelegateeReward)) / 1e9;
    const line = body
      .split('\n')
      .find((l) =>
        l.startsWith(`glacier_rewards_compounded_unreconciled_avax{network="fuji",node_id="${nodes[0]}"}`),
      );
    expect(Number(line?.split(' ').at(-1))).toBeCloseTo(missing, 6);
  });
});
