import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { endpoints } from '../../src/upstream/index.js';
import type { Collector } from '../support/collector.js';
import { type Family, value } from '../support/exposition.js';
import { lintFamilies } from '../support/metrics-lint.js';
import { addresses, nodeId, rig, txHashes } from '../support/metrics-rig.js';
import { promtool, skipWithout } from '../support/prometheus.js';

const rows = (c: Collector, sql: string, ...params: unknown[]) =>
  c.store.all<Record<string, unknown>>(sql, params);

/** nAVAX (exact) → AVAX as the closest double, computed independently of src/metrics/decimal.ts. */
function avax(nAvax: bigint): number {
  const digits = nAvax.toString().padStart(10, '0');
  return Number(`${digits.slice(0, -9)}.${digits.slice(-9)}`);
}

function closeTo(actual: number | undefined, expected: number): void {
  expect(actual).toBeDefined();
  expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(expected)));
}

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe('metrics of the collected data', () => {
  it('equal the database and the simulator ground truth after every job ran', async () => {
    const r = await rig(closers);
    const { c } = r;
    for (const job of ['supply', 'transactions', 'rewards', 'usage-metrics'] as const) {
      expect((await r.run(job)).status).toBe('succeeded');
    }
    // Exports as the queue runs them: the pass, then each follow-up it asks for (polls, download, load).
    const pending = [...(await r.run('exports')).continuations];
    for (let steps = 0; pending.length > 0 && steps < 50; steps++) {
      const next = pending.shift()!;
      const step = await r.run(next.job, { args: next.args });
      expect(step.status).toBe('succeeded');
      pending.push(...step.continuations);
    }
    expect(pending).toEqual([]);
    // One configured hash is never asked for: it stays missing.
    const signatures = await r.run('signatures', {
      adjust: (config) => ({
        ...config,
        jobs: { ...config.jobs, signatures: { ...config.jobs.signatures!, txHashes: txHashes.slice(0, 2) } },
      }),
    });
    expect(signatures.status).toBe('succeeded');
    const { families, status, contentType, body } = await r.scrape();
    expect(status).toBe(200);
    expect(contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    const v = (name: string, labels?: Record<string, string>) => value(families, name, labels);

    // Supply: the simulator's truth, as the closest double.
    const supply = c.sim.truth.supply();
    expect(v('glacier_supply_circulating_avax')).toBe(Number(supply.circulatingSupply));
    expect(v('glacier_supply_total_avax')).toBe(Number(supply.totalSupply));
    expect(v('glacier_supply_staked_avax')).toBe(Number(supply.totalStaked));
    expect(v('glacier_supply_locked_avax')).toBe(Number(supply.totalLocked));
    expect(v('glacier_supply_rewards_avax')).toBe(Number(supply.totalRewards));
    expect(v('glacier_supply_genesis_unlock_avax')).toBe(Number(supply.genesisUnlock));
    expect(v('glacier_supply_l1_validator_fees_avax')).toBe(Number(supply.l1ValidatorFees));
    expect(v('glacier_supply_burned_avax', { chain: 'p' })).toBe(Number(supply.totalPBurned));
    expect(v('glacier_supply_burned_avax', { chain: 'c' })).toBe(Number(supply.totalCBurned));
    expect(v('glacier_supply_burned_avax', { chain: 'x' })).toBe(Number(supply.totalXBurned));
    expect(v('glacier_supply_last_updated_timestamp_seconds')).toBe(Date.parse(supply.lastUpdated) / 1000);

    // Transactions: the 300 newest of the truth (3 pages), per chain, as the database holds them.
    const newest = c.sim.truth.transactions({ network: 'mainnet' }).slice(0, 300);
    const byChain = new Map<string, { n: number; newest: number }>();
    for (const tx of newest) {
      const entry = byChain.get(tx.chainId) ?? { n: 0, newest: 0 };
      byChain.set(tx.chainId, { n: entry.n + 1, newest: Math.max(entry.newest, tx.blockTimestamp) });
    }
    const dbChains = await rows(
      c,
      'SELECT chain_id, COUNT(*) AS n, MAX(block_timestamp) AS newest FROM transactions GROUP BY chain_id',
    );
    expect(dbChains).toHaveLength(byChain.size);
    for (const row of dbChains) {
      const labels = { network: 'mainnet', chain: row.chain_id as string };
      expect(v('glacier_transactions_collected', labels)).toBe(row.n);
      expect(v('glacier_transactions_collected', labels)).toBe(byChain.get(row.chain_id as string)?.n);
      expect(v('glacier_transactions_newest_block_timestamp_seconds', labels)).toBe(row.newest);
      expect(row.newest).toBe(byChain.get(row.chain_id as string)?.newest);
    }

    // Rewards per subject and type: count, AVAX and newest end from the truth; value from the
    // stored eur prices (the truth prices in usd).
    const subjects = [
      ...addresses.map((a) => ({
        kind: 'address',
        subject: a,
        truth: c.sim.truth.rewards('mainnet', { addresses: [a] }),
      })),
      { kind: 'node_id', subject: nodeId, truth: c.sim.truth.rewards('mainnet', { nodeIds: [nodeId] }) },
    ];
    let series = 0;
    for (const s of subjects) {
      const types = new Set(s.truth.map((t) => t.rewardType));
      for (const type of types) {
        const ofType = s.truth.filter((t) => t.rewardType === type);
        const labels = { network: 'mainnet', kind: s.kind, subject: s.subject, reward_type: type };
        expect(v('glacier_rewards_received', labels)).toBe(ofType.length);
        expect(v('glacier_rewards_received_avax', labels)).toBe(
          avax(ofType.reduce((sum, t) => sum + BigInt(t.reward.amount), 0n)),
        );
        expect(v('glacier_rewards_newest_end_timestamp_seconds', labels)).toBe(
          Math.max(...ofType.map((t) => t.endTimestamp)),
        );
        const stored = await rows(
          c,
          `SELECT r.amount, p.value AS price FROM rewards r
           JOIN reward_prices p ON p.network = r.network AND p.utxo_id = r.utxo_id AND p.currency = 'eur'
           WHERE r.reward_type = ? AND ${
             s.kind === 'address'
               ? 'EXISTS (SELECT 1 FROM reward_addresses a WHERE a.utxo_id = r.utxo_id AND a.address = ?)'
               : 'r.node_id = ?'
           }`,
          type,
          s.subject,
        );
        expect(stored.length).toBeGreaterThan(0);
        closeTo(
          v('glacier_rewards_received_value', { ...labels, currency: 'eur' }),
          stored.reduce((sum, row) => sum + (Number(row.amount) / 1e9) * Number(row.price), 0),
        );
        series++;
      }
    }
    expect(series).toBeGreaterThan(3);

    // Usage: the newest bucket of the series, per group value, as stored.
    const bucket = (await rows(c, 'SELECT MAX(bucket_timestamp) AS t FROM usage_metrics'))[0]!.t as number;
    const usage = await rows(c, 'SELECT * FROM usage_metrics WHERE bucket_timestamp = ?', bucket);
    expect(usage.length).toBeGreaterThan(1);
    for (const row of usage) {
      const labels = {
        source: 'dataApi',
        interval: 'hourly',
        scope: row.scope as string,
        group_by: 'requestPath',
        group: row.group_value as string,
      };
      expect(v('glacier_usage_requests', labels)).toBe(row.total_requests);
      expect(v('glacier_usage_api_credits_used', labels)).toBe(row.api_credits_used);
      expect(v('glacier_usage_api_credits_wasted', labels)).toBe(row.api_credits_wasted);
      expect(v('glacier_usage_invalid_requests', labels)).toBe(row.invalid_requests);
      expect(v('glacier_usage_success_ratio', labels)).toBe((row.success_rate_percent as number) / 100);
      expect(v('glacier_usage_median_response_time_seconds', labels)).toBe(
        (row.median_response_time_msecs as number) / 1000,
      );
    }
    expect(v('glacier_usage_bucket_timestamp_seconds', { source: 'dataApi' })).toBe(bucket);

    // Signatures: two of three configured.
    expect(v('glacier_signatures_collected', { network: 'mainnet' })).toBe(2);
    expect(v('glacier_signatures_missing', { network: 'mainnet' })).toBe(1);

    // Exports: one completed operation, its file's bytes on disk.
    const file = (await rows(c, 'SELECT * FROM export_files'))[0]!;
    const op = (await rows(c, 'SELECT * FROM export_operations'))[0]!;
    expect(v('glacier_export_operations', { export: 'treasury', status: 'COMPLETED' })).toBe(1);
    expect(v('glacier_export_operations', { export: 'treasury', status: 'FAILED' })).toBe(0);
    expect(v('glacier_export_latest_status', { export: 'treasury', status: 'COMPLETED' })).toBe(1);
    expect(v('glacier_export_latest_status', { export: 'treasury', status: 'RUNNING' })).toBe(0);
    expect(v('glacier_export_downloaded_bytes', { export: 'treasury' })).toBe(
      readFileSync(file.path as string).length,
    );
    expect(v('glacier_export_last_completed_timestamp_seconds', { export: 'treasury' })).toBe(
      (op.updated_at_ms as number) / 1000,
    );
    expect(file.rows_loaded).toBeGreaterThan(0);
    expect(v('glacier_export_loaded_rows', { export: 'treasury' })).toBe(file.rows_loaded);
    expect(v('glacier_export_loaded_rows', { export: 'treasury' })).toBe(
      [...(c.sim.truth.exportRows(op.operation_id as string) ?? [])].length,
    );
    expect(v('glacier_export_files', { export: 'treasury', status: 'loaded' })).toBe(1);
    for (const status of ['pending', 'unsupported', 'broken', 'failed']) {
      expect(v('glacier_export_files', { export: 'treasury', status })).toBe(0);
    }

    expect(lintFamilies(families, 500)).toEqual([]);
    if (!skipWithout('promtool'))
      expect(promtool(['check', 'metrics'], body)).toEqual({ code: 0, output: '' });
  });
});

describe('metrics of the collector itself', () => {
  it('count runs, rows and upstream requests, and read last success and duration from the database', async () => {
    const r = await rig(closers);
    const summaries = [await r.run('supply'), await r.run('transactions'), await r.run('rewards')];
    r.c.clock.advance(60_000);
    summaries.push(await r.run('transactions'));
    const { families } = await r.scrape();
    const v = (name: string, labels?: Record<string, string>) => value(families, name, labels);

    expect(v('glacier_job_runs_total', { job_name: 'transactions', outcome: 'succeeded' })).toBe(2);
    expect(v('glacier_job_runs_total', { job_name: 'transactions', outcome: 'failed' })).toBe(0);
    expect(v('glacier_job_runs_total', { job_name: 'signatures', outcome: 'succeeded' })).toBe(0);
    const txRows = summaries.filter((s) => s.job === 'transactions').reduce((n, s) => n + s.rowsWritten, 0);
    expect(v('glacier_job_rows_written_total', { job_name: 'transactions' })).toBe(txRows);
    expect(v('glacier_job_last_success_timestamp_seconds', { job_name: 'transactions' })).toBe(
      r.c.clock.now() / 1000,
    );
    expect(v('glacier_job_last_success_timestamp_seconds', { job_name: 'supply' })).toBe(
      (r.c.clock.now() - 60_000) / 1000,
    );
    expect(v('glacier_job_last_run_success', { job_name: 'supply' })).toBe(1);
    expect(v('glacier_job_last_run_duration_seconds', { job_name: 'supply' })).toBe(0);
    expect(v('glacier_job_schedule_interval_seconds', { job_name: 'supply' })).toBe(300);
    expect(v('glacier_job_schedule_interval_seconds', { job_name: 'exports' })).toBe(3 * 86_400);

    // Upstream: one count per request the simulator saw, at the endpoint's compute units.
    for (const endpoint of ['supply', 'transactions', 'rewards'] as const) {
      const seen = r.c.sim.requests.filter((q) => q.endpoint === endpoint).length;
      expect(seen).toBeGreaterThan(0);
      expect(v('glacier_upstream_requests_total', { endpoint, code: '200' })).toBe(seen);
      expect(v('glacier_upstream_compute_units_total', { endpoint })).toBe(
        seen * endpoints[endpoint].computeUnits,
      );
      expect(v('glacier_upstream_request_duration_seconds_count', { endpoint })).toBe(seen);
      expect(v('glacier_upstream_request_duration_seconds_bucket', { endpoint, le: '+Inf' })).toBe(seen);
    }
    const spent = summaries.reduce((n, s) => n + s.computeUnits, 0);
    const total = families
      .find((f) => f.name === 'glacier_upstream_compute_units_total')!
      .samples.reduce((n, m) => n + m.value, 0);
    expect(total).toBe(spent);
    expect(v('glacier_build_info', { role: 'worker' })).toBe(1);
    expect(families.find((f) => f.name === 'glacier_build_info')?.samples[0]?.labels.version).toBe(
      JSON.parse(readFileSync('package.json', 'utf8')).version,
    );
    expect(families.some((f) => f.name === 'glacier_process_resident_memory_bytes')).toBe(true);
  });

  it('count 429s, retries and failures by reason; a failed run keeps the last success', async () => {
    const r = await rig(closers, {
      sim: {
        faults: {
          endpoints: {
            supply: { plan: [{ status: 429, retryAfterSeconds: 0 }, { kind: 'ok' }, { status: 400 }] },
          },
        },
      },
    });
    expect((await r.run('supply')).status).toBe('succeeded');
    const succeededAt = r.c.clock.now() / 1000;
    r.c.clock.advance(1000);
    expect((await r.run('supply')).status).toBe('failed');
    const { families } = await r.scrape();
    const v = (name: string, labels?: Record<string, string>) => value(families, name, labels);
    expect(v('glacier_upstream_rate_limited_total', { endpoint: 'supply' })).toBe(1);
    expect(v('glacier_upstream_retries_total', { endpoint: 'supply' })).toBe(1);
    expect(v('glacier_upstream_requests_total', { endpoint: 'supply', code: '429' })).toBe(1);
    expect(v('glacier_upstream_requests_total', { endpoint: 'supply', code: '200' })).toBe(1);
    expect(v('glacier_upstream_requests_total', { endpoint: 'supply', code: '400' })).toBe(1);
    expect(v('glacier_upstream_compute_units_total', { endpoint: 'supply' })).toBe(3);
    expect(v('glacier_job_runs_total', { job_name: 'supply', outcome: 'failed' })).toBe(1);
    expect(v('glacier_job_failures_total', { job_name: 'supply', reason: 'client_error' })).toBe(1);
    expect(v('glacier_job_last_run_success', { job_name: 'supply' })).toBe(0);
    expect(v('glacier_job_last_success_timestamp_seconds', { job_name: 'supply' })).toBe(succeededAt);
  });

  it('reads the budget, the queues and the readiness at scrape time, and counts skipped slots', async () => {
    let ready = true;
    const r = await rig(closers, {
      readiness: async () => ({
        ready,
        checks: {
          database: { ok: true },
          redis: ready ? { ok: true } : { ok: false, error: 'ECONNREFUSED' },
        },
      }),
    });
    let families: Family[] = (await r.scrape()).families;
    const v = (name: string, labels?: Record<string, string>) => value(families, name, labels);
    expect(v('glacier_upstream_budget_compute_units', { window: 'minute' })).toBe(
      r.config.budget.computeUnitsPerMinute,
    );
    expect(v('glacier_upstream_budget_remaining_compute_units', { window: 'minute' })).toBeUndefined();
    expect(v('glacier_ready', { check: 'redis' })).toBe(1);

    r.metrics.setBudget(async () => ({
      perMinute: 8000,
      perDay: 2_000_000,
      remainingMinute: 7940,
      remainingDay: 1_999_000,
    }));
    r.metrics.setQueueCounts(async () => ({
      'glacier-supply': { waiting: 1, active: 1, delayed: 0, failed: 2, unknown: 9 },
    }));
    r.metrics.observeSkippedSlot('supply');
    ready = false;
    families = (await r.scrape()).families;
    expect(v('glacier_upstream_budget_compute_units', { window: 'day' })).toBe(2_000_000);
    expect(v('glacier_upstream_budget_remaining_compute_units', { window: 'minute' })).toBe(7940);
    expect(v('glacier_upstream_budget_remaining_compute_units', { window: 'day' })).toBe(1_999_000);
    expect(v('glacier_queue_jobs', { queue: 'glacier-supply', state: 'failed' })).toBe(2);
    expect(v('glacier_queue_jobs', { queue: 'glacier-supply', state: 'unknown' })).toBeUndefined();
    expect(v('glacier_job_skipped_slots_total', { job_name: 'supply' })).toBe(1);
    expect(v('glacier_ready', { check: 'redis' })).toBe(0);
    expect(v('glacier_ready', { check: 'database' })).toBe(1);
  });

  it('exposes no series of a collector whose read fails or hangs, and says so', async () => {
    const r = await rig(closers, { collectorTimeoutMs: 100 });
    r.metrics.setBudget(async () => {
      throw new Error('redis is down');
    });
    r.metrics.setQueueCounts(() => new Promise(() => undefined));
    const { families } = await r.scrape();
    const v = (name: string, labels?: Record<string, string>) => value(families, name, labels);
    expect(v('glacier_scrape_collector_success', { collector: 'budget' })).toBe(0);
    expect(v('glacier_scrape_collector_success', { collector: 'queues' })).toBe(0);
    expect(v('glacier_scrape_collector_success', { collector: 'supply' })).toBe(1);
    expect(v('glacier_upstream_budget_compute_units', { window: 'minute' })).toBeUndefined();
    expect(r.logs()).toContain('redis is down');
    expect(r.logs()).toContain('queues did not answer within 100 ms');
  });
});
