import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { TEST_POSTGRES_URL } from '../support/store.js';
import { tempDir } from '../support/tmp.js';

/** `backup` given a PostgreSQL store (test/integration/backup.test.ts is SQLite's backup). */
describe('backup on PostgreSQL', () => {
  it('says to use pg_dump, with exit code 2, and writes nothing', async () => {
    const { dir, cleanup } = tempDir('glacier-backup-pg-');
    try {
      const result = await runCli(['backup', join(dir, 'copy.db')], { DATABASE_URL: TEST_POSTGRES_URL });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('pg_dump');
      expect(result.stderr).toContain('docs/operations.md');
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      cleanup();
    }
  });
});
