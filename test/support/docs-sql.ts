import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export type Dialect = 'sqlite' | 'postgres';

export interface DocumentedQuery {
  /** The first words of the paragraph before its block, e.g. "Rewards per address and month" (+ " #2"…). */
  name: string;
  sql: string;
}

/**
 * Every statement of the ```sql blocks of the README and of docs/ (wherever the reference lives) that
 * runs on `dialect`: a block fenced ```sql is for both stores; ```sql sqlite or ```sql postgres for
 * that store only (a query written twice, once per store).
 */
export function documentedQueries(dialect: Dialect = 'sqlite'): DocumentedQuery[] {
  const files = [join(root, 'README.md')];
  const docs = join(root, 'docs');
  if (existsSync(docs)) {
    for (const f of readdirSync(docs, { recursive: true }) as string[]) {
      if (f.endsWith('.md') && !f.startsWith('notes')) files.push(join(docs, f));
    }
  }
  const queries = new Map<string, DocumentedQuery>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/```sql(?:[ \t]+(\w+))?[ \t]*\n([\s\S]*?)```/g)) {
      const only = m[1];
      if (only !== undefined && only !== dialect) continue;
      // The paragraph before the block (or before the other store's version of it).
      const before =
        text
          .slice(0, m.index)
          .replace(/```[\s\S]*?```/g, '')
          .trimEnd()
          .split(/\n\s*\n/)
          .at(-1) ?? '';
      const title =
        before
          .replace(/\s+/g, ' ')
          .split(/[,:(.]/)[0]!
          .trim()
          .slice(0, 60) || 'query';
      const statements = m[2]!.split(/;\s*(?:\n|$)/).filter((s) => s.trim());
      statements.forEach((sql, i) => {
        const name = statements.length > 1 ? `${title} #${i + 1}` : title;
        if (!queries.has(sql.trim())) queries.set(sql.trim(), { name, sql: sql.trim() });
      });
    }
  }
  return [...queries.values()];
}

/** The common queries besides the documented ones (SQLite's; `commonQueriesFor` gives each store's). */
export const commonQueries = {
  'newest 100 of a chain': `SELECT * FROM transactions WHERE chain_id = '43114' ORDER BY block_timestamp DESC LIMIT 100`,
  'a chain over an hour': `SELECT COUNT(*) FROM transactions WHERE chain_id = '43114' AND block_timestamp >= 1749981600 AND block_timestamp < 1749985200`,
  'rewards of an address per month': `SELECT strftime('%Y-%m', r.end_timestamp, 'unixepoch') AS month, SUM(CAST(r.amount AS INTEGER))
    FROM reward_addresses a JOIN rewards r ON r.network = a.network AND r.utxo_id = a.utxo_id
    WHERE a.address = 'avax1h2ccj9f5ay5acl6tyn9mwmw32p8wref8vl8ctg' GROUP BY month`,
  'transactions of an address': `SELECT * FROM transactions WHERE from_address = '0xab' OR to_address = '0xab'`,
  'rewards of a node': `SELECT * FROM rewards WHERE node_id = 'NodeID-AfSdXzzumUERwUBNPt5jgUiZRDSMyKxvz' ORDER BY end_timestamp DESC`,
} as const;

/** The common queries in the SQL of `dialect`: the same questions, PostgreSQL's date and cast functions. */
export function commonQueriesFor(dialect: Dialect): Record<keyof typeof commonQueries, string> {
  if (dialect === 'sqlite') return commonQueries;
  return {
    ...commonQueries,
    'rewards of an address per month': `SELECT to_char(to_timestamp(r.end_timestamp) AT TIME ZONE 'UTC', 'YYYY-MM') AS month, SUM(r.amount)
    FROM reward_addresses a JOIN rewards r ON r.network = a.network AND r.utxo_id = a.utxo_id
    WHERE a.address = 'avax1h2ccj9f5ay5acl6tyn9mwmw32p8wref8vl8ctg' GROUP BY month`,
  };
}
