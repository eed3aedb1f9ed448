import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterEach, describe, expect, it } from 'vitest';
import {
  finishJobRun,
  migrationsFolder,
  openStore,
  readExportSummaries,
  readJobSummaries,
  rebuildTransactionSummaries,
  refreshExportSummaries,
  type Store,
  startJobRun,
  upsertTransactions,
} from '../../src/store/index.js';
import type { Transaction } from '../../src/upstream/index.js';
import { testStore } from '../support/store.js';
import { tempDir } from '../support/tmp.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function fresh(): Store {
  const db = testStore();
  cleanups.push(db.cleanup);
  return db.store;
}

const all = (store: Store, sql: string) => store.sqlite.prepare(sql).all() as Record<string, unknown>[];

function insertTx(store: Store, chain: string, hash: string, ts: number, network = 'mainnet'): void {
  store.sqlite
    .prepare(
      `INSERT INTO transactions (chain_id, tx_hash, network, block_number, block_timestamp, block_hash, block_index,
        tx_status, tx_type, gas_limit, gas_used, gas_price, nonce, value, from_address, to_address, first_seen_at, last_seen_at)
       VALUES (?, ?, ?, '1', ?, '0xb', 0, '1', 2, '1', '1', '1', '0', '0', '0xa', '0xc', 'x', 'x')`,
    )
    .run(chain, hash, network, ts);
}

/** The transaction summary recomputed from the rows. */
const txTruth = (store: Store) =>
  all(
    store,
    `SELECT network, chain_id, COUNT(*) AS transactions, MAX(block_timestamp) AS newest_block_timestamp
     FROM transactions GROUP BY network, chain_id ORDER BY network, chain_id`,
  );
const txSummary = (store: Store) =>
  all(
    store,
    'SELECT network, chain_id, transactions, newest_block_timestamp FROM transaction_summaries WHERE transactions > 0 ORDER BY network, chain_id',
  );

function insertReward(
  store: Store,
  r: {
    utxo: string;
    node: string;
    type: string;
    amount: string;
    end: number;
    /** Price per currency. */
    prices?: Record<string, string>;
    addresses: string[];
  },
): void {
  store.sqlite
    .prepare(
      `INSERT INTO rewards (network, utxo_id, tx_hash, reward_tx_hash, output_index, node_id, reward_type, amount_staked,
        start_timestamp, end_timestamp, asset_id, asset_name, asset_symbol, asset_denomination, asset_type, amount,
        addresses, first_seen_at, last_seen_at)
       VALUES ('mainnet', ?, 't', 'rt', 0, ?, ?, '1', 0, ?, 'FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z', 'Avalanche', 'AVAX', 9,
        'secp256k1', ?, '[]', 'x', 'x')`,
    )
    .run(r.utxo, r.node, r.type, r.end, r.amount);
  for (const [currency, value] of Object.entries(r.prices ?? {})) setPrice(store, r.utxo, currency, value);
  for (const a of r.addresses) {
    store.sqlite.prepare(`INSERT INTO reward_addresses VALUES ('mainnet', ?, ?)`).run(r.utxo, a);
  }
}

function setPrice(store: Store, utxo: string, currency: string, value: string): void {
  store.sqlite
    .prepare(
      `INSERT INTO reward_prices VALUES ('mainnet', ?, ?, ?, 'x')
       ON CONFLICT (network, utxo_id, currency) DO UPDATE SET value = excluded.value`,
    )
    .run(utxo, currency, value);
}

