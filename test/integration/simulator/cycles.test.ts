/**
 * The simulator's ACP-236 auto-renewed validations (src/simulator/data/auto-renewed.ts): the
 * `/cycles` route in the SDK's next shape (paging, currentCycle on the first page only, txHash,
 * sort orders, 400s), cycles that add up, the withdrawn parts as reward rows with
 * `stakingType: autoRenewed`, the exit re-paying what was compounded, the abort forfeiting its
 * cycle's validation reward, and time settling the next cycle.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { demoNodeId } from '../../../src/commands/demo-config.js';
import { hasAutoRenewed, historyOf } from '../../../src/simulator/data/auto-renewed.js';
import {
  type AutoRenewedCycle,
  cycleMismatch,
  listCyclesResponseSchema,
} from '../../../src/upstream/auto-renew.js';
import { api, closeSimulators, startTestSimulator } from './helpers.js';

afterEach(closeSimulators);

const SEED = 1;
/** The first label's Fuji node id of each history (seed 1). */
function nodeWith(history: 'renewing' | 'exited' | 'aborted'): string {
  for (let i = 0; i < 500; i++) {
    const id = demoNodeId(`cycles-${i}`);
    if (hasAutoRenewed(SEED, 'testnet', id) && historyOf(SEED, id) === history) return id;
  }
  throw new Error(`no ${history} node among 500 labels`);
}

type Sim = Awaited<ReturnType<typeof startTestSimulator>>['sim'];

async function cycles(sim: Sim, nodeId: string, query = '') {
  const answer = await api(sim, `/v1/networks/fuji/validators/${nodeId}/cycles${query}`, { validate: false });
  return { status: answer.status, body: answer.body };
}

/** Every settled cycle of the node, paged `pageSize` at a time, and the first page's currentCycle. */
async function allCycles(sim: Sim, nodeId: string, pageSize: number, extra = '') {
  const list: AutoRenewedCycle[] = [];
  let token: string | undefined;
  let current: unknown;
  let pages = 0;
  do {
    const q = `?pageSize=${pageSize}${extra}${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`;
    const { status, body } = await cycles(sim, nodeId, q);
    expect(status).toBe(200);
    const parsed = listCyclesResponseSchema.parse(body);
    if (pages === 0) current = parsed.currentCycle;
    else expect(parsed.currentCycle).toBeUndefined();
    list.push(...parsed.cycles);
    token = parsed.nextPageToken;
    pages++;
  } while (token);
  return { list, current, pages };
}

async function rewardsOf(sim: Sim, nodeId: string) {
  const answer = await api(sim, `/v1/networks/fuji/rewards?nodeIds=${nodeId}&pageSize=100`);
  // Prices arrive as floats through JSON.parse: the fields read here are strings and words.
  return answer.body.historicalRewards as {
    rewardTxHash: string;
    rewardType: string;
    stakingType?: string;
    reward: { amount: string };
  }[];
}

