/**
 * `npm ci` on Node 20 prints no EBADENGINE: every package of the lockfile accepts the oldest Node the
 * project supports (package.json `engines`), and the Node 20 this machine runs.
 */
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const read = (file: string) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));
const manifest = read('package.json') as { engines: { node: string } };
const lock = read('package-lock.json') as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

describe('the lockfile and Node 20', () => {
  const oldest = semver.minVersion(manifest.engines.node)?.version ?? '';

  it('supports a Node 20', () => {
    expect(semver.major(oldest)).toBe(20);
  });

  it.each([oldest, '20.20.0', '22.12.0'])('has no package whose engines exclude Node %s', (node) => {
    const excluded = Object.entries(lock.packages)
      .map(([path, p]) => ({
        path,
        version: p.version,
        range: Array.isArray(p.engines) ? undefined : p.engines?.node,
      }))
      .filter((p) => p.range !== undefined && !semver.satisfies(node, p.range))
      .map((p) => `${p.path.replace(/^node_modules\//, '')}@${p.version}: node ${p.range}`);
    expect(excluded).toEqual([]);
  });
});
