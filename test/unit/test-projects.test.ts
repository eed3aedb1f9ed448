import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { postgresOnly, queuePostgresOnly, queueTests, sqliteOnly } from '../../vitest.config.js';

/**
 * vitest.config.ts alone decides which project runs a test file: a file does not skip itself, whole,
 * on the store or the queue it finds (a file run that only skips). A test of one store's variant of a
 * behaviour, beside the other's in a file both projects run, may still say which store it is for.
 */
const root = new URL('../..', import.meta.url).pathname;

function testFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? testFiles(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
  );
}

describe('the test projects', () => {
  it('no test file skips a whole suite on the store or queue it runs on: vitest.config.ts decides', () => {
    const selfSkipping = testFiles('test').filter((f) =>
      /^(describe|it|test)\.(skipIf|runIf)\(!?onPostgres(Queue)?\)/m.test(
        readFileSync(join(root, f), 'utf8'),
      ),
    );
    expect(selfSkipping).toEqual([]);
  });

  it('every file the lists name exists, and none is in two of them', () => {
    const listed = [...sqliteOnly, ...postgresOnly, ...queuePostgresOnly];
    expect(listed.filter((f) => !existsSync(join(root, f)))).toEqual([]);
    expect(queueTests.filter((f) => !existsSync(join(root, f)))).toEqual([]);
    expect(listed.filter((f, i) => listed.indexOf(f) !== i)).toEqual([]);
  });
});