describe('GET /v1/networks/{network}/validators/{nodeId}/cycles', () => {
  it('lists a renewing position newest first, paged, cycles adding up, currentCycle on the first page only', async () => {
    const { sim, clock } = await startTestSimulator();
    const node = nodeWith('renewing');
    const { list, current, pages } = await allCycles(sim, node, 3);
    expect(list.length).toBeGreaterThan(6);
    expect(pages).toBeGreaterThan(2);
    expect(list.map((c) => c.cycleIndex)).toEqual(list.map((_, i) => list.length - i));
    expect(list.every((c) => c.outcome === 'renewed' && cycleMismatch(c) === undefined)).toBe(true);
    expect(list.some((c) => BigInt(c.compoundedValidationReward) > 0n)).toBe(true);
    expect(list.some((c) => BigInt(c.grossDelegateeReward) > 0n)).toBe(true);
    // The next cycle's weight is this one's plus what it compounded.
    const asc = [...list].reverse();
    for (let i = 1; i < asc.length; i++) {
      const before = asc[i - 1]!;
      expect(BigInt(asc[i]!.weightAtCycleStart)).toBe(
        BigInt(before.weightAtCycleStart) +
          BigInt(before.compoundedValidationReward) +
          BigInt(before.compoundedDelegateeReward),
      );
    }
    expect(current).toMatchObject({ cycleIndex: list.length + 1, state: 'renewing' });
    // The validator object's autoRenew (for the validators routes) restaked what the cycles compounded.
    const [details] = sim.truth.autoRenew('fuji', node);
    const sum = (f: 'compoundedValidationReward' | 'compoundedDelegateeReward') =>
      String(list.reduce((s, c) => s + BigInt(c[f]), 0n));
    expect(details!.autoRenew).toMatchObject({
      state: 'renewing',
      accruedValidationRewards: sum('compoundedValidationReward'),
      accruedDelegateeRewards: sum('compoundedDelegateeReward'),
      exitReason: null,
    });
    const ascending = await allCycles(sim, node, 100, '&sortOrder=asc');
    expect(ascending.list).toEqual(asc);
    // The default page is 10; time settles the cycle in flight.
    expect((await cycles(sim, node)).body.cycles).toHaveLength(10);
    clock.advance(15 * 86_400_000);
    const later = await allCycles(sim, node, 100);
    expect(later.list).toHaveLength(list.length + 1);
    expect(later.list.slice(1)).toEqual(list);
  });

  it('pays the withdrawn parts as autoRenewed rewards of the cycle, and the exit re-pays every compounded reward', async () => {
    const { sim } = await startTestSimulator();
    const node = nodeWith('exited');
    const { list } = await allCycles(sim, node, 100, '&sortOrder=asc');
    const stakingTx = list[0]!.stakingTxHash;
    const first = list.filter((c) => c.stakingTxHash === stakingTx);
    expect(first.map((c) => c.outcome)).toEqual(['renewed', 'renewed', 'renewed', 'renewed', 'exited']);
    const narrowed = await allCycles(sim, node, 100, `&sortOrder=asc&txHash=${stakingTx}`);
    expect(narrowed.list).toEqual(first);
    expect(narrowed.current).toBeUndefined();
    const rewards = (await rewardsOf(sim, node)).filter((r) => r.stakingType === 'autoRenewed');
    const byTx = (c: AutoRenewedCycle, type: string) =>
      rewards.find((r) => r.rewardTxHash === c.rewardTxHash && r.rewardType === type)?.reward.amount;
    for (const c of first.slice(0, 4)) {
      expect(byTx(c, 'VALIDATOR')).toBe(c.withdrawnValidationReward);
    }
    const compounded = first.slice(0, 4).reduce((s, c) => s + BigInt(c.compoundedValidationReward), 0n);
    const exit = first[4]!;
    expect(BigInt(byTx(exit, 'VALIDATOR')!)).toBe(BigInt(exit.withdrawnValidationReward) + compounded);
    // Fixed rewards on Fuji carry the SDK's stakingType too.
    expect((await rewardsOf(sim, node)).every((r) => r.stakingType !== undefined)).toBe(true);
  });

  it('an abort forfeits its cycle validation reward and returns the accrued ones', async () => {
    const { sim } = await startTestSimulator();
    const node = nodeWith('aborted');
    const { list } = await allCycles(sim, node, 100, '&sortOrder=asc');
    const aborted = list.find((c) => c.outcome === 'aborted')!;
    expect(aborted.cycleIndex).toBe(4);
    expect(aborted.grossValidationReward).toBe('0');
    expect(cycleMismatch(aborted)).toBeUndefined();
    const accrued = list
      .filter((c) => c.stakingTxHash === aborted.stakingTxHash && c.cycleIndex < 4)
      .reduce((s, c) => s + BigInt(c.compoundedValidationReward), 0n);
    const paid = (await rewardsOf(sim, node)).find(
      (r) => r.rewardTxHash === aborted.rewardTxHash && r.rewardType === 'VALIDATOR',
    );
    expect(BigInt(paid!.reward.amount)).toBe(accrued);
  });

  it("lists each position as a validation of the node, with stakingType autoRenewed and an autoRenew whose accrued rewards are its cycles' compounded sums", async () => {
    const { sim } = await startTestSimulator();
    const node = nodeWith('exited');
    const answer = await api(sim, `/v1/networks/fuji/validators/${node}?pageSize=100`);
    const listed = answer.body.validators as {
      txHash: string;
      validationStatus: string;
      stakingType?: string;
      autoRenew?: Record<string, unknown>;
    }[];
    const positions = sim.truth.autoRenewed('fuji', node);
    expect(positions.length).toBeGreaterThan(0);
    for (const p of positions) {
      const v = listed.find((x) => x.txHash === p.stakingTxHash);
      expect(v?.stakingType).toBe('autoRenewed');
      expect(v?.validationStatus).toBe(p.ended ? 'completed' : 'active');
      const sum = (k: 'compoundedValidationReward' | 'compoundedDelegateeReward') =>
        String(p.cycles.reduce((a, c) => a + BigInt(c[k]), 0n));
      expect(v?.autoRenew).toMatchObject({
        state: p.ended ? p.ended.outcome : 'renewing',
        accruedValidationRewards: sum('compoundedValidationReward'),
        accruedDelegateeRewards: sum('compoundedDelegateeReward'),
      });
    }
  });

  it('answers an empty list for a node without one (every Mainnet node) and 400 for bad parameters', async () => {
    const { sim } = await startTestSimulator();
    const node = nodeWith('renewing');
    const mainnet = await api(sim, `/v1/networks/mainnet/validators/${node}/cycles`, { validate: false });
    expect(mainnet.status).toBe(200);
    expect(mainnet.body).toEqual({ cycles: [] });
    for (const q of [`${node}/cycles?pageSize=0`, 'NodeID-bogus/cycles', `${node}/cycles?sortOrder=up`]) {
      const bad = await api(sim, `/v1/networks/fuji/validators/${q}`, { validate: false });
      expect(bad.status, q).toBe(400);
    }
  });
});
