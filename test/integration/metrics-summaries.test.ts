import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterEach, describe, expect, it } from 'vitest';
import { storeLocation } from '../../src/config/index.js';
import {
  finishJobRun,
  migrationsFolder,
  openSqliteConnection,
  openStore,
  readExportSummaries,
  readJobSummaries,
  readRewardTotals,
  rebuildTransactionSummaries,
  refreshExportSummaries,
  type Store,
  startJobRun,
  upsertTransactions,
} from '../../src/store/index.js';
import type { Transaction } from '../../src/upstream/index.js';
import { onPostgres, testStore } from '../support/store.js';
import { tempDir } from '../support/tmp.js';
import { evmTransaction } from '../support/transactions.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function fresh(): Promise<Store> {
  const db = await testStore();
  cleanups.push(db.cleanup);
  return db.store;
}

/** Times the collector writes (ISO-8601 UTC): a row first seen at T1, seen again at T2, T3. */
const T1 = '2025-06-15T12:00:00.000Z';
const T2 = '2025-06-15T12:01:00.000Z';
const T3 = '2025-06-15T12:02:00.000Z';

const all = (store: Store, sql: string) => store.all<Record<string, unknown>>(sql);

/**
 * A SQLite database of an earlier version: every shipped migration before the first whose tag holds
 * `tag` (Drizzle applies what is newer than the last one applied: none after it is kept either).
 */
async function storeBefore(tag: string): Promise<{ path: string; store: Store }> {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  const before = join(dir, 'before');
  mkdirSync(join(before, 'meta'), { recursive: true });
  const folder = migrationsFolder('sqlite');
  const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8'));
  journal.entries = journal.entries.slice(
    0,
    journal.entries.findIndex((e: { tag: string }) => e.tag.includes(tag)),
  );
  for (const { tag: kept } of journal.entries as { tag: string }[]) {
    copyFileSync(join(folder, `${kept}.sql`), join(before, `${kept}.sql`));
  }
  writeFileSync(join(before, 'meta', '_journal.json'), JSON.stringify(journal));
  const path = join(dir, 'old.db');
  const store = await openStore(storeLocation(path), { migrate: false });
  // Through a connection of its own (the store has just set the file up): the store keeps its own.
  const sqlite = openSqliteConnection(path);
  try {
    migrate(drizzle(sqlite), { migrationsFolder: before });
  } finally {
    sqlite.close();
  }
  return { path, store };
}

