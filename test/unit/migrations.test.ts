import { describe, expect, it } from 'vitest';
import {
  compareVersions,
  DatabaseNewerError,
  describeSlowSteps,
  pendingMigrations,
  readShippedMigrations,
} from '../../src/store/migrations.js';

describe('the migrations this version ships', () => {
  it.each(['sqlite', 'postgres'] as const)(
    '%s: read from the journal, each with its slow steps',
    (dialect) => {
      const shipped = readShippedMigrations(dialect);
      expect(shipped[0]?.tag).toBe('0000_initial');
      expect(shipped[0]?.note).toBeUndefined();
      expect(shipped.map((m) => m.when)).toEqual([...shipped.map((m) => m.when)].sort((a, b) => a - b));
    },
  );

  it('says which SQLite migration rebuilds transactions', () => {
    const rebuild = readShippedMigrations('sqlite').find((m) => m.tag === '0006_records_set_aside');
    expect(rebuild?.note).toContain('rebuilds `transactions` (a copy of every row)');
  });

  it.each([
    [
      'CREATE TABLE `__new_t` (a int);\nINSERT INTO `__new_t`("a") SELECT "a" FROM `t`;',
      'rebuilds `t` (a copy of every row)',
    ],
    ['ALTER TABLE "t" ALTER COLUMN "a" SET DATA TYPE numeric;', "rewrites `t` (a column's type changed)"],
    ['CREATE INDEX "i" ON "job_runs" USING btree ("status");', 'builds an index of `job_runs`'],
    ['CREATE TABLE "n" ("a" int);\nCREATE INDEX "n_i" ON "n" ("a");', undefined],
    ['UPDATE "rewards" SET "x" = 1;', 'rewrites rows of `rewards`'],
  ])('%s → %s', (sql, note) => {
    expect(describeSlowSteps(sql)).toBe(note);
  });
});

describe('what a database lacks, and a newer one', () => {
  const shipped = [
    { tag: '0000_a', when: 100, note: undefined },
    { tag: '0001_b', when: 200, note: 'rebuilds `t` (a copy of every row)' },
  ];

  it('is every migration after its newest applied one', () => {
    expect(pendingMigrations(shipped, { lastAppliedMs: undefined, versions: [] }, '0.2.0', 'db')).toEqual(
      shipped,
    );
    expect(pendingMigrations(shipped, { lastAppliedMs: 100, versions: [] }, '0.2.0', 'db')).toEqual([
      shipped[1],
    ]);
    expect(pendingMigrations(shipped, { lastAppliedMs: 200, versions: ['0.2.0'] }, '0.2.0', 'db')).toEqual(
      [],
    );
  });

  it('refuses a database migrated by a newer version, naming both versions', () => {
    const refuse = () =>
      pendingMigrations(shipped, { lastAppliedMs: 300, versions: ['0.2.0', '0.10.0'] }, '0.2.0', 'db.sqlite');
    expect(refuse).toThrow(DatabaseNewerError);
    expect(refuse).toThrow(
      /db\.sqlite was migrated by glacier-collector 0\.10\.0 .*this is glacier-collector 0\.2\.0/,
    );
    expect(refuse).toThrow(/left as it is/);
    // Without the table of versions (its version recorded nothing): said as newer than this one.
    expect(() => pendingMigrations(shipped, { lastAppliedMs: 300, versions: [] }, '0.2.0', 'db')).toThrow(
      /migrated by a glacier-collector newer than 0\.2\.0/,
    );
  });

  it.each([
    ['0.2.0', '0.10.0', -1],
    ['1.0.0', '0.99.9', 1],
    ['0.2.0', '0.2.0', 0],
  ])('%s against %s', (a, b, sign) => {
    expect(Math.sign(compareVersions(a, b))).toBe(sign);
  });
});
