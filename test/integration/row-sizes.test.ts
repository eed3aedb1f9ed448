import { describe, expect, it } from 'vitest';
import { ROW_BYTES, ROW_BYTES_TOLERANCE } from '../../src/store/index.js';
import { measureRowBytes } from '../support/row-sizes.js';
import { STORE, testStore } from '../support/store.js';

/**
 * The bytes a row of src/store/row-sizes.ts (`plan`'s disk estimate, docs/operations.md's sizing),
 * measured again on this store: the jobs write a few thousand rows of each table into a fresh
 * database and the store's own table sizes are read before and after.
 */
describe('bytes a row', () => {
  it(`each growing table's rows take the bytes ROW_BYTES.${STORE} says, within ±${ROW_BYTES_TOLERANCE * 100}%`, async () => {
    const db = await testStore();
    try {
      const measured = await measureRowBytes(db.store, { rows: 2_000 });
      const report = measured.map((m) => ({
        table: m.table,
        rows: m.rows,
        bytesPerRow: Math.round(m.bytesPerRow),
        constant: ROW_BYTES[STORE][m.table],
      }));
      for (const m of report) expect(m.rows, m.table).toBeGreaterThanOrEqual(2_000);
      const off = report.filter((m) => !(Math.abs(m.bytesPerRow / m.constant - 1) <= ROW_BYTES_TOLERANCE));
      expect(off, `measured: ${JSON.stringify(report)}`).toEqual([]);
    } finally {
      await db.cleanup();
    }
  }, 240_000);
});
