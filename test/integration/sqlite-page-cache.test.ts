/**
 * SQLite's page cache is bounded at SQLite's own default, not better-sqlite3's 16 MiB: the cache fills
 * a page at a time as the database grows, off the JS heap, so a large bound shows as RSS creeping for
 * hours under a running service (issue 16, "Memory that stays flat").
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SQLITE_CACHE_KIB } from '../../src/store/index.js';
import { testStore } from '../support/store.js';

describe('SQLite page cache', () => {
  it('is bounded at SQLite default (2,000 KiB) on every connection the store opens', async () => {
    const compiled = new Database(':memory:');
    const builtIn = compiled.pragma('cache_size', { simple: true }) as number;
    compiled.close();
    // What the setting protects against: better-sqlite3's build raises SQLite's default.
    expect(-builtIn).toBeGreaterThan(SQLITE_CACHE_KIB);

    const t = await testStore();
    try {
      expect(await t.store.get<{ cache_size: number }>('PRAGMA cache_size')).toEqual({
        cache_size: -SQLITE_CACHE_KIB,
      });
      // Inside a transaction too (its statements run on the connection directly).
      expect(await t.store.transaction((tx) => tx.get<{ cache_size: number }>('PRAGMA cache_size'))).toEqual({
        cache_size: -SQLITE_CACHE_KIB,
      });
    } finally {
      await t.cleanup();
    }
  });
});
