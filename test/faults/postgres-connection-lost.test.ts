import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeLocation } from '../../src/config/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { schemaUrl, withPostgres } from '../support/store.js';

/**
 * A PostgreSQL connection the server drops while a transaction holds it between two statements
 * (a fast shutdown, a failover, `pg_terminate_backend`): node-postgres emits an error on the client,
 * and the pool listens to idle clients only. Unheard, that error ended `start` with exit 1 in the
 * middle of a shutdown (seen in CI: test/faults/shutdown.test.ts, PostgreSQL stopped mid-run). The
 * store hears its clients while they are out: the transaction fails, the client is not reused, the
 * next transaction runs on a new connection. Vitest fails the file on an unhandled error, so this
 * test fails without the listener.
 */
const schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
let store: Store;

beforeAll(async () => {
  await withPostgres((c) => c.query(`CREATE SCHEMA ${schema}`));
  store = await openStore(storeLocation(schemaUrl(schema)));
});

afterAll(async () => {
  await store?.close();
  await withPostgres((c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
});

async function terminated(pid: number): Promise<void> {
  await withPostgres((c) => c.query('SELECT pg_terminate_backend($1)', [pid]));
  // Until the server has gone and the client has heard it: no query of its own is running.
  for (let i = 0; i < 100; i++) {
    const { rows } = await withPostgres((c) =>
      c.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid]),
    );
    if (rows.length === 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 100));
}

describe('a PostgreSQL connection dropped inside a transaction', () => {
  it('fails that transaction, not the process; the next one runs on a new connection', async () => {
    const seen: number[] = [];
    const outcome = store.transaction(async (tx) => {
      const row = await tx.get<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      seen.push(row!.pid);
      await terminated(row!.pid);
      await tx.run('SELECT 1');
    });
    await expect(outcome).rejects.toThrow();

    const after = await store.transaction((tx) => tx.get<{ pid: number }>('SELECT pg_backend_pid() AS pid'));
    expect(after?.pid).toBeGreaterThan(0);
    expect(after?.pid).not.toBe(seen[0]);
  });
});
