import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { testStore } from '../support/store.js';

/**
 * The documented example queries and the common ones use an index: `EXPLAIN QUERY PLAN` against the
 * migrated schema (plans do not depend on the row count until someone runs ANALYZE). A table read
 * whole (`SCAN t` without an index) is only allowed for the reports that aggregate a whole table.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));

/** Every ```sql block of the README and of docs/ (wherever the reference ends up living). */
function documentedQueries(): string[] {
  const files = [join(root, 'README.md')];
  const docs = join(root, 'docs');
  if (existsSync(docs)) {
    for (const f of readdirSync(docs, { recursive: true }) as string[]) {
      if (f.endsWith('.md') && !f.startsWith('notes')) files.push(join(docs, f));
    }
  }
  const statements = new Set<string>();
  for (const file of files) {
    for (const m of readFileSync(file, 'utf8').matchAll(/```sql\n([\s\S]*?)```/g)) {
      for (const s of m[1]!.split(/;\s*(?:\n|$)/)) if (s.trim()) statements.add(s.trim());
    }
  }
  return [...statements];
}

/** Reports that read every row of their table by nature: an index cannot make them read less. */
const wholeTableReports = [
  /FROM supply_snapshots\)/, // supply over time: every snapshot, last of each day
  /SUM\(tx_status = '0'\) \/ COUNT\(\*\)/, // failed share per chain, over every transaction
  /GROUP BY day, job ORDER BY day DESC/, // requests and compute units per day and job, all runs
];

/** The queries users run most, which must not read or sort more than their answer. */
const common = {
  'newest 100 of a chain': `SELECT * FROM transactions WHERE chain_id = '43114' ORDER BY block_timestamp DESC LIMIT 100`,
  'a chain over an hour': `SELECT COUNT(*) FROM transactions WHERE chain_id = '43114' AND block_timestamp >= 1749981600 AND block_timestamp < 1749985200`,
  'rewards of an address per month': `SELECT strftime('%Y-%m', r.end_timestamp, 'unixepoch') AS month, SUM(CAST(r.amount AS INTEGER))
    FROM reward_addresses a JOIN rewards r ON r.network = a.network AND r.utxo_id = a.utxo_id
    WHERE a.address = 'avax1h2ccj9f5ay5acl6tyn9mwmw32p8wref8vl8ctg' GROUP BY month`,
  'transactions of an address': `SELECT * FROM transactions WHERE from_address = '0xab' OR to_address = '0xab'`,
  'rewards of a node': `SELECT * FROM rewards WHERE node_id = 'NodeID-x' ORDER BY end_timestamp DESC`,
};

const t = testStore();
afterAll(() => t.cleanup());

function plan(sql: string): string[] {
  return (t.store.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map(
    (r) => r.detail,
  );
}

const tableScans = (lines: string[]) => lines.filter((l) => /^SCAN (?!\(|.* USING)/.test(l));

describe('query plans', () => {
  const documented = documentedQueries();

  it('finds the documented example queries', () => {
    expect(documented.length).toBeGreaterThanOrEqual(10);
  });

  it.each(documented.map((sql) => [sql.split('\n')[0]!.slice(0, 60), sql]))(
    'documented: %s… uses an index',
    (_name, sql) => {
      const lines = plan(sql);
      if (wholeTableReports.some((r) => r.test(sql))) return;
      expect(tableScans(lines), lines.join('\n')).toEqual([]);
    },
  );

  it.each(Object.entries(common))('common: %s reads through an index and sorts nothing big', (_name, sql) => {
    const lines = plan(sql);
    expect(tableScans(lines), lines.join('\n')).toEqual([]);
    expect(
      lines.filter((l) => /TEMP B-TREE FOR (ORDER BY|DISTINCT)/.test(l)),
      lines.join('\n'),
    ).toEqual([]);
    expect(
      lines.some((l) => /^SEARCH .* USING (COVERING )?INDEX/.test(l)),
      lines.join('\n'),
    ).toBe(true);
  });

  it('the newest 100 of a chain come straight from the (chain_id, block_timestamp) index', () => {
    expect(plan(common['newest 100 of a chain'])).toEqual([
      'SEARCH transactions USING INDEX transactions_chain_time_idx (chain_id=?)',
    ]);
  });
});
