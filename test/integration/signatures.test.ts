/**
 * The signatures job, one hash at a time, on the simulator over HTTP: each hash its own outcome
 * (stored, not found, below quorum, refused), none blocking the others; the run fails only when the
 * API as a whole does.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { jobs } from '../../jobs/index.js';
import { type SignaturesPayload, signatureOutcomeOf, signatures } from '../../jobs/signatures.js';
import { demoCb58 } from '../../src/commands/demo-config.js';
import { runHandler } from '../../src/kernel/index.js';
import { collectStatus, formatStatus } from '../../src/report/status.js';
import type { FaultConfig } from '../../src/simulator/index.js';
import { type Collector, startCollector } from '../support/collector.js';
import { value } from '../support/exposition.js';
import { rig, txHashes as rigHashes } from '../support/metrics-rig.js';

const BELOW = 'failed to aggregate signatures: failed to connect to a threshold of stake';
const WEIGHT = 'signature weight is insufficient: 40 < 67';
const hash = (label: string) => demoCb58(`sig-${label}`);
const [refused, quorumThenOk, notFound, notJson, ok, alwaysBelow] = [
  'refused',
  'quorum',
  'not-found',
  'not-json',
  'ok',
  'always-below',
].map(hash) as [string, string, string, string, string, string];

const faults: FaultConfig = {
  signatures: {
    [refused]: [{ status: 400, message: 'no warp message in this transaction' }],
    [quorumThenOk]: [{ status: 400, message: BELOW }, { status: 400, message: WEIGHT }, { kind: 'ok' }],
    [notFound]: [{ status: 404, message: 'transaction not found' }],
    [notJson]: [{ status: 422, text: '<html>\u001b[31mrefused\u001b[0m</html>' }],
    [alwaysBelow]: [{ status: 400, message: BELOW }],
  },
};

let collector: Collector | undefined;
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  await collector?.close();
  collector = undefined;
  for (const close of closers.splice(0).reverse()) await close();
});

async function setup(options: Parameters<typeof startCollector>[0]): Promise<Collector> {
  collector = await startCollector(options);
  return collector;
}

const payloadOf = (txHashes: string[]): SignaturesPayload => ({
  network: 'mainnet',
  txHashes,
  // Short pauses: the job's own waits are real (the client's retries are recorded, not slept).
  belowQuorumPauses: [0.001, 0.002, 0.004],
});
const everyHash = [refused, quorumThenOk, notFound, notJson, ok];
const run = (c: Collector, payload: SignaturesPayload) =>
  runHandler('signatures', signatures, payload, c.deps);
const asked = (c: Collector, txHash: string) =>
  c.sim.requests.filter((r) => r.endpoint === 'signatures' && r.path.endsWith(`/${txHash}`)).length;
const attempts = (c: Collector) =>
  c.store.all<Record<string, unknown>>(
    'SELECT tx_hash, outcome, status, message, failures, next_attempt_at FROM signature_attempts ORDER BY tx_hash',
  );
const stored = async (c: Collector) =>
  (await c.store.all<{ tx_hash: string }>('SELECT tx_hash FROM signatures ORDER BY tx_hash')).map(
    (r) => r.tx_hash,
  );

describe('signatures job, one hash at a time', () => {
  it('gives each hash its own outcome and goes on to every other hash', async () => {
    const c = await setup({ sim: { faults } });
    const first = await run(c, payloadOf(everyHash));
    expect(first.status).toBe('succeeded');
    expect(await stored(c)).toEqual([quorumThenOk, ok].sort());
    // Below quorum twice, then signed within the run; every other hash asked once.
    expect(everyHash.map((h) => asked(c, h))).toEqual([1, 3, 1, 1, 1]);
    const rows = new Map((await attempts(c)).map((r) => [r.tx_hash, r]));
    expect([...rows.keys()].sort()).toEqual([refused, notFound, notJson].sort());
    expect(rows.get(refused)).toMatchObject({ outcome: 'refused', status: 400, failures: 1 });
    expect(rows.get(refused)?.message).toBe('no warp message in this transaction');
    expect(rows.get(notFound)).toMatchObject({ outcome: 'not_found', status: 404 });
    // A body that is not JSON is a refusal like any other, its text kept escaped.
    expect(rows.get(notJson)).toMatchObject({ outcome: 'refused', status: 422 });
    expect(String(rows.get(notJson)?.message)).not.toContain('\u001b');
    expect(String(rows.get(notJson)?.message)).toContain('refused');

    // At once again: only the hash not found yet is asked (no compute units on the refused ones).
    const second = await run(c, payloadOf(everyHash));
    expect(second).toMatchObject({ status: 'succeeded', requests: 1, computeUnits: 20 });
    expect(asked(c, notFound)).toBe(2);

    // After the refused hashes' backoff (1 h), they are asked again, and wait twice as long.
    c.clock.advance(61 * 60_000);
    await run(c, payloadOf(everyHash));
    expect([asked(c, refused), asked(c, notJson)]).toEqual([2, 2]);
    const again = new Map((await attempts(c)).map((r) => [r.tx_hash, r]));
    expect(again.get(refused)).toMatchObject({ failures: 2 });
    expect(Date.parse(String(again.get(refused)?.next_attempt_at)) - c.clock.now()).toBe(2 * 3_600_000);

    // A changed section asks the refused hashes at once.
    await run(c, payloadOf([...everyHash, hash('new')]));
    expect([asked(c, refused), asked(c, notJson), asked(c, hash('new'))]).toEqual([3, 3, 1]);
    expect(await stored(c)).toContain(hash('new'));
  });

  it('retries below quorum within the run up to its bound, then only after its backoff', async () => {
    const c = await setup({ sim: { faults } });
    const first = await run(c, payloadOf([alwaysBelow, ok]));
    expect(first.status).toBe('succeeded');
    // Three pauses: four attempts, then the next hash.
    expect(asked(c, alwaysBelow)).toBe(4);
    expect(await stored(c)).toEqual([ok]);
    expect(await attempts(c)).toMatchObject([{ tx_hash: alwaysBelow, outcome: 'below_quorum', failures: 1 }]);
    expect((await run(c, payloadOf([alwaysBelow, ok]))).requests).toBe(0);
    c.clock.advance(11 * 60_000);
    await run(c, payloadOf([alwaysBelow, ok]));
    expect(asked(c, alwaysBelow)).toBe(8);
    expect(await attempts(c)).toMatchObject([{ failures: 2 }]);
  });

  it('fails the run when the API as a whole fails: a 401 stops it, what was stored stays', async () => {
    const keyRefused: FaultConfig = {
      signatures: { [notFound]: [{ status: 401, message: 'Invalid API key' }] },
    };
    const c = await setup({ sim: { faults: keyRefused } });
    const result = await run(c, payloadOf([ok, notFound, refused]));
    expect(result.status).toBe('failed');
    expect(await stored(c)).toEqual([ok]);
    expect(asked(c, refused)).toBe(0);
    expect(await attempts(c)).toEqual([]);
  });

  it('fails the run on a 5xx after the client retries', async () => {
    const down: FaultConfig = { signatures: { [notFound]: [{ status: 503 }] } };
    const c = await setup({ sim: { faults: down } });
    const result = await run(c, payloadOf([notFound, ok]));
    expect(result.status).toBe('failed');
    expect(asked(c, notFound)).toBeGreaterThan(1);
    expect(asked(c, ok)).toBe(0);
  });

  it('shows a refused hash with its message in status and in glacier_signatures_unsigned', async () => {
    const [first] = rigHashes as [string];
    const r = await rig(closers, {
      sim: { faults: { signatures: { [first]: [{ status: 400, message: 'no warp message\u001b[2J' }] } } },
    });
    expect((await r.run('signatures')).status).toBe('succeeded');
    const status = await collectStatus(jobs, r.config, r.c.store, new Date(r.c.clock.now()));
    expect(status.signaturesUnsigned).toMatchObject([{ txHash: first, outcome: 'refused', status: 400 }]);
    const text = formatStatus(status);
    expect(text).toContain(`${first} (mainnet): refused, 400: no warp message`);
    expect(text).not.toContain('\u001b[2J');
    const { families } = await r.scrape();
    expect(value(families, 'glacier_signatures_unsigned', { network: 'mainnet', outcome: 'refused' })).toBe(
      1,
    );
    expect(
      value(families, 'glacier_signatures_unsigned', { network: 'mainnet', outcome: 'below_quorum' }),
    ).toBe(0);
  });
});

describe('signatureOutcomeOf', () => {
  it('reads a network error as the API failing, not as a hash outcome', () => {
    expect(signatureOutcomeOf(new Error('ECONNRESET'))).toBeUndefined();
  });
});
