/**
 * The validators job against the simulator over HTTP and a real store: every validation of each
 * node stored once, one request per node id in the steady state (a completed validation is never
 * asked for again), a node id the API does not know named while the others go on, a validation out
 * of its domain set aside naming its field, pending rewards, time moving a validation to its end
 * (and a low-uptime one to no reward), and `reset` reading a node's history again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { nodeScope, type ValidatorsPayload } from '../../jobs/validators.definition.js';
import { restore, validators } from '../../jobs/validators.js';
import { demoNodeId } from '../../src/commands/demo-config.js';
import { runHandler } from '../../src/kernel/index.js';
import type { ValidatorDetails } from '../../src/simulator/validator-types.js';
import {
  deleteCursor,
  listValidatorSummaries,
  nodeIdsWithAutoRenewedValidation,
} from '../../src/store/index.js';
import { cb58Encode } from '../../src/upstream/identifiers.js';
import { type Collector, startCollector } from '../support/collector.js';

let collector: Collector | undefined;
afterEach(async () => {
  await collector?.close();
  collector = undefined;
});

const PRIMARY = '11111111111111111111111111111111LpoYY';
const UNKNOWN = `NodeID-${cb58Encode(Uint8Array.from([0, 0, ...Array<number>(18).fill(9)]))}`;

const payloadOf = (nodeIds: string[], more: Partial<ValidatorsPayload> = {}): ValidatorsPayload => ({
  network: 'mainnet',
  nodeIds,
  addresses: [],
  pageSize: 100,
  maxPages: 10,
  pendingRewards: true,
  pendingRewardsEvery: 0,
  observationRetention: 35 * 86_400_000,
  ...more,
});

const run = (c: Collector, payload: ValidatorsPayload) =>
  runHandler('validators', validators, payload, c.deps);

/** A node id (from labels v-0, v-1…) whose validations now match `test`. */
function findNode(c: Collector, test: (vs: ValidatorDetails[]) => boolean, from = 0): string {
  for (let i = from; i < 400; i++) {
    const id = demoNodeId(`v-${i}`);
    const vs = c.sim.truth.validations('mainnet', id);
    if (vs && test(vs)) return id;
  }
  throw new Error('no such node in 400 labels');
}
const activePrimary = (vs: ValidatorDetails[]) =>
  vs.find((v) => v.validationStatus === 'active' && v.subnetId === PRIMARY) as
    | Extract<ValidatorDetails, { validationStatus: 'active' }>
    | undefined;

