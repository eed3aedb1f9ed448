import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { rewards } from '../../jobs/rewards.js';
import { supply } from '../../jobs/supply.js';
import { transactions } from '../../jobs/transactions.js';
import { demoAddress } from '../../src/commands/demo-config.js';
import { runHandler } from '../../src/kernel/index.js';
import { type Collector, evmExportPayload, requestCount, startCollector } from '../support/collector.js';
import { runExports } from '../support/exports.js';
import { postgresTablesContaining } from '../support/store.js';
import { tempDir } from '../support/tmp.js';

let collector: Collector | undefined;
afterEach(async () => {
  await collector?.close();
  collector = undefined;
});

const txPayload = { networks: ['mainnet' as const], statuses: ['all' as const], pageSize: 100, maxPages: 3 };
const count = async (c: Collector, table: string) =>
  (await c.store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n;
const lastRun = async (c: Collector) =>
  (await c.store.get<Record<string, unknown>>('SELECT * FROM job_runs ORDER BY id DESC LIMIT 1'))!;

describe('resilience against upstream faults', () => {
  it('survives 5xx answers with backoff and stores the same rows as a clean run', async () => {
    collector = await startCollector();
    const c = collector;
    c.sim.setFaults({
      endpoints: {
        transactions: { plan: [{ status: 503 }, { status: 502 }, { kind: 'ok' }, { status: 500 }] },
      },
    });
    const result = await runHandler('transactions', transactions, txPayload, c.deps);
    expect(result).toMatchObject({ status: 'succeeded', rowsWritten: 300 });
    expect(result.requests).toBe(6); // 3 pages + 3 failed attempts, all charged
    expect(c.delays).toHaveLength(3);
    expect(await count(c, 'transactions')).toBe(300);
  });

  it('waits out a 429 for as long as retry-after says', async () => {
    collector = await startCollector();
    const c = collector;
    c.sim.setFaults({ endpoints: { supply: { plan: [{ status: 429, retryAfterSeconds: 7 }] } } });
    const result = await runHandler('supply', supply, {}, c.deps);
    expect(result.status).toBe('succeeded');
    expect(c.delays[0]).toBeGreaterThanOrEqual(7_000);
  });

  it('a malformed answer fails the run loudly and writes nothing', async () => {
    collector = await startCollector();
    const c = collector;
    c.sim.setFaults({ endpoints: { transactions: { plan: [{ kind: 'malformed' }] } } });
    const result = await runHandler('transactions', transactions, txPayload, c.deps);
    expect(result.status).toBe('failed');
    expect(await count(c, 'transactions')).toBe(0);
    expect(await count(c, 'sync_state')).toBe(0);
    expect(await lastRun(c)).toMatchObject({ status: 'failed', rows_written: 0 });
    expect((await lastRun(c)).error).toMatch(
      /\/v1\/transactions.*schema: transactions: Invalid input: expected array/,
    );
    expect(await count(c, 'rejected_records')).toBe(0);
    expect(requestCount(c.sim, 'transactions')).toBe(1); // not retried
  });

  it('a truncated page mid-run keeps the pages before it, and the next run completes without gaps', async () => {
    collector = await startCollector();
    const c = collector;
    c.sim.setFaults({ endpoints: { transactions: { plan: [{ kind: 'ok' }, { kind: 'truncate' }] } } });
    const failed = await runHandler('transactions', transactions, txPayload, c.deps);
    expect(failed.status).toBe('failed');
    expect(await count(c, 'transactions')).toBe(100);
    const resumed = await runHandler('transactions', transactions, txPayload, c.deps);
    expect(resumed.status).toBe('succeeded');
    const truth = c.sim.truth.transactions({ network: 'mainnet' }).slice(0, 300);
    const stored = new Set(
      (
        await c.store.all<{ chain_id: string; tx_hash: string }>('SELECT chain_id, tx_hash FROM transactions')
      ).map((r) => `${r.chain_id}:${r.tx_hash}`),
    );
    for (const tx of truth) expect(stored.has(`${tx.chainId}:${tx.txHash}`)).toBe(true);
  });

  it('tolerates unknown extra fields', async () => {
    collector = await startCollector();
    const c = collector;
    c.sim.setFaults({ all: { extraFieldsRate: 1 } });
    const rewardsRun = await runHandler(
      'rewards',
      rewards,
      {
        network: 'mainnet',
        addresses: [demoAddress('x')],
        nodeIds: [],
        currency: 'usd',
        pageSize: 100,
        maxPages: 5,
      },
      c.deps,
    );
    expect(rewardsRun.status).toBe('succeeded');
    expect((await runHandler('transactions', transactions, txPayload, c.deps)).status).toBe('succeeded');
    expect((await runHandler('supply', supply, {}, c.deps)).status).toBe('succeeded');
  });

  it('a 4xx is not retried', async () => {
    collector = await startCollector();
    const c = collector;
    c.sim.setFaults({ endpoints: { supply: { plan: [{ status: 403 }] } } });
    const result = await runHandler('supply', supply, {}, c.deps);
    expect(result.status).toBe('failed');
    expect(requestCount(c.sim, 'supply')).toBe(1);
    expect((await lastRun(c)).error).toContain('403');
  });
});

describe('secrets', () => {
  it('the API key never reaches the database, the logs, or the export download host', async () => {
    const key = 'glc-secret-key-0123456789';
    collector = await startCollector({
      apiKey: key,
      sim: { apiKeys: { [key]: { tier: 'Pro' } }, exports: { runningMs: 0 } },
    });
    const c = collector;
    c.sim.setFaults({ endpoints: { supply: { plan: [{ status: 401 }] } } });
    await runHandler('supply', supply, {}, c.deps);
    await runHandler('transactions', transactions, txPayload, c.deps);
    const dir = tempDir();
    try {
      const exportsRun = await runExports(c.deps, evmExportPayload(dir.dir));
      expect(exportsRun.status).toBe('succeeded');
    } finally {
      dir.cleanup();
    }
    expect(c.sim.requests.filter((r) => r.endpoint !== 'download').every((r) => r.hadApiKey)).toBe(true);
    const downloads = c.sim.requests.filter((r) => r.endpoint === 'download');
    expect(downloads.length).toBe(1);
    expect(downloads.every((r) => !r.hadApiKey)).toBe(true);
    if (c.store.dialect === 'sqlite') {
      // The file's bytes hold deleted rows too: once the WAL is in it, none may hold the key.
      await c.store.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      expect(readFileSync(c.location).includes(key)).toBe(false);
    } else {
      expect(await postgresTablesContaining(c.store, key)).toEqual([]);
    }
    expect(c.logs()).not.toContain(key);
    expect(c.logs()).toContain('401');
  });
});
