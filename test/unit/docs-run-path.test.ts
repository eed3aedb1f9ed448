import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { documentedPath } from '../../scripts/trace-run.js';

/**
 * docs/development.md's "path of one run" against the tree: every file it names exists, once, and
 * the count it gives is the list's. That the list is the one a real run executes is checked by
 * test/integration/trace-run.test.ts (the trace itself).
 */
const page = readFileSync(new URL('../../docs/development.md', import.meta.url), 'utf8');
const files = documentedPath(page);

describe('docs/development.md: the path of one run', () => {
  it('names each file once, every one of them in the tree', () => {
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((f) => !existsSync(new URL(`../../${f}`, import.meta.url)))).toEqual([]);
    expect(files.filter((f, i) => files.indexOf(f) !== i)).toEqual([]);
  });

  it('gives the count of the files it names', () => {
    const section = page.split(/^### The path of one run$/m)[1] ?? '';
    expect(/like a benchmark figure: (\d+) files\./.exec(section)?.[1]).toBe(String(files.length));
  });
});
