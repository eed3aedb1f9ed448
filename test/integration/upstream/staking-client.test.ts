/**
 * The client's staking calls against the simulator over HTTP: a node's validations and pending
 * rewards parsed, a record out of its domain set aside naming its field, drift noted, the next SDK's
 * `stakingType` read tolerantly, a node the API does not know a 404, the compute units of each call.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { demoNodeId } from '../../../src/commands/demo-config.js';
import { createManualClock } from '../../../src/runtime/clock.js';
import { hasAutoRenewed } from '../../../src/simulator/data/auto-renewed.js';
import { type SimulatorHandle, type SimulatorOptions, startSimulator } from '../../../src/simulator/index.js';
import { cb58Encode } from '../../../src/upstream/identifiers.js';
import { createDataApiClient, UpstreamHttpError } from '../../../src/upstream/index.js';

const T0 = Date.UTC(2025, 5, 2, 12);
const NODE = demoNodeId('node-0');
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

async function rig(options: SimulatorOptions = {}) {
  const sim: SimulatorHandle = await startSimulator({ port: 0, clock: createManualClock(T0), ...options });
  const client = createDataApiClient({ baseUrl: sim.url, retry: { maxAttempts: 1 } });
  open.push(sim, client);
  return { sim, client };
}

describe('listValidatorDetails', () => {
  it("reads a node's validations, each typed, and costs 20 compute units a page", async () => {
    const { client } = await rig();
    const page = await client.listValidatorDetails({ network: 'mainnet', nodeId: NODE, pageSize: 100 });
    expect(page.findings).toBeUndefined();
    const active = page.items.find((v) => v.validationStatus === 'active');
    expect(active?.uptimePerformance).toBeGreaterThan(0);
    expect(page.items.some((v) => v.validationStatus === 'completed' && v.rewards)).toBe(true);
    expect(client.meter.snapshot().byEndpoint.validatorDetails).toEqual({ requests: 1, computeUnits: 20 });
  });

  it('sets aside a validation whose uptime is outside 0..100, naming the field; the others pass', async () => {
    const { client } = await rig({
      faults: { endpoints: { validatorDetails: { plan: [{ kind: 'badRecord' }] } } },
    });
    const page = await client.listValidatorDetails({
      network: 'mainnet',
      nodeId: NODE,
      validationStatus: 'active',
    });
    expect(page.items).toHaveLength(0);
    expect(page.findings?.rejected).toHaveLength(1);
    expect(page.findings?.rejected[0]).toMatchObject({ reason: 'bounds', fields: ['uptimePerformance'] });
    expect(page.findings?.rejected[0]?.key).toMatch(/^NodeID-.+:.+$/);
  });

  it("notes the next SDK's stakingType values it does not know, and keeps the record", async () => {
    const { client } = await rig({
      faults: { endpoints: { validatorDetails: { plan: [{ kind: 'drift' }] } } },
    });
    const page = await client.listValidatorDetails({ network: 'mainnet', nodeId: NODE, pageSize: 5 });
    expect(page.items).toHaveLength(5);
    expect(page.items[1]?.stakingType).toBe('fixed');
    const names = page.findings?.drift.map((d) => d.name);
    expect(names).toContain('validators[].stakingType=simNewStakingType');
    expect(names).toContain('validators[].simDriftField');
  });

  it('a node id the API does not know is a 404', async () => {
    const { client } = await rig();
    const unknown = `NodeID-${cb58Encode(Uint8Array.from([0, 0, ...Array<number>(18).fill(3)]))}`;
    const error = await client
      .listValidatorDetails({ network: 'mainnet', nodeId: unknown })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamHttpError);
    expect((error as UpstreamHttpError).status).toBe(404);
  });
});

describe('listPendingRewards', () => {
  it('reads pending rewards of node ids at 100 compute units, and refuses a call without subjects', async () => {
    const { client } = await rig();
    const page = await client.listPendingRewards({ network: 'mainnet', nodeIds: [NODE] });
    expect(page.items.map((r) => r.rewardType)).toContain('VALIDATOR');
    expect(page.items[0]?.progress).toBeGreaterThan(0);
    expect(client.meter.snapshot().byEndpoint.pendingRewards).toEqual({ requests: 1, computeUnits: 100 });
    await expect(client.listPendingRewards({ network: 'mainnet' })).rejects.toThrow(/addresses or nodeIds/);
  });
});

describe('listValidatorCycles', () => {
  const fujiNode = (() => {
    for (let i = 0; i < 500; i++) {
      const id = demoNodeId(`cycles-${i}`);
      if (hasAutoRenewed(1, 'testnet', id)) return id;
    }
    throw new Error('no auto-renewed node among 500 labels');
  })();

  it('reads settled cycles typed, currentCycle on the first page only, 20 compute units a page', async () => {
    const { client } = await rig({ seed: 1 });
    const first = await client.listValidatorCycles({ network: 'fuji', nodeId: fujiNode, pageSize: 2 });
    expect(first.findings).toBeUndefined();
    expect(first.items).toHaveLength(2);
    expect(first.items[0]!.endTimestamp).toBeGreaterThan(first.items[1]!.endTimestamp);
    expect(first.currentCycle?.stakingTxHash).toBeTruthy();
    const second = await client.listValidatorCycles({
      network: 'fuji',
      nodeId: fujiNode,
      pageSize: 2,
      pageToken: first.nextPageToken,
    });
    expect(second.currentCycle).toBeUndefined();
    expect(client.meter.snapshot().byEndpoint.validatorCycles).toEqual({ requests: 2, computeUnits: 40 });
  });

  it('sets aside a cycle whose amounts do not add up, naming the fields; the others pass', async () => {
    const { client } = await rig({
      seed: 1,
      faults: { endpoints: { validatorCycles: { plan: [{ kind: 'badRecord' }] } } },
    });
    const page = await client.listValidatorCycles({ network: 'fuji', nodeId: fujiNode, pageSize: 3 });
    expect(page.items).toHaveLength(2);
    const [rejected] = page.findings?.rejected ?? [];
    expect(rejected).toMatchObject({ reason: 'schema', fields: ['grossValidationReward'] });
    expect(rejected?.problems).toMatch(
      /grossValidationReward \d+ ≠ withdrawnValidationReward \d+ \+ compoundedValidationReward \d+/,
    );
    expect(rejected?.key).toMatch(/^\w+:\d+$/);
  });

  it('keeps a cycle with an outcome or a field it does not know, and notes the drift', async () => {
    const { client } = await rig({
      seed: 1,
      faults: { endpoints: { validatorCycles: { plan: [{ kind: 'drift' }] } } },
    });
    const page = await client.listValidatorCycles({ network: 'fuji', nodeId: fujiNode, pageSize: 3 });
    expect(page.items).toHaveLength(3);
    expect(page.items[0]?.outcome).toBe('simNewOutcome');
    const names = page.findings?.drift.map((d) => d.name);
    expect(names).toEqual(
      expect.arrayContaining(['cycles[].simDriftField', 'cycles[].outcome=simNewOutcome']),
    );
  });

  it('gets an empty list for a Mainnet node (Helicon unscheduled there)', async () => {
    const { client } = await rig();
    const page = await client.listValidatorCycles({ network: 'mainnet', nodeId: NODE });
    expect(page.items).toEqual([]);
    expect(page.currentCycle).toBeUndefined();
  });
});
