/**
 * The validators job's bad input: a section left without node ids names both keys that would give
 * them; a validation out of its domain (a timestamp out of range, a negative stake, a percentage
 * outside 0..100) is set aside naming the field, and the same record in its domain passes.
 */
import { describe, expect, it } from 'vitest';
import { demoNodeId } from '../../src/commands/demo-config.js';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { createValidatorSource } from '../../src/simulator/data/validators.js';
import { recheckRecord } from '../../src/upstream/records.js';

function configMessage(file: Record<string, unknown>): string {
  try {
    loadConfig({ env: {}, cwd: '/nonexistent', file });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('jobs.validators without node ids', () => {
  it.each([
    ['no rewards job', { jobs: { validators: {} } }],
    [
      'a rewards job without node ids',
      { jobs: { rewards: { schedule: '0 * * * *', addresses: [] }, validators: {} } },
    ],
    ['an empty list', { jobs: { validators: { nodeIds: [] } } }],
  ])('%s: a config error naming jobs.validators.nodeIds and jobs.rewards.nodeIds', (_, file) => {
    const message = configMessage(file);
    expect(message).toContain('jobs.validators.nodeIds');
    expect(message).toContain('jobs.rewards.nodeIds');
  });

  it('takes the rewards job’s node ids when it names none', () => {
    const nodeId = demoNodeId('cfg');
    const config = loadConfig({
      env: {},
      cwd: '/nonexistent',
      file: { jobs: { rewards: { schedule: '0 * * * *', nodeIds: [nodeId] }, validators: {} } },
    });
    expect(config.jobs.validators?.nodeIds).toEqual([nodeId]);
  });
});

/** A well-formed validation the simulator would send, as JSON text. */
function validation(): Record<string, unknown> {
  const source = createValidatorSource({
    seed: 3,
    now: () => Date.UTC(2025, 5, 15),
    epochMs: Date.UTC(2025, 5, 15),
  });
  for (let i = 0; ; i++) {
    const vs = source.validations('mainnet', demoNodeId(`input-${i}`));
    const active = vs?.find((v) => v.validationStatus === 'active');
    if (active) return JSON.parse(JSON.stringify(active)) as Record<string, unknown>;
  }
}

describe('a validation out of its domain', () => {
  it('passes as sent', () => {
    expect(recheckRecord('validatorDetails', JSON.stringify(validation())).ok).toBe(true);
  });

  it.each([
    ['startTimestamp', { startTimestamp: 99_999_999_999_999 }],
    ['endTimestamp', { endTimestamp: -1 }],
    ['amountStaked', { amountStaked: '-5000000000' }],
    ['uptimePerformance', { uptimePerformance: 100.5 }],
    ['uptimePerformance', { uptimePerformance: -1 }],
    ['delegationFee', { delegationFee: '150.0000' }],
  ])('is set aside naming %s', (field, change) => {
    const checked = recheckRecord('validatorDetails', JSON.stringify({ ...validation(), ...change }));
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.rejected.fields).toContain(field);
    expect(checked.rejected.problems).toContain(field);
  });
});
