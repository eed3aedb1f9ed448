import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transactions } from '../../jobs/transactions.js';
import { runHandler } from '../../src/kernel/index.js';
import type { Status } from '../../src/report/status.js';
import { openStore, readCursor, type Store, upsertTransactions, writeCursor } from '../../src/store/index.js';
import { runCli } from '../support/cli.js';
import { type Collector, startCollector } from '../support/collector.js';
import { tempDir } from '../support/tmp.js';
import { evmTransaction } from '../support/transactions.js';

/** The rows the test's own writer adds, in transactions that also move its cursor to their count. */
const WRITER_CHAIN = '99999';
const writerCount = 'SELECT COUNT(*) AS n FROM transactions WHERE chain_id = ?';

describe('backup of a SQLite database', () => {
  let c: Collector;
  let dir: string;
  let cleanup: () => void;
  let configPath: string;

  beforeAll(async () => {
    c = await startCollector({ sim: { txPerMinute: 600 } });
    ({ dir, cleanup } = tempDir('glacier-backup-'));
    const payload = {
      networks: ['mainnet' as const],
      statuses: ['all' as const],
      pageSize: 100,
      maxPages: 5,
    };
    expect((await runHandler('transactions', transactions, payload, c.deps)).status).toBe('succeeded');
    configPath = join(dir, 'glacier-collector.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        jobs: { transactions: { schedule: '* * * * *', networks: ['mainnet'], maxPages: 2 } },
      }),
    );
  });

  afterAll(async () => {
    await c?.close();
    cleanup?.();
  });

  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(
      args,
      { ...c.dbEnv, GLACIER_CONFIG: configPath, GLACIER_BASE_URL: c.sim.url, ...env },
      { timeoutMs: 60_000 },
    );

  /** Writes batches of 50 rows and the cursor counting them, one transaction each, until stopped. */
  function startWriter(store: Store): { stop: () => Promise<number> } {
    let stopped = false;
    let written = 0;
    const loop = (async () => {
      while (!stopped) {
        const batch = Array.from({ length: 50 }, (_, k) =>
          evmTransaction(written + k, { chainId: WRITER_CHAIN, txHash: `0xfeed${written + k}` }),
        );
        await store.transaction(async (tx) => {
          const at = new Date().toISOString();
          await upsertTransactions(tx, 'mainnet', batch, at);
          await writeCursor(tx, 'writer', 'backup-test', { count: written + batch.length }, at);
        });
        written += batch.length;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    return {
      stop: async () => {
        stopped = true;
        await loop;
        return written;
      },
    };
  }

  it('copies a consistent snapshot while another connection writes, and the restored copy collects on', async () => {
    const collected = await c.store.all<{ tx_hash: string; block_number: string }>(
      'SELECT tx_hash, block_number FROM transactions ORDER BY tx_hash',
    );
    expect(collected.length).toBe(500);
    const backupPath = join(dir, 'snapshot.db');

    const writer = startWriter(c.store);
    const result = await cli(['backup', backupPath]);
    const written = await writer.stop();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`backed up ${c.location} to ${backupPath}`);
    // One file, nothing beside it (no -wal, no -shm, no temporary file left).
    expect(readdirSync(dir).sort()).toEqual(['glacier-collector.json', 'snapshot.db']);

    // The snapshot is whole: integrity checked, and every writer transaction in it completely or not at all.
    const copy = new Database(backupPath, { readonly: true });
    try {
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(copy.pragma('journal_mode', { simple: true })).toBe('delete');
      const rows = (copy.prepare(writerCount).get(WRITER_CHAIN) as { n: number }).n;
      const cursor = copy
        .prepare("SELECT cursor FROM sync_state WHERE job = 'writer' AND scope = 'backup-test'")
        .get() as { cursor: string } | undefined;
      expect(rows).toBe(cursor ? (JSON.parse(cursor.cursor) as { count: number }).count : 0);
      // Taken while the writer ran: some of its transactions are in the snapshot, later ones are not.
      expect(rows).toBeGreaterThan(0);
      expect(rows).toBeLessThan(written);
      expect(rows % 50).toBe(0);
      expect(
        copy
          .prepare('SELECT tx_hash, block_number FROM transactions WHERE chain_id != ? ORDER BY tx_hash')
          .all(WRITER_CHAIN),
      ).toEqual(collected);
    } finally {
      copy.close();
    }

    // Restore: a copy of the backup as DATABASE_PATH; status reads it, a run collects on from its cursor.
    const restoredPath = join(dir, 'restored', 'glacier.db');
    const restoredEnv = { DATABASE_PATH: restoredPath };
    mkdirSync(join(dir, 'restored'));
    const rowsInBackup = async () => {
      const db = new Database(backupPath, { readonly: true });
      try {
        return (db.prepare(writerCount).get(WRITER_CHAIN) as { n: number }).n;
      } finally {
        db.close();
      }
    };
    copyFileSync(backupPath, restoredPath);
    const status = await cli(['status', '--json'], restoredEnv);
    expect(status.code).toBe(0);
    const report = JSON.parse(status.stdout) as Status;
    expect(report.database).toMatchObject({ location: restoredPath, exists: true });
    const counted = new Map(report.database.tables.map((t) => [t.table, t.rows]));
    expect(counted.get('transactions')).toBe(collected.length + (await rowsInBackup()));

    const cursorBefore = await readCursor(c.store, 'transactions', 'mainnet/all');
    c.clock.advance(60_000);
    const run = await cli(['run', 'transactions'], restoredEnv);
    expect(run.code).toBe(0);
    const restored = await openStore({ kind: 'sqlite', path: restoredPath });
    try {
      const after = await restored.all<{ tx_hash: string; block_number: string }>(
        'SELECT tx_hash, block_number FROM transactions WHERE chain_id != ? ORDER BY tx_hash',
        [WRITER_CHAIN],
      );
      // Everything backed up is still there, unchanged, and the run added the minute's new transactions.
      const byHash = new Map(after.map((r) => [r.tx_hash, r]));
      for (const row of collected) expect(byHash.get(row.tx_hash)).toEqual(row);
      expect(after.length).toBeGreaterThan(collected.length);
      expect(new Set(after.map((r) => r.tx_hash)).size).toBe(after.length);
      expect(await readCursor(restored, 'transactions', 'mainnet/all')).not.toEqual(cursorBefore);
      const runs = await restored.all<{ status: string }>(
        "SELECT status FROM job_runs WHERE job = 'transactions'",
      );
      expect(runs.map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
    } finally {
      await restored.close();
    }
  });

  it('refuses to overwrite an existing file unless --force, which replaces it with a complete copy', async () => {
    const target = join(dir, 'existing.db');
    writeFileSync(target, 'not a database');
    const refused = await cli(['backup', target]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${target} exists`);
    expect(refused.stderr).toContain('--force');

    const forced = await cli(['backup', '--force', target]);
    expect(forced.code).toBe(0);
    const copy = new Database(target, { readonly: true });
    try {
      expect(copy.pragma('quick_check', { simple: true })).toBe('ok');
      expect(
        (copy.prepare('SELECT COUNT(*) AS n FROM transactions').get() as { n: number }).n,
      ).toBeGreaterThan(0);
    } finally {
      copy.close();
    }
  });

  it('refuses the database itself, a missing directory, and a database that does not exist', async () => {
    const self = await cli(['backup', c.location]);
    expect(self.code).toBe(2);
    expect(self.stderr).toContain(`is the live database ${c.location}`);
    const noDir = await cli(['backup', join(dir, 'no', 'such', 'dir.db')]);
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toContain('no such directory');
    const missing = join(dir, 'never-created.db');
    const none = await cli(['backup', join(dir, 'x.db')], { DATABASE_PATH: missing });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`no database at ${missing}`);
    expect(existsSync(missing)).toBe(false);
  });

  it('refuses the live database and its files under any other name, with or without --force', async () => {
    // Before, `backup --force` through a symlinked directory replaced the live database: the service
    // went on writing to the deleted inode and everything written after the backup was lost.
    const identity = () => {
      const s = statSync(c.location);
      return `${s.dev}:${s.ino}`;
    };
    const before = identity();
    const alias = join(dir, 'alias-dir');
    symlinkSync(dirname(c.location), alias);
    const name = basename(c.location);
    linkSync(c.location, join(dir, 'hard-link.db'));
    symlinkSync(c.location, join(dir, 'symlink.db'));
    for (const target of [
      join(alias, name),
      join(alias, `${name}-wal`),
      join(alias, `${name}-shm`),
      join(dir, 'hard-link.db'),
      join(dir, 'symlink.db'),
    ]) {
      for (const force of [[], ['--force']]) {
        const refused = await cli(['backup', ...force, target]);
        expect(refused.code, `${target} ${force}`).toBe(2);
        expect(refused.stderr).toContain(`${target} is the live database ${c.location}`);
      }
    }
    expect(identity()).toBe(before);
    const still = new Database(c.location, { readonly: true, fileMustExist: true });
    try {
      expect(still.pragma('quick_check', { simple: true })).toBe('ok');
    } finally {
      still.close();
    }
  });

  it('refuses a target that is not a file, without waiting on it', async () => {
    const fifo = join(dir, 'fifo.db');
    execFileSync('mkfifo', [fifo]);
    const refused = await cli(['backup', '--force', fifo]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${fifo} is a FIFO, not a file`);
  });
});