/** The reward summaries recomputed in JS from the rows: exact amounts; values per currency to 1e-9. */
function rewardTruth(store: Store) {
  const rewards = all(store, 'SELECT * FROM rewards');
  const links = all(store, 'SELECT * FROM reward_addresses');
  const prices = all(store, 'SELECT * FROM reward_prices');
  const base = new Map<string, { rewards: number; amount: bigint; newest: number }>();
  const values = new Map<string, { priced: number; value: number }>();
  const add = (kind: string, subject: string, r: Record<string, unknown>) => {
    const key = [kind, subject, r.reward_type].join('|');
    const e = base.get(key) ?? { rewards: 0, amount: 0n, newest: 0 };
    e.rewards += 1;
    e.amount += BigInt(r.amount as string);
    e.newest = Math.max(e.newest, r.end_timestamp as number);
    base.set(key, e);
    for (const p of prices.filter((x) => x.utxo_id === r.utxo_id)) {
      const vKey = `${key}|${p.currency}`;
      const v = values.get(vKey) ?? { priced: 0, value: 0 };
      v.priced += 1;
      v.value += (Number(r.amount) / 1e9) * Number(p.value);
      values.set(vKey, v);
    }
  };
  for (const r of rewards) {
    add('node_id', r.node_id as string, r);
    for (const l of links.filter((x) => x.utxo_id === r.utxo_id)) add('address', l.address as string, r);
  }
  return { base, values };
}

function expectRewardSummaryRight(store: Store, exactNewest = true): void {
  const truth = rewardTruth(store);
  const rows = store.sqlite
    .prepare('SELECT * FROM reward_summaries WHERE rewards > 0')
    .safeIntegers(true)
    .all() as Record<string, bigint | string | number>[];
  expect(rows).toHaveLength(truth.base.size);
  for (const row of rows) {
    const key = [row.subject_kind, row.subject, row.reward_type].join('|');
    const t = truth.base.get(key);
    expect(t, key).toBeDefined();
    expect(Number(row.rewards)).toBe(t!.rewards);
    expect(row.amount).toBe(t!.amount);
    if (exactNewest) expect(Number(row.newest_end_timestamp)).toBe(t!.newest);
  }
  const valueRows = all(store, 'SELECT * FROM reward_value_summaries WHERE priced > 0');
  expect(valueRows).toHaveLength(truth.values.size);
  for (const row of valueRows) {
    const key = [row.subject_kind, row.subject, row.reward_type, row.currency].join('|');
    const t = truth.values.get(key);
    expect(t, key).toBeDefined();
    expect(row.priced).toBe(t!.priced);
    expect(Math.abs((row.value as number) - t!.value)).toBeLessThan(1e-9);
  }
}

