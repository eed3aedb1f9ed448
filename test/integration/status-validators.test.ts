/**
 * `status` with jobs.validators: each configured node id's validation (as /metrics has it), and a
 * node id the API does not know named, while the others went on in the same run.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { jobs } from '../../jobs/index.js';
import { demoNodeId } from '../../src/commands/demo-config.js';
import { findJob, runJob } from '../../src/kernel/index.js';
import { collectStatus, formatStatus } from '../../src/report/status.js';
import type { ValidatorDetails } from '../../src/simulator/validator-types.js';
import { cb58Encode } from '../../src/upstream/identifiers.js';
import { type Collector, configOf, startCollector } from '../support/collector.js';

let c: Collector | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

const PRIMARY = '11111111111111111111111111111111LpoYY';
/** Two zero bytes first: the simulator answers 404. */
const UNKNOWN = `NodeID-${cb58Encode(Uint8Array.from([0, 0, ...Array<number>(18).fill(9)]))}`;
/** One zero byte first: known, with no validation at all (an empty list). */
const EMPTY = `NodeID-${cb58Encode(Uint8Array.from([0, ...Array<number>(19).fill(7)]))}`;

describe('status with validators', () => {
  it('shows each known node id and names the unknown ones; the others were read in the same run', async () => {
    c = await startCollector();
    const sim = c.sim;
    let node = '';
    let active: Extract<ValidatorDetails, { validationStatus: 'active' }> | undefined;
    for (let i = 0; !active; i++) {
      node = demoNodeId(`v-${i}`);
      active = sim.truth
        .validations('mainnet', node)
        ?.find((v) => v.validationStatus === 'active' && v.subnetId === PRIMARY) as typeof active;
    }
    const notYet = demoNodeId('added-later');
    const config = configOf({ jobs: { validators: { nodeIds: [UNKNOWN, node, EMPTY] } } });
    const summary = await runJob(findJob(jobs, 'validators')!, c.deps, { config });
    expect(summary.status).toBe('succeeded');
    const later = configOf({ jobs: { validators: { nodeIds: [UNKNOWN, node, EMPTY, notYet] } } });
    const status = await collectStatus(jobs, later, c.store, new Date(c.clock.now()));
    expect(status.validators).toMatchObject({
      network: 'mainnet',
      unknown: [UNKNOWN, EMPTY],
      notRead: [notYet],
      nodes: [
        {
          nodeId: node,
          active: true,
          endTimestamp: active.endTimestamp,
          uptimeRatio: active.uptimePerformance / 100,
        },
      ],
    });
    const text = formatStatus(status);
    expect(text).toContain('validators on mainnet: 1 known, 2 unknown to the API, 1 not read yet');
    expect(text).toContain(`${UNKNOWN}: unknown to the API (404 or no validation): check the node id`);
    expect(text).toContain(`${EMPTY}: unknown to the API`);
    const line = text.split('\n').find((l) => l.includes(node))!;
    expect(line).toContain('active');
    expect(line).toContain(`${active.uptimePerformance.toFixed(2)} %`);
  });
});
