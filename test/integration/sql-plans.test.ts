import { afterAll, describe, expect, it } from 'vitest';
import { commonQueries, documentedQueries } from '../support/docs-sql.js';
import { testStore } from '../support/store.js';

/**
 * The documented example queries and the common ones use an index: `EXPLAIN QUERY PLAN` against the
 * migrated schema (plans do not depend on the row count until someone runs ANALYZE). A table read
 * whole (`SCAN t` without an index) is only allowed for the reports that aggregate a whole table.
 */
/** Reports that read every row of their table by nature: an index cannot make them read less. */
const wholeTableReports = [
  /FROM supply_snapshots\)/, // supply over time: every snapshot, last of each day
  /SUM\(tx_status = '0'\) \/ COUNT\(\*\)/, // failed share per chain, over every transaction
  /GROUP BY day, job ORDER BY day DESC/, // requests and compute units per day and job, all runs
];

const common = commonQueries;

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

  it.each(documented.map((q) => [q.name, q.sql]))('documented: %s uses an index', (_name, sql) => {
    const lines = plan(sql);
    if (wholeTableReports.some((r) => r.test(sql))) return;
    expect(tableScans(lines), lines.join('\n')).toEqual([]);
  });

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
