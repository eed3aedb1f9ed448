import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isMap, isPair, isScalar, isSeq, type Node, parse, parseDocument } from 'yaml';
import { jobs } from '../../jobs/index.js';
import { buildPlan } from '../../src/commands/plan.js';
import { fileConfigSchema, loadConfig, STARTER_RETENTION } from '../../src/config/index.js';
import { documentedQueries } from '../support/docs-sql.js';
import { schemaKeys } from '../support/schema-keys.js';

/**
 * glacier-collector.example.yaml is what `config init` writes: "a commented example of every key".
 * Every key of the config schema is in it, set or commented out as `# key: value` (a key added to
 * the schema without its line here fails), and the starter keeps a bounded database within the
 * tier it names.
 */

const text = readFileSync(new URL('../../glacier-collector.example.yaml', import.meta.url), 'utf8');

/**
 * The example with its commented-out keys set: `# key: value` (a camelCase key, indented as it
 * would be, by a few spaces at most after the `# `) becomes `key: value`. Prose never starts a
 * comment line that way (a test below would fail on the document it makes).
 */
const uncommented = text.replace(/^( *)# ( {0,8}(?:- )?[a-z][A-Za-z0-9]*:(?: .*)?)$/gm, '$1$2');

/** Every key path of a YAML document, as schemaKeys names them (`jobs.exports.definitions[].name`). */
function keyPaths(node: Node | null | undefined, path = '', into = new Set<string>()): Set<string> {
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair) || !isScalar(pair.key)) continue;
      const key = path ? `${path}.${String(pair.key.value)}` : String(pair.key.value);
      into.add(key);
      keyPaths(pair.value as Node, key, into);
    }
  } else if (isSeq(node)) {
    for (const item of node.items) keyPaths(item as Node, `${path}[]`, into);
  }
  return into;
}

describe('job names and config sections', () => {
  it("a job's section is its name in camelCase (usage-metrics under jobs.usageMetrics), as the docs say", () => {
    const camel = (name: string) => name.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
    const scheduled = jobs.filter((j) => j.scheduled);
    expect(scheduled.map((j) => [j.name, j.configKey])).toEqual(
      scheduled.map((j) => [j.name, camel(j.name)]),
    );
  });
});

describe('glacier-collector.example.yaml', () => {
  // A key written twice (a window's variants, one commented out) is allowed here: the last wins.
  const all = parseDocument(uncommented, { uniqueKeys: false });

  it('mentions every key of the config schema, set or commented out', () => {
    expect(all.errors).toEqual([]);
    const present = keyPaths(all.contents);
    const missing = schemaKeys(fileConfigSchema)
      .map((k) => k.path)
      .filter((p) => !present.has(p));
    expect(missing).toEqual([]);
  });

  it('is a valid config as it is, and with every commented-out key set', () => {
    expect(() => loadConfig({ env: {}, cwd: '/nonexistent', file: parse(text) })).not.toThrow();
    expect(() => loadConfig({ env: {}, cwd: '/nonexistent', file: all.toJS() })).not.toThrow();
  });

  const config = loadConfig({ env: {}, cwd: '/nonexistent', file: parse(text) });

  it('keeps the starter retention: every table that grows without bound pruned', () => {
    expect(parse(text).retention).toEqual(STARTER_RETENTION);
    const plan = buildPlan(jobs, config);
    expect(plan.disk.tables.length).toBeGreaterThan(0);
    expect(plan.disk.tables.filter((t) => t.retentionDays === null).map((t) => t.table)).toEqual([]);
    expect(plan.disk.perDayAfterLevelling).toEqual({ steady: 0, worst: 0 });
  });

  it("the documented SQL filters on the starter's export names: a copied query finds its rows", () => {
    const names = (config.jobs.exports?.definitions ?? []).map((d) => d.name);
    const filtered = documentedQueries().flatMap((q) => [...q.sql.matchAll(/export_name\s*=\s*'([^']*)'/g)]);
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.map((m) => m[1]).filter((name) => !names.includes(name!))).toEqual([]);
  });

  it('fits the tier it names: plan warns of nothing without a key (tier none) nor with one (Free)', () => {
    expect(buildPlan(jobs, config).warnings).toEqual([]);
    const keyed = loadConfig({ env: { GLACIER_API_KEY: 'k' }, cwd: '/nonexistent', file: parse(text) });
    expect(keyed.budget.tier).toBe('Free');
    expect(buildPlan(jobs, keyed).warnings).toEqual([]);
  });
});