describe('metrics summaries', () => {
  it('count transactions per network and chain as pages are written: new rows, rows read again, re-orgs, deletes', async () => {
    const store = fresh();
    const tx = (i: number, chainId: string, blockTimestamp = 1000 + i) =>
      ({
        chainId,
        txHash: `0x${i}`,
        blockNumber: String(i),
        blockTimestamp,
        blockHash: '0xb',
        blockIndex: 0,
        txStatus: '1',
        txType: 2,
        gasLimit: '1',
        gasUsed: '1',
        gasPrice: '1',
        nonce: '1',
        value: '1',
        from: { address: '0xa' },
        to: { address: '0xc' },
      }) as unknown as Transaction;
    const page = (network: string, txs: Transaction[], seenAt = 'x') =>
      store.transaction(() => upsertTransactions(store, network, txs, seenAt));
    const first = Array.from({ length: 50 }, (_, i) => tx(i, i % 3 === 0 ? '43114' : '1'));
    page('mainnet', first);
    page('fuji', [tx(900, '43113', 5)]);
    expect(txSummary(store)).toEqual(txTruth(store));
    // Overlapping pages (rows read again, one row twice in a page) count each row once.
    page('mainnet', [...first.slice(40), tx(50, '1'), tx(50, '1')], 'y');
    expect(txSummary(store)).toEqual(txTruth(store));
    // A re-org moves a transaction to a later block.
    page('mainnet', [tx(3, '43114', 9999)], 'z');
    expect(txSummary(store)).toEqual(txTruth(store));
    store.sqlite.prepare("DELETE FROM transactions WHERE chain_id = '1' AND tx_hash = '0x1'").run();
    expect(txSummary(store).map((r) => r.transactions)).toEqual(txTruth(store).map((r) => r.transactions));
    // Rows written by other means are recounted by the rebuild.
    insertTx(store, '10', '0xraw', 7);
    rebuildTransactionSummaries(store);
    expect(txSummary(store)).toEqual(txTruth(store));
  });

  it('sum rewards per address and node id, and their value per price currency as prices arrive', async () => {
    const store = fresh();
    insertReward(store, {
      utxo: 'u1',
      node: 'N1',
      type: 'VALIDATOR',
      amount: '1000000001',
      end: 10,
      addresses: ['a1'],
    });
    insertReward(store, {
      utxo: 'u2',
      node: 'N1',
      type: 'DELEGATOR',
      amount: '123456789012345',
      end: 20,
      prices: { eur: '21.37', usd: '23.1' },
      addresses: ['a1', 'a2'],
    });
    insertReward(store, {
      utxo: 'u3',
      node: 'N2',
      type: 'VALIDATOR',
      amount: '5',
      end: 30,
      prices: { eur: '0.1' },
      addresses: [],
    });
    expectRewardSummaryRight(store);
    // The price of u1 arrives; another currency's price of u2 changes; a re-read touches last_seen_at.
    setPrice(store, 'u1', 'eur', '19.5');
    setPrice(store, 'u2', 'usd', '24');
    store.sqlite.prepare("UPDATE rewards SET last_seen_at = 'z'").run();
    expectRewardSummaryRight(store);
    // A link and a price written before their reward, then the reward: each counted once.
    store.sqlite.prepare("INSERT INTO reward_addresses VALUES ('mainnet', 'u4', 'a3')").run();
    setPrice(store, 'u4', 'eur', '2');
    insertReward(store, {
      utxo: 'u4',
      node: 'N2',
      type: 'VALIDATOR_FEE',
      amount: '7',
      end: 40,
      addresses: [],
    });
    expectRewardSummaryRight(store);
    // A changed amount moves the count and every value.
    store.sqlite.prepare("UPDATE rewards SET amount = '2000000002' WHERE utxo_id = 'u1'").run();
    expectRewardSummaryRight(store);
    store.sqlite.prepare("DELETE FROM reward_addresses WHERE utxo_id = 'u2' AND address = 'a2'").run();
    store.sqlite.prepare("DELETE FROM reward_prices WHERE utxo_id = 'u2' AND currency = 'usd'").run();
    store.sqlite.prepare("DELETE FROM rewards WHERE utxo_id = 'u3'").run();
    store.sqlite.prepare("DELETE FROM reward_prices WHERE utxo_id = 'u3'").run();
    // Deletions never lower a newest time (documented): compare everything else.
    expectRewardSummaryRight(store, false);
  });

  it('keep the latest finished run and the latest success of each job', () => {
    const store = fresh();
    const a = startJobRun(store, 'supply', 'all', '2025-01-01T00:00:00.000Z');
    const b = startJobRun(store, 'supply', 'all', '2025-01-01T00:01:00.000Z');
    const done = { rowsWritten: 1, requests: 1, computeUnits: 1 };
    finishJobRun(store, b, { ...done, status: 'failed', finishedAt: '2025-01-01T00:01:05.000Z' });
    // An older run finishing later does not replace the newer finish, but is the latest success.
    finishJobRun(store, a, { ...done, status: 'succeeded', finishedAt: '2025-01-01T00:00:30.000Z' });
    expect(readJobSummaries(store)).toEqual([
      {
        job: 'supply',
        lastStatus: 'failed',
        lastStartedAt: '2025-01-01T00:01:00.000Z',
        lastFinishedAt: '2025-01-01T00:01:05.000Z',
        lastSuccessAt: '2025-01-01T00:00:30.000Z',
      },
    ]);
  });

  it('are filled from the rows already stored when the migration runs on an existing database', () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    // A database at every migration before the metrics ones, with data.
    const first = join(dir, 'first');
    mkdirSync(join(first, 'meta'), { recursive: true });
    const journal = JSON.parse(readFileSync(join(migrationsFolder(), 'meta', '_journal.json'), 'utf8'));
    journal.entries = journal.entries.filter((e: { tag: string }) => !e.tag.includes('metrics'));
    for (const { tag } of journal.entries as { tag: string }[]) {
      copyFileSync(join(migrationsFolder(), `${tag}.sql`), join(first, `${tag}.sql`));
    }
    writeFileSync(join(first, 'meta', '_journal.json'), JSON.stringify(journal));
    const path = join(dir, 'old.db');
    const old = openStore(path, { migrate: false });
    migrate(old.db, { migrationsFolder: first });
    expect(all(old, "SELECT name FROM sqlite_master WHERE name = 'transaction_summaries'")).toEqual([]);
    for (let i = 0; i < 10; i++) insertTx(old, String(i % 2), `0x${i}`, i);
    insertReward(old, {
      utxo: 'u1',
      node: 'N1',
      type: 'VALIDATOR',
      amount: '3',
      end: 10,
      prices: { usd: '2.5' },
      addresses: ['a1'],
    });
    insertReward(old, {
      utxo: 'u2',
      node: 'N1',
      type: 'VALIDATOR',
      amount: '4',
      end: 11,
      addresses: ['a1', 'a2'],
    });
    const run = startJobRun(old, 'supply', 'all', '2025-01-01T00:00:00.000Z');
    finishJobRun(old, run, {
      status: 'succeeded',
      finishedAt: '2025-01-01T00:00:02.000Z',
      rowsWritten: 0,
      requests: 1,
      computeUnits: 1,
    });
    old.close();

    const upgraded = openStore(path);
    cleanups.push(() => upgraded.close());
    expect(txSummary(upgraded)).toEqual(txTruth(upgraded));
    expectRewardSummaryRight(upgraded);
    expect(readJobSummaries(upgraded)[0]).toMatchObject({
      job: 'supply',
      lastSuccessAt: '2025-01-01T00:00:02.000Z',
    });
  });

  it('refresh export summaries from operations and files: statuses, bytes, loaded rows', () => {
    const store = fresh();
    const op = (id: string, name: string, status: string, created: number) =>
      store.sqlite
        .prepare(
          `INSERT INTO export_operations (operation_id, export_name, first_date, last_date, operation_type, request, status,
            created_at_ms, updated_at_ms, status_history, recorded_at)
           VALUES (?, ?, '2025-01-01', '2025-01-01', 'TRANSACTION_EXPORT_EVM', '{}', ?, ?, ?, '[]', 'x')`,
        )
        .run(id, name, status, created, created + 500);
    op('o1', 'treasury', 'COMPLETED', 1000);
    op('o2', 'treasury', 'FAILED', 2000);
    op('o3', 'ops', 'RUNNING', 1500);
    store.sqlite
      .prepare(
        "INSERT INTO export_files (operation_id, path, size_bytes, sha256, downloaded_at) VALUES ('o1', '/tmp/x.csv', 1234, 'abc', 'x')",
      )
      .run();
    refreshExportSummaries(store);
    expect(readExportSummaries(store)).toEqual([
      {
        exportName: 'ops',
        latestStatus: 'RUNNING',
        bytesDownloaded: 0,
        filesDownloaded: 0,
        rowsLoaded: 0,
        lastCompletedAtMs: null,
        statuses: { RUNNING: 1 },
      },
      {
        exportName: 'treasury',
        latestStatus: 'FAILED',
        bytesDownloaded: 1234,
        filesDownloaded: 1,
        rowsLoaded: 0,
        lastCompletedAtMs: 1500,
        statuses: { COMPLETED: 1, FAILED: 1 },
      },
    ]);
    // Rows count once their load finished; a RUNNING operation past its timeout counts as GAVE_UP.
    store.sqlite.prepare("UPDATE export_files SET rows_loaded = 500 WHERE operation_id = 'o1'").run();
    refreshExportSummaries(store);
    expect(readExportSummaries(store).find((s) => s.exportName === 'treasury')?.rowsLoaded).toBe(0);
    store.sqlite.prepare("UPDATE export_files SET loaded_at = 'y' WHERE operation_id = 'o1'").run();
    store.sqlite.prepare("UPDATE export_operations SET gave_up_at = 'z' WHERE operation_id = 'o3'").run();
    refreshExportSummaries(store);
    expect(readExportSummaries(store).find((s) => s.exportName === 'treasury')?.rowsLoaded).toBe(500);
    expect(readExportSummaries(store).find((s) => s.exportName === 'ops')).toMatchObject({
      latestStatus: 'GAVE_UP',
      statuses: { GAVE_UP: 1 },
    });
  });
});
