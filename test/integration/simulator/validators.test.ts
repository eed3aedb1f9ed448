/**
 * The simulator's staking endpoints: a node's validations (pending, active, completed, other subnets,
 * low uptime and so no reward), pending rewards that are what the validation pays once completed,
 * delegators that add up to the validator's figures, the list's documented uptime default, unknown
 * node ids, faults, and time moving a validation to its end.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { demoNodeId } from '../../../src/commands/demo-config.js';
import { cb58Encode } from '../../../src/upstream/identifiers.js';
import { api, closeSimulators, expectError, startTestSimulator, T0 } from './helpers.js';

afterEach(closeSimulators);

const PRIMARY = '11111111111111111111111111111111LpoYY';
/** At T0 (seed 1): node-0 validates (uptime ~98 %), node-13 validates below 80 %, node-8 is between two. */
const ACTIVE = demoNodeId('node-0');
const LOW = demoNodeId('node-13');
const GAP = demoNodeId('node-8');
const nodeOf = (bytes: number[]) =>
  `NodeID-${cb58Encode(Uint8Array.from([...bytes, ...Array<number>(20 - bytes.length).fill(7)]))}`;
const UNKNOWN = nodeOf([0, 0, 1]);
const EMPTY = nodeOf([0, 5]);

describe('GET /v1/networks/{network}/validators/{nodeId}', () => {
  it("lists a node's validations, newest first, every one in the released shape", async () => {
    const { sim } = await startTestSimulator();
    const answer = await api(sim, `/v1/networks/mainnet/validators/${ACTIVE}?pageSize=100`);
    expect(answer.status).toBe(200);
    const list = answer.body.validators as {
      validationStatus: string;
      subnetId: string;
      startTimestamp: number;
    }[];
    expect(list.length).toBeGreaterThan(5);
    expect(list.map((v) => v.startTimestamp)).toEqual(
      [...list.map((v) => v.startTimestamp)].sort((a, b) => b - a),
    );
    const primary = list.filter((v) => v.subnetId === PRIMARY);
    expect(primary.filter((v) => v.validationStatus === 'active')).toHaveLength(1);
    expect(primary.filter((v) => v.validationStatus === 'completed').length).toBeGreaterThan(3);
    expect(answer.body.nextPageToken).toBeUndefined();
  });

  it('pages with a token, and a gap shows the next validation pending', async () => {
    const { sim } = await startTestSimulator();
    const first = await api(sim, `/v1/networks/mainnet/validators/${ACTIVE}?pageSize=3`);
    expect(first.body.validators).toHaveLength(3);
    const second = await api(
      sim,
      `/v1/networks/mainnet/validators/${ACTIVE}?pageSize=3&pageToken=${encodeURIComponent(first.body.nextPageToken)}`,
    );
    const all = await api(sim, `/v1/networks/mainnet/validators/${ACTIVE}?pageSize=6`);
    expect([...first.body.validators, ...second.body.validators]).toEqual(all.body.validators);
    const gap = await api(sim, `/v1/networks/mainnet/validators/${GAP}?validationStatus=pending`);
    expect(gap.body.validators).toHaveLength(1);
  });

  it('a validation below the 80 % threshold pays no reward once completed; the others pay what they promised', async () => {
    const { sim, clock } = await startTestSimulator();
    const active = async (node: string) =>
      (
        await api(sim, `/v1/networks/mainnet/validators/${node}?validationStatus=active`)
      ).body.validators.find((v: { subnetId: string }) => v.subnetId === PRIMARY);
    const low = await active(LOW);
    const good = await active(ACTIVE);
    expect(low.uptimePerformance).toBeLessThan(80);
    expect(good.uptimePerformance).toBeGreaterThan(90);
    const pending = await api(sim, `/v1/networks/mainnet/rewards:listPending?nodeIds=${ACTIVE},${LOW}`);
    const estimate = (tx: string) =>
      pending.body.pendingRewards.find(
        (r: { txHash: string; rewardType: string }) => r.txHash === tx && r.rewardType === 'VALIDATOR',
      )?.estimatedReward.amount;
    expect(estimate(good.txHash)).toBe(good.potentialRewards.validationRewardAmount);
    // Time moves past both ends: each is completed, the good one paid its estimate, the low one nothing.
    clock.set(Math.max(low.endTimestamp, good.endTimestamp) * 1000 + 1000);
    const completed = async (node: string, tx: string) =>
      (
        await api(sim, `/v1/networks/mainnet/validators/${node}?validationStatus=completed&pageSize=100`)
      ).body.validators.find((v: { txHash: string }) => v.txHash === tx);
    const goodDone = await completed(ACTIVE, good.txHash);
    expect(goodDone.rewards.validationRewardAmount).toBe(estimate(good.txHash));
    expect(goodDone.rewards.rewardTxHash).toBeDefined();
    const lowDone = await completed(LOW, low.txHash);
    expect(lowDone.rewards).toEqual({ validationRewardAmount: '0', delegationRewardAmount: '0' });
  });

  it('an unknown node id is a 404, one without validations an empty list, a malformed one a 400', async () => {
    const { sim } = await startTestSimulator();
    expectError(await api(sim, `/v1/networks/mainnet/validators/${UNKNOWN}`), 404, 'not found');
    expect((await api(sim, `/v1/networks/mainnet/validators/${EMPTY}`)).body).toEqual({ validators: [] });
    expectError(await api(sim, '/v1/networks/mainnet/validators/NodeID-abc'), 400, 'not a valid node id');
  });

  it('injects the faults of the other endpoints: a bad record names the uptime, drift a stakingType', async () => {
    const { sim } = await startTestSimulator({
      faults: {
        endpoints: {
          validatorDetails: { plan: [{ kind: 'badRecord' }, { kind: 'drift' }, { status: 503 }] },
        },
      },
    });
    const bad = await api(sim, `/v1/networks/mainnet/validators/${ACTIVE}?validationStatus=active`, {
      validate: false,
    });
    expect(bad.body.validators[0].uptimePerformance).toBe(150);
    const drift = await api(sim, `/v1/networks/mainnet/validators/${ACTIVE}`, { validate: false });
    expect(drift.body.validators[0].stakingType).toBe('simNewStakingType');
    expect(drift.body.validators[1].stakingType).toBe('fixed');
    expectError(await api(sim, `/v1/networks/mainnet/validators/${ACTIVE}`), 503);
  });
});

