import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { jobs } from '../../jobs/index.js';
import { buildPlan } from '../../src/commands/plan.js';
import { RETAINED_TABLES } from '../../src/config/index.js';
import { estimateDisk, formatDisk } from '../../src/report/disk.js';
import { isSizedTable, ROW_BYTES, SIZED_TABLES } from '../../src/store/index.js';
import { formatBytes } from '../../src/terminal/units.js';
import { onlyCodeSpan, sections, tableRows } from '../support/markdown.js';
import { exampleConfig, SIZING_RETENTION } from '../support/row-sizes.js';

/**
 * The disk figures of docs/operations.md ("Sizing a disk") and docs/configuration.md (`retention`)
 * are what `plan` computes from src/store/row-sizes.ts: a constant or a schedule that changes fails
 * here until the pages say the new figures.
 */

const read = (page: string) => readFileSync(new URL(`../../docs/${page}`, import.meta.url), 'utf8');
const operations = read('operations.md');
const section = sections(operations).get('Sizing a disk') ?? '';
/** The section's prose on one line, code blocks left out. */
const prose = section.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').replace(/\s+/g, ' ');
const blocks = (lang: string) =>
  [...section.matchAll(/^```([a-z]*)\n([\s\S]*?)^```$/gm)].filter((m) => m[1] === lang).map((m) => m[2]!);
const number = (text: string) => Number(text.replace(/,/g, ''));

const config = exampleConfig(SIZING_RETENTION);
const plan = buildPlan(jobs, config);
const onPostgres = estimateDisk(plan.tables, config.retention, 'postgres', (t) =>
  isSizedTable(t) ? ROW_BYTES.postgres[t] : undefined,
);

describe('docs/operations.md, sizing a disk', () => {
  it('sizes the example config with the retention the storage bench uses', () => {
    expect(blocks('yaml').map((b) => parse(b))).toEqual([{ retention: SIZING_RETENTION }]);
  });

  it("shows what plan prints for it on SQLite, and PostgreSQL's totals", () => {
    expect(plan.disk.store).toBe('sqlite');
    expect(blocks('')).toEqual([`${formatDisk(plan.disk)}\n`]);
    const d = plan.disk;
    const said = (pattern: RegExp) => pattern.exec(prose)?.slice(1);
    expect(said(/without retention the database grows by up to (\S+ \S+) a day/)).toEqual([
      formatBytes(d.perDayWithoutRetention.worst),
    ]);
    expect(said(/level off near (\S+ \S+), and then the database grows by about (\S+ \S+) a day/)).toEqual([
      formatBytes(d.levelsOffAt.worst),
      formatBytes(d.perDayAfterLevelling.worst),
    ]);
    expect(
      said(
        /On PostgreSQL the same config grows by up to (\S+ \S+) a day without retention, and with it the pruned tables level off at (\S+ \S+)\./,
      ),
    ).toEqual([
      formatBytes(onPostgres.perDayWithoutRetention.worst),
      formatBytes(onPostgres.levelsOffAt.worst),
    ]);
  });

  it('gives the bytes a row of src/store/row-sizes.ts on each store, and the rows a day plan counts', () => {
    const rows = tableRows(section).map((r) => r.cells);
    expect(rows.map((r) => onlyCodeSpan(r[0]!))).toEqual([...SIZED_TABLES]);
    for (const [cell, sqlite, postgres, perDay] of rows) {
      const table = onlyCodeSpan(cell!)!;
      if (!isSizedTable(table)) continue;
      expect({ table, sqlite: number(sqlite!), postgres: number(postgres!) }).toEqual({
        table,
        sqlite: ROW_BYTES.sqlite[table],
        postgres: ROW_BYTES.postgres[table],
      });
      // Usage metrics: the page says why plan's count (a row per series and bucket) is not the table's.
      const counted = plan.tables.find((t) => t.table === table);
      if (counted && table !== 'usage_metrics') expect(perDay).toContain(counted.worst.toLocaleString('en'));
    }
  });
});

describe('docs/configuration.md, retention', () => {
  it("states each retained table's bytes a row on both stores", () => {
    const rows = tableRows(read('configuration.md'));
    for (const [key, table] of Object.entries(RETAINED_TABLES)) {
      // Records set aside have no steady size: their raw text is up to 16 KiB, and none come normally.
      if (table === 'rejected_records') continue;
      if (!isSizedTable(table)) throw new Error(`${table}: no bytes a row in src/store/row-sizes.ts`);
      const meaning = rows.find((r) => onlyCodeSpan(r.cells[0]!) === `retention.${key}`)?.cells[2] ?? '';
      const m = /about ([\d,]+) bytes a row on SQLite, ([\d,]+) on PostgreSQL/.exec(meaning);
      expect({ key, sqlite: number(m?.[1] ?? ''), postgres: number(m?.[2] ?? '') }).toEqual({
        key,
        sqlite: ROW_BYTES.sqlite[table],
        postgres: ROW_BYTES.postgres[table],
      });
    }
  });
});
