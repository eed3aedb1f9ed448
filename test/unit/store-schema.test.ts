import { readFileSync } from 'node:fs';
import {
  type DrizzleSnapshotJSON,
  type DrizzleSQLiteSnapshotJSON,
  generateDrizzleJson,
  generateMigration,
  generateSQLiteDrizzleJson,
  generateSQLiteMigration,
} from 'drizzle-kit/api';
import { getTableName, is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import * as tables from '../../src/store/description.js';
import * as sqliteSchema from '../../src/store/schema.js';
import * as pgSchema from '../../src/store/schema.pg.js';

/*
 * Both schemas are built from one description (src/store/description.ts), so they cannot differ but
 * by the types each maps a kind to. What can still go wrong: a described table left out of a
 * schema's exports (drizzle-kit reads only those), or a description changed without
 * `npm run db:generate`, so that the shipped migrations no longer build the described tables.
 */

/** The newest snapshot drizzle-kit wrote for a store: the tables its migrations build. */
function lastSnapshot(dialect: 'sqlite' | 'postgres'): unknown {
  const folder = new URL(`../../drizzle/${dialect}/meta/`, import.meta.url);
  const journal = JSON.parse(readFileSync(new URL('_journal.json', folder), 'utf8')) as {
    entries: { idx: number }[];
  };
  const last = String(journal.entries.at(-1)?.idx).padStart(4, '0');
  return JSON.parse(readFileSync(new URL(`${last}_snapshot.json`, folder), 'utf8'));
}

const exported = (schema: Record<string, unknown>, Table: typeof SQLiteTable | typeof PgTable) =>
  Object.entries(schema).flatMap(([prop, t]) => (is(t, Table) ? [[prop, getTableName(t)]] : []));

describe('store schemas', () => {
  const described = Object.entries(tables).map(([prop, t]) => [prop, t.name]);

  it('export every described table, under its name, and nothing else', () => {
    expect(exported(sqliteSchema, SQLiteTable)).toEqual(described);
    expect(exported(pgSchema, PgTable)).toEqual(described);
  });

  it('are what the shipped SQLite migrations build: db:generate has nothing to add', async () => {
    const current = await generateSQLiteDrizzleJson(sqliteSchema);
    const previous = lastSnapshot('sqlite') as DrizzleSQLiteSnapshotJSON;
    expect(await generateSQLiteMigration(previous, current)).toEqual([]);
  });

  it('are what the shipped PostgreSQL migrations build: db:generate has nothing to add', async () => {
    const current = generateDrizzleJson(pgSchema);
    const previous = lastSnapshot('postgres') as DrizzleSnapshotJSON;
    expect(await generateMigration(previous, current)).toEqual([]);
  });
});