describe('validators job', () => {
  it('stores every validation of each node once, and the summary the metrics read; the next run spends one request per node id', async () => {
    collector = await startCollector();
    const c = collector;
    const good = findNode(c, (vs) => (activePrimary(vs)?.uptimePerformance ?? 0) > 90);
    const low = findNode(c, (vs) => (activePrimary(vs)?.uptimePerformance ?? 100) < 80);
    const first = await run(c, payloadOf([good, low]));
    expect(first).toMatchObject({ status: 'succeeded', requests: 3 });
    for (const node of [good, low]) {
      const truth = c.sim.truth.validations('mainnet', node)!;
      const rows = await c.store.all<{ tx_hash: string; status: string; primary_network: number }>(
        'SELECT tx_hash, status, primary_network FROM validations WHERE node_id = ? ORDER BY tx_hash',
        [node],
      );
      expect(rows.map((r) => [r.tx_hash, r.status])).toEqual(
        truth.map((v) => [v.txHash, v.validationStatus]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
      );
    }
    const summaries = await listValidatorSummaries(c.store);
    const goodActive = activePrimary(c.sim.truth.validations('mainnet', good)!)!;
    expect(summaries.find((s) => s.nodeId === good)).toMatchObject({
      known: 1,
      active: 1,
      endTimestamp: goodActive.endTimestamp,
      uptimeRatio: goodActive.uptimePerformance / 100,
      potentialValidationReward: goodActive.potentialRewards.validationRewardAmount,
      delegators: goodActive.delegatorCount,
    });
    const pending = c.sim.truth.pendingRewards('mainnet', { nodeIds: [good] });
    expect(summaries.find((s) => s.nodeId === good)?.pendingReward).toBe(
      String(pending.reduce((sum, r) => sum + BigInt(r.estimatedReward.amount), 0n)),
    );
    // Nothing new: one page per node id and the pending rewards; an observation of each active one.
    c.clock.advance(60_000);
    const second = await run(c, payloadOf([good, low]));
    expect(second).toMatchObject({ status: 'succeeded', requests: 3, rowsWritten: 2 });
    const observations = await c.store.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM validation_observations',
    );
    expect(Number(observations?.n)).toBe(4);
  });

  it('a completed validation is read once: a long history in small pages, then one page a run', async () => {
    collector = await startCollector();
    const c = collector;
    const node = findNode(c, (vs) => vs.length >= 9);
    const first = await run(c, payloadOf([node], { pageSize: 3, pendingRewards: false }));
    const pages = Math.ceil(c.sim.truth.validations('mainnet', node)!.length / 3);
    expect(first.requests).toBe(pages);
    c.clock.advance(60_000);
    expect(await run(c, payloadOf([node], { pageSize: 3, pendingRewards: false }))).toMatchObject({
      requests: 1,
    });
    // `reset validators` removes the node's cursor: its history is read again, nothing written twice.
    await c.store.transaction((tx) => deleteCursor(tx, 'validators', nodeScope('mainnet', node)));
    const again = await run(c, payloadOf([node], { pageSize: 3, pendingRewards: false }));
    expect(again.requests).toBe(pages);
    const rows = await c.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM validations');
    expect(Number(rows?.n)).toBe(c.sim.truth.validations('mainnet', node)!.length);
  });

  it('names a node id the API does not know (404) and one without validations, and the others go on', async () => {
    collector = await startCollector();
    const c = collector;
    const good = findNode(c, (vs) => activePrimary(vs) !== undefined);
    const empty = `NodeID-${cb58Encode(Uint8Array.from([0, 5, ...Array<number>(18).fill(9)]))}`;
    const result = await run(c, payloadOf([UNKNOWN, empty, good], { pendingRewards: false }));
    expect(result.status).toBe('succeeded');
    const summaries = await listValidatorSummaries(c.store);
    expect(Object.fromEntries(summaries.map((s) => [s.nodeId, s.known]))).toEqual({
      [UNKNOWN]: 0,
      [empty]: 0,
      [good]: 1,
    });
    expect(c.logs()).toContain('node id unknown to the API');
  });

  it('sets aside a validation whose uptime is outside 0..100 with the field named, stores the rest, and restores it once valid', async () => {
    collector = await startCollector({
      sim: { faults: { endpoints: { validatorDetails: { plan: [{ kind: 'badRecord' }] } } } },
    });
    const c = collector;
    const node = findNode(c, (vs) => activePrimary(vs) !== undefined && vs.length >= 3);
    const result = await run(c, payloadOf([node], { pendingRewards: false }));
    expect(result.status).toBe('succeeded');
    const set = await c.store.all<{
      fields: string;
      reason: string;
      natural_key: string;
      raw: string;
      endpoint: string;
      context: string;
      job: string;
      record_id: string;
      scope: string;
      problems: string;
      raw_bytes: number;
      raw_cut: number;
      first_seen_at: string;
      last_seen_at: string;
      times_seen: number;
    }>('SELECT * FROM rejected_records');
    expect(set).toHaveLength(1);
    expect(set[0]).toMatchObject({
      fields: 'uptimePerformance',
      reason: 'bounds',
      endpoint: 'validatorDetails',
      job: 'validators',
    });
    const stored = await c.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM validations');
    expect(Number(stored?.n)).toBe(c.sim.truth.validations('mainnet', node)!.length - 1);
    // The same record with a valid uptime (a later version's rules) is stored by --retry-rejected's restore.
    const raw = JSON.parse(set[0]!.raw) as { uptimePerformance: number };
    raw.uptimePerformance = 99;
    const outcome = await c.store.transaction((tx) =>
      restore(tx, { ...set[0]!, raw: JSON.stringify(raw) } as never, new Date(c.clock.now()).toISOString()),
    );
    expect(outcome).toEqual({ stored: 2 });
  });

  it('time moves: the active validation ends, is completed, and a low-uptime one counts as unrewarded', async () => {
    collector = await startCollector();
    const c = collector;
    const low = findNode(c, (vs) => (activePrimary(vs)?.uptimePerformance ?? 100) < 80);
    await run(c, payloadOf([low], { pendingRewards: false }));
    const before = (await listValidatorSummaries(c.store))[0]!;
    const end = activePrimary(c.sim.truth.validations('mainnet', low)!)!.endTimestamp;
    c.clock.set(end * 1000 + 1000);
    await run(c, payloadOf([low], { pendingRewards: false }));
    const after = (await listValidatorSummaries(c.store))[0]!;
    expect(after.unrewarded).toBe(before.unrewarded + 1);
    expect(after.newestUnrewardedEnd).toBe(end);
    const row = await c.store.get<{
      status: string;
      validation_reward: string;
      potential_validation_reward: string;
    }>(
      'SELECT status, validation_reward, potential_validation_reward FROM validations WHERE end_timestamp = ? AND node_id = ?',
      [end, low],
    );
    // What was promised stays beside what was paid.
    expect(row).toMatchObject({ status: 'completed', validation_reward: '0' });
    expect(BigInt(row!.potential_validation_reward)).toBeGreaterThan(0n);
    expect(await nodeIdsWithAutoRenewedValidation(c.store, 'mainnet')).toEqual([]);
  });

  it('reads pending rewards at most every pendingRewardsEvery', async () => {
    collector = await startCollector();
    const c = collector;
    const node = findNode(c, (vs) => activePrimary(vs) !== undefined);
    const every = 3_600_000;
    expect((await run(c, payloadOf([node], { pendingRewardsEvery: every }))).requests).toBe(2);
    c.clock.advance(15 * 60_000);
    expect((await run(c, payloadOf([node], { pendingRewardsEvery: every }))).requests).toBe(1);
    c.clock.advance(every);
    expect((await run(c, payloadOf([node], { pendingRewardsEvery: every }))).requests).toBe(2);
    const rows = await c.store.all<{ reward_type: string; estimated_amount: string }>(
      'SELECT reward_type, estimated_amount FROM pending_rewards ORDER BY reward_type',
    );
    expect(rows.map((r) => r.reward_type)).toContain('VALIDATOR');
  });
});
