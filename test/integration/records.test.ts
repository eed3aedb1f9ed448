/**
 * Every record on its own (issue 22), against the simulator's badRecord and drift faults, on both
 * stores: a record that fails is set aside and the rest of its page stored, the cursor moves on, the
 * record is counted and logged once however often it is read again, drift is seen and named, a second
 * run spends what a clean one spends, and `--retry-rejected` stores what passes today without a
 * request. Status and the metrics show it.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jobs as allJobs } from '../../jobs/index.js';
import { maintenance } from '../../jobs/maintenance.js';
import { rewards } from '../../jobs/rewards.js';
import { signatures } from '../../jobs/signatures.js';
import { transactions } from '../../jobs/transactions.js';
import { usageMetrics } from '../../jobs/usage-metrics.js';
import { demoAddress, demoCb58, demoNodeId } from '../../src/commands/demo-config.js';
import { findJob, type JobHandler, runHandler, runJob } from '../../src/kernel/index.js';
import { createMetrics } from '../../src/metrics/index.js';
import { collectStatus, formatStatus } from '../../src/report/status.js';
import type { SimulatorOptions } from '../../src/simulator/index.js';
import { recordFindings } from '../../src/store/index.js';
import {
  type Collector,
  configOf,
  evmExportPayload,
  retentionOnly,
  startCollector,
} from '../support/collector.js';
import { runExportsPass } from '../support/exports.js';
import { captureLog } from '../support/log.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function setup(sim?: SimulatorOptions): Promise<Collector> {
  const c = await startCollector(sim ? { sim } : {});
  cleanups.push(c.close);
  return c;
}

const run = <P>(c: Collector, name: string, handler: JobHandler<P>, payload: P) =>
  runHandler(name, handler, payload, c.deps);
const count = async (c: Collector, sql: string, params: unknown[] = []) =>
  Number((await c.store.get<{ n: number }>(sql, params))!.n);
const lines = (c: Collector, message: string) =>
  c
    .logs()
    .split('\n')
    .filter((l) => l.includes(message));

const txPayload = { networks: ['mainnet' as const], statuses: ['all' as const], pageSize: 100, maxPages: 2 };
const rewardsPayload = {
  network: 'mainnet' as const,
  addresses: [demoAddress('validator-1')],
  nodeIds: [demoNodeId('node-1')],
  currency: 'usd' as const,
  pageSize: 100,
  maxPages: 50,
};
const usagePayload = {
  sources: [
    {
      source: 'dataApi' as const,
      timeInterval: 'hourly' as const,
      groupBy: 'requestPath' as const,
      lookback: 2 * 86_400_000,
    },
  ],
};

describe('a record that fails is set aside, never the page', () => {
  it('transactions: the rest of the page is stored, the cursor moves on, the record is counted and logged once', async () => {
    const c = await setup();
    c.sim.setFaults({ endpoints: { transactions: { plan: [{ kind: 'badRecord' }] } } });
    const first = await run(c, 'transactions', transactions, txPayload);
    expect(first).toMatchObject({
      status: 'succeeded',
      rowsWritten: 199,
      requests: 2,
      rejected: { bounds: 1 },
    });
    expect(await count(c, 'SELECT COUNT(*) AS n FROM transactions')).toBe(199);
    const truth = c.sim.truth.transactions({ network: 'mainnet' }).slice(0, 200);
    const bad = truth[50]!;
    const row = await c.store.get<Record<string, unknown>>(
      `SELECT job, record_id AS "recordId", scope, endpoint, natural_key AS "naturalKey", reason, fields,
         problems, raw, raw_cut AS "rawCut", times_seen AS "timesSeen" FROM rejected_records`,
    );
    expect(row).toMatchObject({
      job: 'transactions',
      recordId: `${bad.chainId}:${bad.txHash}`,
      naturalKey: `${bad.chainId}:${bad.txHash}`,
      scope: 'mainnet/all',
      endpoint: 'transactions',
      reason: 'bounds',
      fields: 'blockTimestamp',
      rawCut: 0,
      timesSeen: 1,
    });
    expect(row!['problems']).toContain(
      'blockTimestamp: out of bounds: expected Unix seconds before 2100-01-01',
    );
    expect(JSON.parse(row!['raw'] as string)).toEqual({ ...bad, blockTimestamp: 99_999_999_999 });
    // The cursor moved on: the next run, nothing new upstream, reads one page.
    expect(await count(c, "SELECT COUNT(*) AS n FROM sync_state WHERE job = 'transactions'")).toBe(1);
    expect(lines(c, 'record set aside')).toHaveLength(1);

    // The same record in the newest page again (a quiet chain's page read on every run): seen again,
    // not counted, not logged again.
    c.sim.setFaults({ endpoints: { transactions: { plan: [{ kind: 'badRecord' }] } } });
    const second = await run(c, 'transactions', transactions, txPayload);
    expect(second).toMatchObject({ status: 'succeeded', requests: 1, rejected: {} });
    expect(await count(c, 'SELECT times_seen AS n FROM rejected_records')).toBe(2);
    expect(lines(c, 'record set aside')).toHaveLength(1);
  });

  it('a second run spends no more than a clean second run', async () => {
    const spent = async (faulty: boolean) => {
      const c = await setup();
      if (faulty) {
        c.sim.setFaults({
          endpoints: {
            transactions: { plan: [{ kind: 'badRecord' }, { kind: 'drift' }] },
            rewards: { plan: [{ kind: 'badRecord' }] },
            apiUsageMetrics: { plan: [{ kind: 'badRecord' }] },
            signatures: { plan: [{ kind: 'badRecord' }] },
          },
        });
      }
      const sigs = { network: 'mainnet' as const, txHashes: [demoCb58('a'), demoCb58('b')] };
      const round = async () => [
        await run(c, 'transactions', transactions, txPayload),
        await run(c, 'rewards', rewards, rewardsPayload),
        await run(c, 'usage-metrics', usageMetrics, usagePayload),
        await run(c, 'signatures', signatures, sigs),
      ];
      const firstRound = await round();
      expect(firstRound.map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
      c.clock.advance(60_000);
      const secondRound = await round();
      return secondRound.map((r) => ({
        job: r.job,
        status: r.status,
        requests: r.requests,
        cu: r.computeUnits,
      }));
    };
    const clean = await spent(false);
    const faulty = await spent(true);
    for (const [i, f] of faulty.entries()) {
      expect(f.status).toBe('succeeded');
      expect(f.cu, f.job).toBeLessThanOrEqual(clean[i]!.cu);
    }
  });

  it('rewards: one with a denomination of -3 is set aside, keyed by network and UTXO; the others are stored', async () => {
    const c = await setup();
    c.sim.setFaults({ endpoints: { rewards: { plan: [{ kind: 'badRecord' }] } } });
    const result = await run(c, 'rewards', rewards, rewardsPayload);
    expect(result).toMatchObject({ status: 'succeeded', rejected: { bounds: 1 } });
    const set = await c.store.all<{ recordId: string; fields: string; scope: string }>(
      'SELECT record_id AS "recordId", fields, scope FROM rejected_records',
    );
    expect(set).toHaveLength(1);
    expect(set[0]!.recordId).toMatch(/^mainnet:[1-9A-HJ-NP-Za-km-z]{40,60}$/);
    expect(set[0]!.fields).toBe('reward.denomination');
    const utxo = set[0]!.recordId.slice('mainnet:'.length);
    expect(await count(c, 'SELECT COUNT(*) AS n FROM rewards WHERE utxo_id = ?', [utxo])).toBe(0);
    expect(await count(c, 'SELECT COUNT(*) AS n FROM rewards')).toBeGreaterThan(0);
  });

  it('usage metrics: a value that is a word is set aside, the bucket keeps the others', async () => {
    const c = await setup();
    c.sim.setFaults({ endpoints: { apiUsageMetrics: { plan: [{ kind: 'badRecord' }] } } });
    const result = await run(c, 'usage-metrics', usageMetrics, usagePayload);
    expect(result).toMatchObject({ status: 'succeeded', rejected: { schema: 1 } });
    const row = await c.store.get<{ recordId: string; fields: string; context: string }>(
      'SELECT record_id AS "recordId", fields, CAST(context AS TEXT) AS context FROM rejected_records',
    );
    expect(row!.fields).toBe('value.totalRequests');
    expect(row!.recordId).toMatch(/^dataApi\/hourly\/groupBy=requestPath\/\d+\/requestPath\//);
    expect(JSON.parse(row!.context)).toMatchObject({
      source: 'dataApi',
      timeInterval: 'hourly',
      aggregateDuration: '1h',
    });
    expect(await count(c, 'SELECT COUNT(*) AS n FROM usage_metrics')).toBeGreaterThan(10);
  });

  it('signatures: an answer that fails is set aside and not asked for again', async () => {
    const c = await setup();
    c.sim.setFaults({ endpoints: { signatures: { plan: [{ kind: 'badRecord' }] } } });
    const hashes = [demoCb58('a'), demoCb58('b')];
    const payload = { network: 'mainnet' as const, txHashes: hashes };
    const first = await run(c, 'signatures', signatures, payload);
    expect(first).toMatchObject({ status: 'succeeded', requests: 2, rejected: { schema: 1 } });
    expect(await c.store.all('SELECT record_id AS "recordId", fields FROM rejected_records')).toEqual([
      { recordId: `mainnet:${hashes[0]}`, fields: 'signedMessage' },
    ]);
    expect(await count(c, 'SELECT COUNT(*) AS n FROM signatures')).toBe(1);
    const second = await run(c, 'signatures', signatures, payload);
    expect(second).toMatchObject({ status: 'succeeded', requests: 0, computeUnits: 0 });
  });
});

describe('drift: what the OpenAPI does not list is stored, and seen', () => {
  it('transactions: contract creations are stored with a NULL recipient; unknown fields and values named once', async () => {
    const c = await setup();
    c.sim.setFaults({ endpoints: { transactions: { plan: [{ kind: 'drift' }, { kind: 'drift' }] } } });
    const result = await run(c, 'transactions', transactions, txPayload);
    expect(result).toMatchObject({ status: 'succeeded', rowsWritten: 200, rejected: {} });
    expect(await count(c, 'SELECT COUNT(*) AS n FROM transactions WHERE to_address IS NULL')).toBe(4);
    expect(
      await count(c, 'SELECT COUNT(*) AS n FROM transactions WHERE to_name IS NULL AND to_address IS NULL'),
    ).toBe(4);
    const drift = await c.store.all<{ kind: string; name: string; timesSeen: number }>(
      'SELECT kind, name, times_seen AS "timesSeen" FROM upstream_drift ORDER BY kind, name',
    );
    expect(drift).toEqual([
      {
        kind: 'enumValue',
        name: 'transactions[].method.callType=SIM_NEW_CALL_TYPE',
        timesSeen: expect.any(Number),
      },
      { kind: 'field', name: 'transactions[].simDriftField', timesSeen: 200 },
    ]);
    expect(lines(c, 'the OpenAPI does not list')).toHaveLength(2);
  });

  it('rewards: a field the OpenAPI does not list and a new reward type are stored as sent and seen', async () => {
    const c = await setup();
    c.sim.setFaults({ endpoints: { rewards: { plan: [{ kind: 'drift' }] } } });
    const result = await run(c, 'rewards', rewards, rewardsPayload);
    expect(result.status).toBe('succeeded');
    expect(
      await count(c, "SELECT COUNT(*) AS n FROM rewards WHERE reward_type = 'SIM_NEW_REWARD_TYPE'"),
    ).toBe(1);
    const names = await c.store.all<{ name: string }>('SELECT name FROM upstream_drift ORDER BY name');
    expect(names.map((n) => n.name)).toEqual([
      'historicalRewards[].rewardType=SIM_NEW_REWARD_TYPE',
      'historicalRewards[].simDriftField',
    ]);
    // Seen again later: counted, not logged again.
    c.sim.setFaults({ endpoints: { rewards: { plan: [{ kind: 'drift' }] } } });
    await run(c, 'rewards', rewards, rewardsPayload);
    expect(lines(c, 'the OpenAPI does not list')).toHaveLength(2);
  });

  it('keeps at most 50 names per endpoint; the rest count under (more)', async () => {
    const c = await setup();
    const at = new Date(c.clock.now()).toISOString();
    const names = Array.from({ length: 60 }, (_, i) => ({ kind: 'field' as const, name: `f${i}`, count: 1 }));
    const recorded = await c.store.transaction((tx) =>
      recordFindings(
        tx,
        { endpoint: 'rewards', rejected: [], drift: names },
        { job: 'rewards', scope: 's', context: {}, at },
      ),
    );
    expect(recorded.newDrift).toHaveLength(50);
    expect(await count(c, "SELECT COUNT(*) AS n FROM upstream_drift WHERE endpoint = 'rewards'")).toBe(51);
    expect(await count(c, "SELECT times_seen AS n FROM upstream_drift WHERE name = '(more)'")).toBe(10);
  });
});

describe('export rows on their own', () => {
  it('a row without its key is set aside under exports; a file of mixed line endings and a __proto__ column loads whole', async () => {
    const c = await setup({ exports: { runningMs: 0 } });
    const tmp = join((await import('node:os')).tmpdir(), `glacier-records-${process.pid}-${Date.now()}`);
    cleanups.push(async () => (await import('node:fs/promises')).rm(tmp, { recursive: true, force: true }));
    c.sim.setFaults({ endpoints: { download: { plan: [{ kind: 'badRecord' }] } } });
    const first = await runExportsPass(c, evmExportPayload(join(tmp, 'a')));
    expect(first.status).toBe('succeeded');
    expect(await count(c, 'SELECT COUNT(*) AS n FROM exported_transactions')).toBe(499);
    const row = await c.store.get<{ job: string; endpoint: string; fields: string; raw: string }>(
      'SELECT job, endpoint, fields, raw FROM rejected_records',
    );
    expect(row).toMatchObject({ job: 'exports', endpoint: 'exportFile', fields: 'txHash' });
    expect(JSON.parse(row!.raw)).toMatchObject({ txHash: '', chainId: '43114' });

    const d = await setup({ exports: { runningMs: 0 } });
    d.sim.setFaults({ endpoints: { download: { plan: [{ kind: 'drift' }] } } });
    const drifted = await runExportsPass(d, evmExportPayload(join(tmp, 'b')));
    expect(drifted.status).toBe('succeeded');
    // One row's block time is out of bounds (set aside); every other row is in, none with a \r left.
    expect(await count(d, 'SELECT COUNT(*) AS n FROM exported_transactions')).toBe(499);
    expect(
      await count(d, 'SELECT COUNT(*) AS n FROM exported_transactions WHERE block_timestamp IS NULL'),
    ).toBe(0);
    const extras = await d.store.all<{ extra: string }>(
      'SELECT CAST(extra AS TEXT) AS extra FROM exported_transactions',
    );
    for (const { extra } of extras) {
      const parsed = JSON.parse(extra) as Record<string, unknown>;
      expect(Object.getOwnPropertyDescriptor(parsed, '__proto__')?.value).toBe('proto-value');
      expect(parsed['simDriftColumn']).toBe('drift');
    }
    expect(await d.store.get('SELECT fields, reason FROM rejected_records')).toEqual({
      fields: 'blockTimestamp',
      reason: 'bounds',
    });
  });
});

describe('run <job> --retry-rejected', () => {
  it('stores what passes today through the job, keeps what still fails with its new reason, sends nothing', async () => {
    const c = await setup();
    c.sim.setFaults({ endpoints: { transactions: { plan: [{ kind: 'badRecord' }] } } });
    await run(c, 'transactions', transactions, txPayload);
    const valid = c.sim.truth.transactions({ network: 'mainnet' })[150]!;
    // What an earlier, stricter version set aside and this one accepts (its raw is a good record);
    // and a record whose text was cut at 16 KiB.
    const at = new Date(c.clock.now()).toISOString();
    await c.store.transaction((tx) =>
      recordFindings(
        tx,
        {
          endpoint: 'transactions',
          rejected: [
            { raw: valid, reason: 'schema', fields: ['to'], problems: 'to: an older rule', key: undefined },
            {
              raw: { blob: 'x'.repeat(20_000) },
              reason: 'schema',
              fields: ['txHash'],
              problems: 'old',
              key: 'cut',
            },
          ],
          drift: [],
        },
        { job: 'transactions', scope: 'mainnet/all', context: { network: 'mainnet' }, at },
      ),
    );
    await c.store.run(`DELETE FROM transactions WHERE tx_hash = ?`, [valid.txHash]);
    expect(await count(c, 'SELECT COUNT(*) AS n FROM rejected_records')).toBe(3);
    const before = c.sim.requests.length;
    const config = configOf({ jobs: { transactions: { schedule: '* * * * *', maxPages: 2 } } });
    const retried = await runJob(findJob(allJobs, 'transactions')!, c.deps, { config, retryRejected: true });
    expect(retried).toMatchObject({
      status: 'succeeded',
      scope: 'retry-rejected',
      requests: 0,
      computeUnits: 0,
      rowsWritten: 1,
    });
    expect(c.sim.requests.length).toBe(before);
    expect(await count(c, 'SELECT COUNT(*) AS n FROM transactions WHERE tx_hash = ?', [valid.txHash])).toBe(
      1,
    );
    const left = await c.store.all<{ fields: string; rawCut: number }>(
      'SELECT fields, raw_cut AS "rawCut" FROM rejected_records ORDER BY fields',
    );
    // Still out of bounds (its reason today), and the cut one, unread.
    expect(left).toEqual([
      { fields: 'blockTimestamp', rawCut: 0 },
      { fields: 'txHash', rawCut: 1 },
    ]);
    expect(c.logs()).toContain('"restored":1,"stillFailing":1,"cut":1');
    expect(await c.store.get("SELECT scope, requests FROM job_runs WHERE scope = 'retry-rejected'")).toEqual({
      scope: 'retry-rejected',
      requests: 0,
    });
  });

  it('stores a reward set aside with its exact price, and a usage value and a signature through their jobs', async () => {
    const c = await setup();
    c.sim.setFaults({
      endpoints: {
        rewards: { plan: [{ kind: 'badRecord' }] },
        apiUsageMetrics: { plan: [{ kind: 'badRecord' }] },
        signatures: { plan: [{ kind: 'badRecord' }] },
      },
    });
    c.clock.advance(0);
    await run(c, 'rewards', rewards, rewardsPayload);
    await run(c, 'usage-metrics', usageMetrics, usagePayload);
    const sigs = { network: 'mainnet' as const, txHashes: [demoCb58('a')] };
    await run(c, 'signatures', signatures, sigs);
    // "An upgrade that accepts it": the stored text made valid, as a later version would read it.
    const rows = await c.store.all<{ job: string; recordId: string; raw: string }>(
      'SELECT job, record_id AS "recordId", raw FROM rejected_records ORDER BY job',
    );
    expect(rows.map((r) => r.job)).toEqual(['rewards', 'signatures', 'usage-metrics']);
    const fixed = (r: { raw: string }) =>
      r.raw
        .replace('"denomination":-3', '"denomination":9')
        .replace('"totalRequests":"many"', '"totalRequests":7')
        .replace('"signedMessage":"not hex"', '"signedMessage":"0xabcdef"');
    for (const r of rows) {
      await c.store.run('UPDATE rejected_records SET raw = ? WHERE job = ? AND record_id = ?', [
        fixed(r),
        r.job,
        r.recordId,
      ]);
    }
    const config = configOf({
      jobs: {
        rewards: { schedule: '0 * * * *', ...rewardsPayload },
        usageMetrics: {
          schedule: '0 * * * *',
          sources: [{ source: 'dataApi', timeInterval: 'hourly', groupBy: 'requestPath', lookback: '2d' }],
        },
        signatures: { schedule: '0 * * * *', ...sigs },
      },
    });
    for (const job of ['rewards', 'usage-metrics', 'signatures']) {
      const retried = await runJob(findJob(allJobs, job)!, c.deps, { config, retryRejected: true });
      expect(retried, job).toMatchObject({ status: 'succeeded', requests: 0, computeUnits: 0 });
    }
    expect(await count(c, 'SELECT COUNT(*) AS n FROM rejected_records')).toBe(0);
    const utxo = rows[0]!.recordId.slice('mainnet:'.length);
    expect(await count(c, 'SELECT asset_denomination AS n FROM rewards WHERE utxo_id = ?', [utxo])).toBe(9);
    expect(await count(c, 'SELECT COUNT(*) AS n FROM usage_metrics WHERE total_requests = 7')).toBe(1);
    expect(await c.store.get('SELECT signed_message AS m FROM signatures')).toEqual({ m: '0xabcdef' });
  });

  it('refuses a job that sets nothing aside', async () => {
    const c = await setup();
    const config = configOf({ jobs: { supply: { schedule: '* * * * *' } } });
    const result = await runJob(findJob(allJobs, 'supply')!, c.deps, { config, retryRejected: true });
    expect(result).toMatchObject({
      status: 'failed',
      errorMessage: 'supply sets no records aside: nothing to retry',
    });
  });
});

describe('retention.rejectedRecords', () => {
  it('prunes records by the last time the upstream sent them, counted as removed from rejected_records', async () => {
    const c = await setup();
    const record = (key: string, at: number) =>
      c.store.transaction((tx) =>
        recordFindings(
          tx,
          {
            endpoint: 'transactions',
            rejected: [{ raw: { key }, reason: 'schema', fields: ['x'], problems: 'x', key }],
            drift: [],
          },
          { job: 'transactions', scope: 's', context: {}, at: new Date(at).toISOString() },
        ),
      );
    await record('old', c.clock.now() - 10 * 86_400_000);
    await record('seen-again', c.clock.now() - 10 * 86_400_000);
    await record('seen-again', c.clock.now() - 3_600_000);
    await record('new', c.clock.now());
    const pruned = await run(c, 'maintenance', maintenance, {
      retention: retentionOnly({ rejectedRecords: 7 * 86_400_000 }),
      batchSize: 100,
    });
    expect(pruned.rowsRemoved).toEqual({ rejected_records: 1 });
    const left = await c.store.all<{ id: string }>('SELECT record_id AS id FROM rejected_records ORDER BY 1');
    expect(left.map((r) => r.id)).toEqual(['new', 'seen-again']);
  });
});

describe('status and metrics show what was set aside', () => {
  it('a line per job with the newest reason, the drift per endpoint, --json, the counter and the gauges', async () => {
    const c = await setup();
    c.sim.setFaults({
      endpoints: {
        transactions: { plan: [{ kind: 'badRecord' }] },
        rewards: { plan: [{ kind: 'drift' }] },
      },
    });
    const config = configOf({
      jobs: {
        transactions: { schedule: '* * * * *', networks: ['mainnet'], maxPages: 2 },
        rewards: { schedule: '0 * * * *', ...rewardsPayload },
      },
    });
    const { log, text } = captureLog('info');
    const metrics = createMetrics({ store: c.store, config, log, clock: c.clock, jobs: allJobs });
    for (const name of ['transactions', 'rewards']) {
      metrics.observeRun(await runJob(findJob(allJobs, name)!, c.deps, { config }));
    }
    const status = await collectStatus(allJobs, config, c.store, new Date(c.clock.now()));
    expect(status.recordsSetAside).toMatchObject([
      {
        job: 'transactions',
        records: 1,
        byReason: { bounds: 1 },
        newest: { fields: 'blockTimestamp', endpoint: 'transactions' },
      },
    ]);
    expect(status.recordsSetAside[0]!.newest).not.toHaveProperty('raw');
    expect(status.drift.map((d) => d.name)).toEqual([
      'historicalRewards[].rewardType=SIM_NEW_REWARD_TYPE',
      'historicalRewards[].simDriftField',
    ]);
    const shown = formatStatus(status);
    expect(shown).toContain('records set aside: 1 (rejected_records;');
    expect(shown).toMatch(
      / {2}transactions: 1 \(bounds 1\); newest seen .* from transactions, 43114:0x[0-9a-f]{64}: blockTimestamp: out of bounds/,
    );
    expect(shown).toContain('upstream drift: fields and enum values the OpenAPI does not list');
    expect(shown).toContain('  rewards: field historicalRewards[].simDriftField (seen');
    expect(JSON.parse(JSON.stringify(status))).toMatchObject({ recordsSetAside: [{ job: 'transactions' }] });
    const body = (await metrics.expose()).body;
    expect(body).toContain('glacier_records_rejected_total{job_name="transactions",reason="bounds"} 1');
    expect(body).toContain('glacier_records_rejected_total{job_name="rewards",reason="schema"} 0');
    expect(body).toContain('glacier_records_set_aside{job_name="transactions"} 1');
    expect(body).toContain('glacier_upstream_unknown_names{endpoint="rewards",kind="field"} 1');
    expect(body).toContain('glacier_upstream_unknown_names{endpoint="rewards",kind="enum_value"} 1');
    expect(body).toContain('glacier_scrape_collector_success{collector="records"} 1');
    expect(text()).not.toContain('"level":50');
  });

  it('without any: "records set aside: none", no drift section', async () => {
    const c = await setup();
    const config = configOf({ jobs: { supply: { schedule: '* * * * *' } } });
    const shown = formatStatus(await collectStatus(allJobs, config, c.store, new Date(c.clock.now())));
    expect(shown).toContain('records set aside: none');
    expect(shown).not.toContain('upstream drift');
  });
});
