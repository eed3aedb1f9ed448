/**
 * A release carries one version everywhere it is said: package.json and its lock (`--version`,
 * `glacier_build_info` read it), the image tag of the Kubernetes overlays and of the docs' example,
 * the CHANGELOG's newest heading, with what an upgrader must do.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageVersion } from '../../src/runtime/version.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const version = (JSON.parse(read('package.json')) as { version: string }).version;

describe('the release version', () => {
  it('is a minor version above 0.1.0, read by --version and glacier_build_info', () => {
    expect(version).toMatch(/^0\.(?:[2-9]|\d\d+)\.\d+$/);
    expect(packageVersion()).toBe(version);
    const lock = JSON.parse(read('package-lock.json')) as {
      version: string;
      packages: { '': { version: string } };
    };
    expect([lock.version, lock.packages[''].version]).toEqual([version, version]);
  });

  it.each([
    'deploy/kubernetes/overlays/single/kustomization.yaml',
    'deploy/kubernetes/overlays/scaled/kustomization.yaml',
    'docs/operations.md',
  ])('is the image tag of %s', (path) => {
    const tags = [...read(path).matchAll(/newTag: (\S+)/g)].map((m) => m[1]);
    expect(tags.length).toBeGreaterThan(0);
    expect(new Set(tags)).toEqual(new Set([version]));
  });

  it("heads the CHANGELOG, with what an upgrader of the previous version must do, BullMQ's keys included", () => {
    const changelog = read('CHANGELOG.md');
    const headings = [...changelog.matchAll(/^## \[([^\]]+)\]/gm)].map((m) => m[1]);
    expect(headings[0]).toBe(version);
    const section = changelog.split(/^## \[/m)[1]!;
    expect(section).toMatch(/^### Upgrading from 0\.1\.0$/m);
    for (const said of ['backup', 'migrate', 'BullMQ 5 → 6', 'NodeID-mWG9ZZ15qHfyv9Y872qp2ND2kSHYe5A6m']) {
      expect(section).toContain(said);
    }
  });

  it('docs/operations.md "Upgrades" sends to the CHANGELOG', () => {
    const upgrades = read('docs/operations.md')
      .split(/^## Upgrades$/m)[1]!
      .split(/^## /m)[0]!;
    expect(upgrades).toContain('](../CHANGELOG.md)');
  });
});
