/**
 * PostgreSQL's statements. A page is one statement (a round trip per row would cost more than the
 * write): its rows go as one array per column, unnested, so the text is short and fixed whatever
 * the page size (parsed and planned once per connection, see ../postgres.ts), in key order, so two
 * hosts upserting overlapping pages wait for each other rather than deadlock.
 */
import type { Sql } from '../sql.js';
import type { UpsertPlan } from '../upsert.js';
import type { DialectStatements } from './index.js';

interface CompiledUpsert {
  upsert: string;
  /** Touches the rows seen again unchanged (those written carry the value already). */
  touch: string | undefined;
  touchProps: string[];
}

const compiled = new WeakMap<UpsertPlan, CompiledUpsert>();

function compile(plan: UpsertPlan): CompiledUpsert {
  let found = compiled.get(plan);
  if (!found) {
    const arrays = (of: string[]) => of.map((p) => `?::${plan.pgTypeOf(p)}[]`).join(', ');
    const touchProps = plan.touch ? [plan.touch.prop, ...plan.key] : [];
    const keyVars = plan.key.map((_k, i) => `k${i}`);
    found = {
      upsert: `INSERT INTO ${plan.tableName} (${plan.columnList}) SELECT * FROM unnest(${arrays(plan.props)}) ${plan.conflict}`,
      touch:
        plan.touch &&
        `UPDATE ${plan.tableName} t SET ${plan.touch.name} = k.v FROM unnest(${arrays(touchProps)}) AS k(v, ${keyVars.join(
          ', ',
        )}) WHERE (${plan.keyNames.map((k) => `t.${k}`).join(', ')}) = (${keyVars
          .map((k) => `k.${k}`)
          .join(', ')}) AND t.${plan.touch.name} IS DISTINCT FROM k.v`,
      touchProps,
    };
    compiled.set(plan, found);
  }
  return found;
}

/** PostgreSQL's limit of parameters per statement. */
const MAX_PARAMETERS = 65_535;

export const postgresStatements: DialectStatements = {
  async upsert(sql, plan, rows) {
    const { upsert, touch, touchProps } = compile(plan);
    const keyOf = (record: Record<string, unknown>) => plan.key.map((k) => String(record[k])).join('\u0000');
    const unique = new Map<string, Record<string, unknown>>();
    for (const record of rows) unique.set(keyOf(record), record); // a key repeated in the page: its last row wins
    const records = [...unique.keys()].sort().map((k) => unique.get(k)!);
    const columnsOf = (of: string[]) => of.map((p) => arrayLiteral(records, p));
    const written = await sql.run(upsert, columnsOf(plan.props));
    // Every row new or changed (a page read for the first time): none left to touch.
    if (touch && written < records.length) await sql.run(touch, columnsOf(touchProps));
    return written;
  },

  async insertIgnoringConflicts(sql, table, columns, rows) {
    // Multi-row statements: a round trip per few thousand rows.
    const perStatement = Math.floor(MAX_PARAMETERS / columns.length);
    const row = `(${columns.map(() => '?').join(',')})`;
    let added = 0;
    for (let start = 0; start < rows.length; start += perStatement) {
      const chunk = rows.slice(start, start + perStatement);
      added += await sql.run(
        `INSERT INTO ${table} (${columns.join(',')}) VALUES ${Array.from({ length: chunk.length }, () => row).join(',')}
         ON CONFLICT DO NOTHING`,
        chunk.flat(),
      );
    }
    return added;
  },

  inList: (expr, values) => ({ clause: `${expr} = ANY(?)`, param: values }),

  // One statement: jsonb compares by value (key order, spacing), as the read-compare-write does.
  async compareAndSwapCursor(sql: Sql, { job, scope, expected, next, at }) {
    const moved =
      expected === undefined
        ? await sql.run(
            'INSERT INTO sync_state (job, scope, cursor, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
            [job, scope, JSON.stringify(next), at],
          )
        : await sql.run(
            'UPDATE sync_state SET cursor = ?, updated_at = ? WHERE job = ? AND scope = ? AND cursor = ?::jsonb',
            [JSON.stringify(next), at, job, scope, JSON.stringify(expected)],
          );
    return moved === 1;
  },

  // drizzle/postgres/0002_transactions_summary_triggers.sql: exact whatever other hosts write at once.
  triggersKeepTransactionSummaries: true,

  async checkWritable(store) {
    const row = await store.get<{ standby: boolean; insert: boolean }>(
      "SELECT pg_is_in_recovery() AS standby, has_table_privilege('job_runs', 'INSERT') AS insert",
    );
    if (row?.standby) throw new Error('the PostgreSQL server is a read-only standby');
    if (!row?.insert) throw new Error('the database user may not insert into job_runs');
  },

  async hasTable(sql, name) {
    const row = await sql.get<{ found: boolean }>('SELECT to_regclass(?) IS NOT NULL AS found', [name]);
    return row?.found === true;
  },

  // TOAST included.
  async tableSizes(sql) {
    const rows = await sql.all<{ name: string; bytes: number | string }>(
      `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes FROM pg_class c
       WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace`,
    );
    return new Map(rows.map((r) => [r.name, Number(r.bytes)]));
  },

  // jsonb_each_text of NULL is no row; its values are text.
  sumRowsRemoved: (where) =>
    `SELECT e.key AS "table", sum(e.value::bigint) AS rows FROM job_runs, jsonb_each_text(job_runs.rows_removed) e
     WHERE ${where} GROUP BY e.key`,

  // Rows another transaction holds are skipped, not waited for: the next run prunes them.
  deleteBatch: (table, where) =>
    `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE ${where} LIMIT ? FOR UPDATE SKIP LOCKED))`,

  // Autovacuum reclaims the dead rows; ANALYZE keeps the plans right after a large delete.
  async reclaimSpace(store, tables) {
    for (const table of tables) await store.exec(`ANALYZE ${table}`);
  },

  // The ids were copied as they were (the identity is BY DEFAULT): the sequence starts past them.
  async afterCopyWithIds(sql, table, idColumn) {
    await sql.run(
      `SELECT setval(pg_get_serial_sequence('${table}', '${idColumn}'), max("${idColumn}")) FROM "${table}"`,
    );
  },
};

/**
 * The column `prop` of `rows` as a PostgreSQL array literal (`{"a",NULL,"b"}`), what node-postgres
 * would send for a JS array, built in one pass: its own serializer (two regular expressions per
 * element) was a fifth of the client's time per page.
 */
function arrayLiteral(rows: readonly Record<string, unknown>[], prop: string): string {
  let out = '{';
  for (let i = 0; i < rows.length; i++) {
    if (i > 0) out += ',';
    const value = rows[i]![prop];
    if (value === null || value === undefined) out += 'NULL';
    else if (typeof value === 'string')
      out += NEEDS_ESCAPE.test(value) ? `"${value.replace(ESCAPED, '\\$&')}"` : `"${value}"`;
    else if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean')
      out += String(value);
    else throw new TypeError(`${prop}: cannot send a ${typeof value} in an array`);
  }
  return `${out}}`;
}

const NEEDS_ESCAPE = /["\\]/;
const ESCAPED = /["\\]/g;
