import { afterEach, describe, expect, it } from 'vitest';
import { upsertTransactions } from '../../src/store/index.js';
import { MAX_CACHED_STATEMENTS } from '../../src/store/sql.js';
import { testStore } from '../support/store.js';
import { evmTransaction } from '../support/transactions.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe('the store’s statement cache', () => {
  it('answers every text past the cap of statements it keeps prepared (PostgreSQL: named), and the first ones again', async () => {
    const db = await testStore({ migrate: false });
    cleanups.push(db.cleanup);
    const texts = Array.from({ length: MAX_CACHED_STATEMENTS + 50 }, (_, i) => `SELECT ? + ${i} AS n`);
    for (const [i, text] of texts.entries()) {
      expect((await db.store.get<{ n: number }>(text, [1]))?.n).toBe(i + 1);
    }
    // Kept ones (prepared, or named on this connection and others of the pool) and unkept ones, again,
    // in transactions as outside them.
    for (const i of [0, 1, MAX_CACHED_STATEMENTS - 1, MAX_CACHED_STATEMENTS, MAX_CACHED_STATEMENTS + 49]) {
      expect((await db.store.get<{ n: number }>(texts[i]!, [2]))?.n).toBe(i + 2);
      const inTx = await db.store.transaction((tx) => tx.get<{ n: number }>(texts[i]!, [3]));
      expect(inTx?.n).toBe(i + 3);
    }
  });
});

describe('upserts', () => {
  it('store text as given, whatever an array literal would quote (PostgreSQL sends a page as arrays)', async () => {
    const db = await testStore();
    cleanups.push(db.cleanup);
    const names = [
      'a "quoted" name',
      'back\\slash\\',
      '{braces},commas',
      'NULL',
      '',
      ' spaced ',
      'line\nbreak',
      'ünï ✓',
    ];
    const txs = names.map((name, i) =>
      evmTransaction(i, { value: '123456789012345678901234567890.5', from: { address: '0xa', name } }),
    );
    const seenAt = '2025-06-15T12:00:00.000Z';
    await db.store.transaction((tx) => upsertTransactions(tx, 'mainnet', txs, seenAt));
    const rows = await db.store.all<{ name: string | null; toName: string | null; value: string }>(
      'SELECT from_name AS name, to_name AS "toName", value FROM transactions ORDER BY tx_hash',
    );
    expect(rows).toEqual(
      names.map((name) => ({ name, toName: null, value: '123456789012345678901234567890.5' })),
    );
  });
});
