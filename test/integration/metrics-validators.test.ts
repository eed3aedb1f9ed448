/**
 * The validator gauges: a validators run against the simulator, then /metrics as the service builds
 * it, read from validator_summaries; an unknown node id named by its own gauge; the cap keeping the
 * first configured node ids and summing the rest into "other".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { jobs } from '../../jobs/index.js';
import { demoNodeId } from '../../src/commands/demo-config.js';
import { findJob, runJob } from '../../src/kernel/index.js';
import { createMetrics, DEFAULT_SERIES_CAP } from '../../src/metrics/index.js';
import { createManualClock } from '../../src/runtime/clock.js';
import type { ValidatorDetails } from '../../src/simulator/validator-types.js';
import { cb58Encode } from '../../src/upstream/identifiers.js';
import { type Collector, configOf, startCollector } from '../support/collector.js';
import { parseExposition, samples, value } from '../support/exposition.js';
import { captureLog } from '../support/log.js';
import { testStore } from '../support/store.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const PRIMARY = '11111111111111111111111111111111LpoYY';
const UNKNOWN = `NodeID-${cb58Encode(Uint8Array.from([0, 0, ...Array<number>(18).fill(9)]))}`;
type Active = Extract<ValidatorDetails, { validationStatus: 'active' }>;
const activeOf = (vs: ValidatorDetails[]) =>
  vs.find((v) => v.validationStatus === 'active' && v.subnetId === PRIMARY) as Active | undefined;

function findNode(c: Collector, test: (vs: ValidatorDetails[]) => boolean): string {
  for (let i = 0; i < 400; i++) {
    const id = demoNodeId(`v-${i}`);
    const vs = c.sim.truth.validations('mainnet', id);
    if (vs && test(vs)) return id;
  }
  throw new Error('no such node in 400 labels');
}

const nano = (s: string) => Number(s) / 1e9;

describe('validator metrics', () => {
  it('expose each configured node id: active, end, uptime, rewards, delegations, losses; an unknown one as known 0', async () => {
    const c = await startCollector();
    cleanups.push(c.close);
    const good = findNode(c, (vs) => (activeOf(vs)?.uptimePerformance ?? 0) > 90);
    const lossy = findNode(c, (vs) =>
      vs.some(
        (v) =>
          v.validationStatus === 'completed' &&
          v.subnetId === PRIMARY &&
          v.rewards.validationRewardAmount === '0',
      ),
    );
    const config = configOf({ jobs: { validators: { nodeIds: [good, lossy, UNKNOWN] } } });
    const summary = await runJob(findJob(jobs, 'validators')!, c.deps, { config });
    expect(summary.status).toBe('succeeded');
    const { log } = captureLog('info');
    const metrics = createMetrics({ store: c.store, config, jobs, log, clock: c.clock });
    const families = parseExposition((await metrics.expose()).body);
    const truth = activeOf(c.sim.truth.validations('mainnet', good)!)!;
    const labels = { network: 'mainnet', node_id: good };
    expect(value(families, 'glacier_validator_known', labels)).toBe(1);
    expect(value(families, 'glacier_validator_active', labels)).toBe(1);
    expect(value(families, 'glacier_validator_auto_renewing', labels)).toBe(0);
    expect(value(families, 'glacier_validator_end_timestamp_seconds', labels)).toBe(truth.endTimestamp);
    expect(value(families, 'glacier_validator_period_seconds', labels)).toBe(
      truth.endTimestamp - truth.startTimestamp,
    );
    expect(value(families, 'glacier_validator_uptime_ratio', labels)).toBeCloseTo(
      truth.uptimePerformance / 100,
      12,
    );
    expect(
      value(families, 'glacier_validator_potential_reward_avax', { ...labels, kind: 'validation' }),
    ).toBe(nano(truth.potentialRewards.validationRewardAmount));
    expect(
      value(families, 'glacier_validator_potential_reward_avax', { ...labels, kind: 'delegation' }),
    ).toBe(nano(truth.potentialRewards.delegationRewardAmount));
    expect(value(families, 'glacier_validator_delegators', labels)).toBe(truth.delegatorCount);
    expect(value(families, 'glacier_validator_delegated_avax', labels)).toBe(nano(truth.amountDelegated!));
    expect(value(families, 'glacier_validator_delegation_capacity_avax', labels)).toBe(
      nano(truth.delegationCapacity!),
    );
    const pending = c.sim.truth.pendingRewards('mainnet', { nodeIds: [good] });
    expect(value(families, 'glacier_validator_pending_reward_avax', labels)).toBe(
      nano(String(pending.reduce((n, r) => n + BigInt(r.estimatedReward.amount), 0n))),
    );
    const lost = c.sim.truth
      .validations('mainnet', lossy)!
      .filter(
        (v) =>
          v.validationStatus === 'completed' &&
          v.subnetId === PRIMARY &&
          v.rewards.validationRewardAmount === '0',
      );
    expect(
      value(families, 'glacier_validator_unrewarded_validations', { network: 'mainnet', node_id: lossy }),
    ).toBe(lost.length);
    const unknown = { network: 'mainnet', node_id: UNKNOWN };
    expect(value(families, 'glacier_validator_known', unknown)).toBe(0);
    expect(value(families, 'glacier_validator_active', unknown)).toBe(0);
    expect(value(families, 'glacier_validator_uptime_ratio', unknown)).toBeUndefined();
    expect(value(families, 'glacier_scrape_collector_success', { collector: 'validators' })).toBe(1);
  });

  it('keep the first configured node ids under the cap and sum the rest into "other", amounts and counts only', async () => {
    const nodeIds = Array.from({ length: 300 }, (_, i) => demoNodeId(`cap-${i}`));
    const config = configOf({ jobs: { validators: { nodeIds } } });
    const db = await testStore();
    cleanups.push(db.cleanup);
    await db.store.transaction(async (tx) => {
      for (const [i, nodeId] of nodeIds.entries()) {
        await tx.run(
          `INSERT INTO validator_summaries (network, node_id, known, active, auto_renewing, end_timestamp,
             period_seconds, uptime_ratio, potential_validation_reward, potential_delegation_reward, delegators,
             amount_delegated, unrewarded, updated_at)
           VALUES ('mainnet', ?, 1, 1, 0, ?, 1209600, 0.99, ?, '1000000000', 2, '5000000000', 1, '2025-06-15T12:00:00.000Z')`,
          [nodeId, 2_000_000_000 + i, String((i + 1) * 1_000_000_000)],
        );
      }
    });
    const { log, text } = captureLog('info');
    const metrics = createMetrics({ store: db.store, config, jobs, log, clock: createManualClock(0) });
    const families = parseExposition((await metrics.expose()).body);
    const potential = samples(families, 'glacier_validator_potential_reward_avax');
    expect(potential.length).toBe(DEFAULT_SERIES_CAP);
    const kept = (DEFAULT_SERIES_CAP - 2) / 2;
    const active = samples(families, 'glacier_validator_active');
    expect(active.map((s) => s.labels.node_id)).toEqual([...nodeIds.slice(0, kept), 'other']);
    expect(value(families, 'glacier_validator_active', { node_id: 'other' })).toBe(300 - kept);
    expect(value(families, 'glacier_validator_unrewarded_validations', { node_id: 'other' })).toBe(
      300 - kept,
    );
    expect(value(families, 'glacier_validator_delegators', { node_id: 'other' })).toBe(2 * (300 - kept));
    // 1..300 AVAX of validation reward: nothing lost.
    const validation = potential.filter((s) => s.labels.kind === 'validation');
    expect(validation.reduce((n, s) => n + s.value, 0)).toBe((300 * 301) / 2);
    // An end or an uptime summed means nothing: no "other" series for them.
    expect(value(families, 'glacier_validator_end_timestamp_seconds', { node_id: 'other' })).toBeUndefined();
    expect(value(families, 'glacier_validator_uptime_ratio', { node_id: 'other' })).toBeUndefined();
    expect(text()).toContain('glacier_validator_active: more node ids than the cap of 500 series');
  });
});
