import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { commonQueriesFor, documentedQueries } from '../support/docs-sql.js';
import { STORE, type TestStore, testStore } from '../support/store.js';

/**
 * The documented example queries and the common ones use an index, against the migrated schema:
 * SQLite's `EXPLAIN QUERY PLAN` (plans do not depend on the row count until someone runs ANALYZE);
 * PostgreSQL's `EXPLAIN` with sequential scans priced out (`enable_seqscan = off`: on empty tables the
 * planner would rightly pick them), so that a table read whole is a table no index can serve. A table
 * read whole is only allowed for the reports that aggregate a whole table.
 */
/** Reports that read every row of their table by nature: an index cannot make them read less. */
const wholeTableReports = [
  /FROM supply_snapshots\)/, // supply over time: every snapshot, last of each day
  /SUM\(tx_status = '0'\) \/ COUNT\(\*\)/, // failed share per chain, over every transaction
  /tx_status = '0'.*\/ COUNT\(\*\)/s, // the same, in PostgreSQL's spelling (a CASE or FILTER)
  /GROUP BY day, job ORDER BY day DESC/, // requests and compute units per day and job, all runs
];

const common = commonQueriesFor(STORE);

let t: TestStore;
beforeAll(async () => {
  t = await testStore();
});
afterAll(() => t?.cleanup());

/** The plan's lines: SQLite's `detail`s, or PostgreSQL's text plan. */
async function plan(store: Store, sql: string): Promise<string[]> {
  if (store.dialect === 'sqlite') {
    return (await store.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)).map((r) => r.detail);
  }
  return store.transaction(async (tx) => {
    await tx.exec('SET LOCAL enable_seqscan = off');
    const rows = await tx.all<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`);
    return rows.map((r) => r['QUERY PLAN'].trim().replace(/^->\s+/, ''));
  });
}

/** Tables read whole, without an index (a `json_each` of each row read is a virtual table, not one). */
const tableScans = (lines: string[]) =>
  STORE === 'sqlite'
    ? lines.filter((l) => /^SCAN (?!\(|.* USING|\S+ VIRTUAL TABLE)/.test(l))
    : lines.filter((l) => /^Seq Scan on /.test(l));

/**
 * Sorts of the rows read for an ORDER BY or DISTINCT (SQLite's temporary b-trees; PostgreSQL's Sort
 * nodes, in a query that does not group: grouping may sort).
 */
const bigSorts = (lines: string[], sql: string) =>
  STORE === 'sqlite'
    ? lines.filter((l) => /TEMP B-TREE FOR (ORDER BY|DISTINCT)/.test(l))
    : /GROUP BY/i.test(sql)
      ? []
      : lines.filter((l) => /^(Incremental )?Sort/.test(l));

const usesIndex = (lines: string[]) =>
  STORE === 'sqlite'
    ? lines.some((l) => /^SEARCH .* USING (COVERING )?INDEX/.test(l))
    : lines.some((l) => /^(Index Scan|Index Only Scan|Bitmap Index Scan)( Backward)? (using|on) /.test(l));

describe(`query plans (${STORE})`, () => {
  const documented = documentedQueries(STORE);

  it('finds the documented example queries', () => {
    expect(documented.length).toBeGreaterThanOrEqual(10);
  });

  it.each(documented.map((q) => [q.name, q.sql]))('documented: %s uses an index', async (_name, sql) => {
    const lines = await plan(t.store, sql);
    if (wholeTableReports.some((r) => r.test(sql))) return;
    expect(tableScans(lines), lines.join('\n')).toEqual([]);
  });

  it.each(Object.entries(common))(
    'common: %s reads through an index and sorts nothing big',
    async (_name, sql) => {
      const lines = await plan(t.store, sql);
      expect(tableScans(lines), lines.join('\n')).toEqual([]);
      expect(bigSorts(lines, sql), lines.join('\n')).toEqual([]);
      expect(usesIndex(lines), lines.join('\n')).toBe(true);
    },
  );

  it('the newest 100 of a chain come straight from the (chain_id, block_timestamp) index', async () => {
    const lines = await plan(t.store, common['newest 100 of a chain']);
    if (STORE === 'sqlite') {
      expect(lines).toEqual(['SEARCH transactions USING INDEX transactions_chain_time_idx (chain_id=?)']);
    } else {
      // A backward walk of the index: no Sort node, the LIMIT stops it after 100 rows.
      expect(
        lines.filter((l) => /^Sort/.test(l)),
        lines.join('\n'),
      ).toEqual([]);
      expect(
        lines.some((l) => /^Index Scan Backward using transactions_chain_time_idx on transactions/.test(l)),
      ).toBe(true);
    }
  });
});