describe('GET /v1/networks/{network}/validators', () => {
  it('drops a low-uptime validator unless minUptimePerformance is given (its documented default is 90)', async () => {
    const { sim } = await startTestSimulator();
    const q = `nodeIds=${ACTIVE},${LOW}&validationStatus=active&subnetId=${PRIMARY}`;
    const byDefault = await api(sim, `/v1/networks/mainnet/validators?${q}`);
    expect(byDefault.body.validators.map((v: { nodeId: string }) => v.nodeId)).toEqual([ACTIVE]);
    const explicit = await api(sim, `/v1/networks/mainnet/validators?${q}&minUptimePerformance=0`);
    expect(explicit.body.validators.map((v: { nodeId: string }) => v.nodeId).sort()).toEqual(
      [ACTIVE, LOW].sort(),
    );
  });
});

describe('GET /v1/networks/{network}/delegators', () => {
  it("adds up to the active validation's delegator count and amount", async () => {
    const { sim } = await startTestSimulator();
    const validators = (await api(sim, `/v1/networks/mainnet/validators/${ACTIVE}?validationStatus=active`))
      .body.validators;
    const v = validators.find((x: { subnetId: string }) => x.subnetId === PRIMARY);
    const answer = await api(
      sim,
      `/v1/networks/mainnet/delegators?nodeIds=${ACTIVE}&delegationStatus=active&pageSize=100`,
    );
    const mine = answer.body.delegators.filter(
      (d: { endTimestamp: number }) => d.endTimestamp === v.endTimestamp,
    );
    expect(mine).toHaveLength(v.delegatorCount);
    const sum = mine.reduce((s: bigint, d: { amountDelegated: string }) => s + BigInt(d.amountDelegated), 0n);
    expect(String(sum)).toBe(v.amountDelegated);
  });
});

describe('a validation that ends while a client watches', () => {
  it('shortNodes: a validation of a minute is active, then completed and paid, and the next is active', async () => {
    const node = demoNodeId('short');
    const { sim, clock } = await startTestSimulator({
      validators: { shortNodes: { nodeIds: [node], periodSeconds: 60 } },
    });
    const read = async () =>
      (await api(sim, `/v1/networks/mainnet/validators/${node}?pageSize=3`)).body.validators;
    const [before] = await read();
    expect(before.validationStatus).toBe('active');
    clock.set(before.endTimestamp * 1000);
    const after = await read();
    expect(after[1]).toMatchObject({ txHash: before.txHash, validationStatus: 'completed' });
    expect(after[0].validationStatus).toBe('active');
    expect(T0).toBeLessThan(clock.now());
  });
});