async function insertTx(
  store: Store,
  chain: string,
  hash: string,
  ts: number,
  network = 'mainnet',
): Promise<void> {
  await store.run(
    `INSERT INTO transactions (chain_id, tx_hash, network, block_number, block_timestamp, block_hash, block_index,
      tx_status, tx_type, gas_limit, gas_used, gas_price, nonce, value, from_address, to_address, first_seen_at, last_seen_at)
     VALUES (?, ?, ?, '1', ?, '0xb', 0, '1', 2, '1', '1', '1', '0', '0', '0xa', '0xc', ?, ?)`,
    [chain, hash, network, ts, T1, T1],
  );
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

async function insertReward(
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
): Promise<void> {
  await store.run(
    `INSERT INTO rewards (network, utxo_id, tx_hash, reward_tx_hash, output_index, node_id, reward_type, amount_staked,
      start_timestamp, end_timestamp, asset_id, asset_name, asset_symbol, asset_denomination, asset_type, amount,
      addresses, first_seen_at, last_seen_at)
     VALUES ('mainnet', ?, 't', 'rt', 0, ?, ?, '1', 0, ?, 'FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z', 'Avalanche', 'AVAX', 9,
      'secp256k1', ?, '[]', ?, ?)`,
    [r.utxo, r.node, r.type, r.end, r.amount, T1, T1],
  );
  for (const [currency, value] of Object.entries(r.prices ?? {}))
    await setPrice(store, r.utxo, currency, value);
  for (const a of r.addresses) {
    await store.run(`INSERT INTO reward_addresses VALUES ('mainnet', ?, ?)`, [r.utxo, a]);
  }
}

async function setPrice(store: Store, utxo: string, currency: string, value: string): Promise<void> {
  await store.run(
    `INSERT INTO reward_prices VALUES ('mainnet', ?, ?, ?, ?)
     ON CONFLICT (network, utxo_id, currency) DO UPDATE SET value = excluded.value`,
    [utxo, currency, value, T1],
  );
}

/** The reward summaries recomputed in JS from the rows: exact amounts; values per currency to 1e-9. */
async function rewardTruth(store: Store) {
  const rewards = await all(store, 'SELECT * FROM rewards');
  const links = await all(store, 'SELECT * FROM reward_addresses');
  const prices = await all(store, 'SELECT * FROM reward_prices');
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

async function expectRewardSummaryRight(store: Store, exactNewest = true): Promise<void> {
  const truth = await rewardTruth(store);
  // The exact sum as text (SQLite's INTEGER would come back as a double past 2^53).
  const rows = await store.all<Record<string, string | number>>(
    `SELECT subject_kind, subject, reward_type, rewards, CAST(amount AS TEXT) AS amount, newest_end_timestamp
     FROM reward_summaries WHERE rewards > 0`,
  );
  expect(rows).toHaveLength(truth.base.size);
  for (const row of rows) {
    const key = [row.subject_kind, row.subject, row.reward_type].join('|');
    const t = truth.base.get(key);
    expect(t, key).toBeDefined();
    expect(Number(row.rewards)).toBe(t!.rewards);
    expect(BigInt(row.amount as string)).toBe(t!.amount);
    if (exactNewest) expect(Number(row.newest_end_timestamp)).toBe(t!.newest);
  }
  const valueRows = await all(store, 'SELECT * FROM reward_value_summaries WHERE priced > 0');
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
    const store = await fresh();
    const tx = (i: number, chainId: string, blockTimestamp = 1000 + i) =>
      evmTransaction(i, { chainId, blockTimestamp });
    const page = (network: string, txs: Transaction[], seenAt = T1) =>
      store.transaction((tx) => upsertTransactions(tx, network, txs, seenAt));
    const first = Array.from({ length: 50 }, (_, i) => tx(i, i % 3 === 0 ? '43114' : '1'));
    await page('mainnet', first);
    await page('fuji', [tx(900, '43113', 5)]);
    expect(await txSummary(store)).toEqual(await txTruth(store));
    // Overlapping pages (rows read again, one row twice in a page) count each row once; the rows
    // read again are only touched (last_seen_at), and only the new one counts as written.
    expect(await page('mainnet', [...first.slice(40), tx(50, '1'), tx(50, '1')], T2)).toBe(1);
    expect(await txSummary(store)).toEqual(await txTruth(store));
    const seen = await all(
      store,
      "SELECT first_seen_at AS first, last_seen_at AS last, COUNT(*) AS n FROM transactions WHERE network = 'mainnet' GROUP BY 1, 2 ORDER BY 1, 2",
    );
    expect(seen).toEqual([
      { first: T1, last: T1, n: 40 },
      { first: T1, last: T2, n: 10 },
      { first: T2, last: T2, n: 1 },
    ]);
    // A re-org moves a transaction to a later block.
    await page('mainnet', [tx(3, '43114', 9999)], T3);
    expect(await txSummary(store)).toEqual(await txTruth(store));
    await store.run("DELETE FROM transactions WHERE chain_id = '1' AND tx_hash = '0x1'");
    expect((await txSummary(store)).map((r) => r.transactions)).toEqual(
      (await txTruth(store)).map((r) => r.transactions),
    );
    // Rows written by other means: PostgreSQL's triggers count them; SQLite's rebuild recounts them.
    await insertTx(store, '10', '0xraw', 7);
    if (onPostgres) expect(await txSummary(store)).toEqual(await txTruth(store));
    await rebuildTransactionSummaries(store);
    expect(await txSummary(store)).toEqual(await txTruth(store));
  });

  it('count each transaction once when pages that share rows are written at once (PostgreSQL: on several connections)', async () => {
    const store = await fresh();
    const tx = (i: number) => evmTransaction(i, { chainId: ['43114', '1', '2'][i % 3]! });
    // Eight pages over 60 transactions, each in its own order (forwards, backwards), half of them
    // shared with the page before: written all at once, as several hosts' streams would.
    const pages = Array.from({ length: 8 }, (_, p) => {
      const txs = Array.from({ length: 30 }, (_, i) => tx((p * 15 + i) % 60));
      return p % 2 === 0 ? txs : txs.reverse();
    });
    const written = await Promise.all(
      pages.map((txs, p) => store.transaction((t) => upsertTransactions(t, 'mainnet', txs, p % 2 ? T2 : T1))),
    );
    expect(written.reduce((a, b) => a + b)).toBe(60);
    expect(await txSummary(store)).toEqual(await txTruth(store));
    expect((await txSummary(store)).map((r) => r.transactions)).toEqual([20, 20, 20]);
  });

  it('sum rewards per address and node id, and their value per price currency as prices arrive', async () => {
    const store = await fresh();
    await insertReward(store, {
      utxo: 'u1',
      node: 'N1',
      type: 'VALIDATOR',
      amount: '1000000001',
      end: 10,
      addresses: ['a1'],
    });
    await insertReward(store, {
      utxo: 'u2',
      node: 'N1',
      type: 'DELEGATOR',
      amount: '123456789012345',
      end: 20,
      prices: { eur: '21.37', usd: '23.1' },
      addresses: ['a1', 'a2'],
    });
    await insertReward(store, {
      utxo: 'u3',
      node: 'N2',
      type: 'VALIDATOR',
      amount: '5',
      end: 30,
      prices: { eur: '0.1' },
      addresses: [],
    });
    await expectRewardSummaryRight(store);
    // The price of u1 arrives; another currency's price of u2 changes; a re-read touches last_seen_at.
    await setPrice(store, 'u1', 'eur', '19.5');
    await setPrice(store, 'u2', 'usd', '24');
    await store.run('UPDATE rewards SET last_seen_at = ?', [T3]);
    await expectRewardSummaryRight(store);
    // A link and a price written before their reward, then the reward: each counted once.
    await store.run("INSERT INTO reward_addresses VALUES ('mainnet', 'u4', 'a3')");
    await setPrice(store, 'u4', 'eur', '2');
    await insertReward(store, {
      utxo: 'u4',
      node: 'N2',
      type: 'VALIDATOR_FEE',
      amount: '7',
      end: 40,
      addresses: [],
    });
    await expectRewardSummaryRight(store);
    // A changed amount moves the count and every value.
    await store.run("UPDATE rewards SET amount = '2000000002' WHERE utxo_id = 'u1'");
    await expectRewardSummaryRight(store);
    await store.run("DELETE FROM reward_addresses WHERE utxo_id = 'u2' AND address = 'a2'");
    await store.run("DELETE FROM reward_prices WHERE utxo_id = 'u2' AND currency = 'usd'");
    await store.run("DELETE FROM rewards WHERE utxo_id = 'u3'");
    await store.run("DELETE FROM reward_prices WHERE utxo_id = 'u3'");
    // Deletions never lower a newest time (documented): compare everything else.
    await expectRewardSummaryRight(store, false);
  });

  it('keep the latest finished run and the latest success of each job', async () => {
    const store = await fresh();
    const a = await startJobRun(store, 'supply', 'all', '2025-01-01T00:00:00.000Z');
    const b = await startJobRun(store, 'supply', 'all', '2025-01-01T00:01:00.000Z');
    const done = { rowsWritten: 1, requests: 1, computeUnits: 1 };
    await finishJobRun(store, b, { ...done, status: 'failed', finishedAt: '2025-01-01T00:01:05.000Z' });
    // An older run finishing later does not replace the newer finish, but is the latest success.
    await finishJobRun(store, a, { ...done, status: 'succeeded', finishedAt: '2025-01-01T00:00:30.000Z' });
    expect(await readJobSummaries(store)).toEqual([
      {
        job: 'supply',
        lastStatus: 'failed',
        lastStartedAt: '2025-01-01T00:01:00.000Z',
        lastFinishedAt: '2025-01-01T00:01:05.000Z',
        lastSuccessAt: '2025-01-01T00:00:30.000Z',
      },
    ]);
  });

  // PostgreSQL's migrations create the summaries with the tables: there is no older database to fill.
  it.skipIf(onPostgres)(
    'are filled from the rows already stored when the migration runs on an existing database (SQLite)',
    async () => {
      // A database at every migration before the metrics ones, with data.
      const { path, store: old } = await storeBefore('metrics');
      expect(await all(old, "SELECT name FROM sqlite_master WHERE name = 'transaction_summaries'")).toEqual(
        [],
      );
      for (let i = 0; i < 10; i++) await insertTx(old, String(i % 2), `0x${i}`, i);
      await insertReward(old, {
        utxo: 'u1',
        node: 'N1',
        type: 'VALIDATOR',
        amount: '3',
        end: 10,
        prices: { usd: '2.5' },
        addresses: ['a1'],
      });
      await insertReward(old, {
        utxo: 'u2',
        node: 'N1',
        type: 'VALIDATOR',
        amount: '4',
        end: 11,
        addresses: ['a1', 'a2'],
      });
      // A finished run, as that version recorded it (this one's finishJobRun writes later columns).
      await old.run(
        `INSERT INTO job_runs (job, scope, started_at, finished_at, status, rows_written, requests, compute_units)
         VALUES ('supply', 'all', '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:02.000Z', 'succeeded', 0, 1, 1)`,
      );
      await old.close();

      const upgraded = await openStore(storeLocation(path));
      cleanups.push(() => upgraded.close());
      expect(await txSummary(upgraded)).toEqual(await txTruth(upgraded));
      await expectRewardSummaryRight(upgraded);
      expect((await readJobSummaries(upgraded))[0]).toMatchObject({
        job: 'supply',
        lastSuccessAt: '2025-01-01T00:00:02.000Z',
      });
    },
  );

  it.skipIf(onPostgres)(
    'the records migration on an existing database (SQLite): transactions kept with their delete trigger, a clamped reward sum recounted',
    async () => {
      // A database of the version before: every migration before 0006_records_set_aside, with data.
      const { path, store: old } = await storeBefore('records_set_aside');
      for (let i = 0; i < 10; i++) await insertTx(old, String(i % 2), `0x${i}`, i);
      // That version's writer counted transactions itself: as it would have.
      await old.exec(`INSERT INTO transaction_summaries (network, chain_id, transactions, newest_block_timestamp)
        SELECT network, chain_id, count(*), max(block_timestamp) FROM transactions GROUP BY 1, 2`);
      const huge = '99999999999999999999999';
      for (const utxo of ['u1', 'u2']) {
        await insertReward(old, {
          utxo,
          node: 'N1',
          type: 'VALIDATOR',
          amount: huge,
          end: 10,
          addresses: ['a1'],
        });
      }
      // Its trigger clamped each amount at 2^63 - 1 (and went REAL adding them).
      const clamped = await all(old, "SELECT amount FROM reward_summaries WHERE subject = 'N1'");
      expect(Number(clamped[0]!.amount)).toBeLessThan(2e19);
      await old.close();

      const upgraded = await openStore(storeLocation(path));
      cleanups.push(() => upgraded.close());
      expect(await txSummary(upgraded)).toEqual(await txTruth(upgraded));
      await upgraded.run("DELETE FROM transactions WHERE tx_hash = '0x0'");
      expect(await txSummary(upgraded)).toEqual(await txTruth(upgraded));
      // A contract creation now fits.
      await upgraded.run(
        `INSERT INTO transactions (chain_id, tx_hash, network, block_number, block_timestamp, block_hash, block_index,
          tx_status, tx_type, gas_limit, gas_used, gas_price, nonce, value, from_address, to_address, first_seen_at, last_seen_at)
         VALUES ('0', '0xnew', 'mainnet', '1', 1, '0xb', 0, '1', 2, '1', '1', '1', '0', '0', '0xa', NULL, ?, ?)`,
        [T1, T1],
      );
      const [sum] = await all(upgraded, "SELECT amount FROM reward_summaries WHERE subject = 'N1'");
      expect(Number(sum!.amount)).toBeCloseTo(2e23, -9);
      expect(
        await readRewardTotals(upgraded, 'mainnet', 'usd', [{ kind: 'node_id', subject: 'N1' }]),
      ).toMatchObject([{ rewards: 2 }]);
    },
  );

  it('refresh export summaries from operations and files: statuses, bytes, loaded rows', async () => {
    const store = await fresh();
    const op = (id: string, name: string, status: string, created: number) =>
      store.run(
        `INSERT INTO export_operations (operation_id, export_name, first_date, last_date, operation_type, request, status,
          created_at_ms, updated_at_ms, status_history, recorded_at)
         VALUES (?, ?, '2025-01-01', '2025-01-01', 'TRANSACTION_EXPORT_EVM', '{}', ?, ?, ?, '[]', ?)`,
        [id, name, status, created, created + 500, T1],
      );
    await op('o1', 'treasury', 'COMPLETED', 1000);
    await op('o2', 'treasury', 'FAILED', 2000);
    await op('o3', 'ops', 'RUNNING', 1500);
    await store.run(
      "INSERT INTO export_files (operation_id, path, size_bytes, sha256, downloaded_at) VALUES ('o1', '/tmp/x.csv', 1234, 'abc', ?)",
      [T1],
    );
    await refreshExportSummaries(store);
    expect(await readExportSummaries(store)).toEqual([
      {
        exportName: 'ops',
        latestStatus: 'RUNNING',
        bytesDownloaded: 0,
        filesDownloaded: 0,
        rowsLoaded: 0,
        lastCompletedAtMs: null,
        statuses: { RUNNING: 1 },
        files: {},
      },
      {
        exportName: 'treasury',
        latestStatus: 'FAILED',
        bytesDownloaded: 1234,
        filesDownloaded: 1,
        rowsLoaded: 0,
        lastCompletedAtMs: 1500,
        statuses: { COMPLETED: 1, FAILED: 1 },
        files: { pending: 1 },
      },
    ]);
    // Rows count once their load finished; a RUNNING operation past its timeout counts as GAVE_UP.
    await store.run("UPDATE export_files SET rows_loaded = 500 WHERE operation_id = 'o1'");
    await refreshExportSummaries(store);
    expect((await readExportSummaries(store)).find((s) => s.exportName === 'treasury')?.rowsLoaded).toBe(0);
    await store.run(
      "UPDATE export_files SET loaded_at = ?, load_status = 'loaded' WHERE operation_id = 'o1'",
      [T2],
    );
    await store.run("UPDATE export_operations SET gave_up_at = ? WHERE operation_id = 'o3'", [T3]);
    await refreshExportSummaries(store);
    expect((await readExportSummaries(store)).find((s) => s.exportName === 'treasury')?.rowsLoaded).toBe(500);
    expect((await readExportSummaries(store)).find((s) => s.exportName === 'treasury')?.files).toEqual({
      loaded: 1,
    });
    expect((await readExportSummaries(store)).find((s) => s.exportName === 'ops')).toMatchObject({
      latestStatus: 'GAVE_UP',
      statuses: { GAVE_UP: 1 },
    });
  });
});
