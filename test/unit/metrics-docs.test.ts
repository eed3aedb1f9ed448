import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { jobs } from '../../jobs/index.js';
import { createMetrics } from '../../src/metrics/index.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { createLogger } from '../../src/runtime/logger.js';
import { everyJobConfig } from '../support/metrics-rig.js';
import { testStore } from '../support/store.js';

const doc = readFileSync('docs/metrics.md', 'utf8');

/** The rows `| \`name\` | type | labels | meaning |` of the page's metric tables. */
function documented(): Map<string, { type: string; labels: string[] }> {
  const rows = new Map<string, { type: string; labels: string[] }>();
  for (const line of doc.split('\n')) {
    const m = /^\|\s*`(glacier_[a-z0-9_]+)`\s*\|\s*(counter|gauge|histogram)\s*\|([^|]*)\|/.exec(line);
    if (!m) continue;
    if (rows.has(m[1]!)) throw new Error(`${m[1]} is documented twice`);
    const labels = m[3]!
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    rows.set(m[1]!, { type: m[2]!, labels: labels.sort() });
  }
  return rows;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe('docs/metrics.md', () => {
  it('documents every metric the code registers, with its type and labels, and nothing else', async () => {
    const db = await testStore();
    cleanups.push(db.cleanup);
    const metrics = createMetrics({
      jobs,
      store: db.store,
      config: everyJobConfig('/nonexistent/exports'),
      log: createLogger({ level: 'silent', pretty: false }),
      clock: createManualClock(0),
    });
    const inCode = new Map(
      (
        metrics.registry.getMetricsAsArray() as unknown as {
          name: string;
          type: string;
          labelNames?: string[];
        }[]
      ).map((m) => [m.name, { type: m.type, labels: [...(m.labelNames ?? [])].sort() }]),
    );
    const inDocs = documented();
    expect([...inDocs.keys()].sort()).toEqual([...inCode.keys()].sort());
    for (const [name, spec] of inCode) expect(inDocs.get(name), name).toEqual(spec);
  });

  it('lists every alert of deploy/prometheus/alerts.yml, and each has a unit test', () => {
    const rules = parseYaml(readFileSync('deploy/prometheus/alerts.yml', 'utf8')) as {
      groups: { rules: { alert: string }[] }[];
    };
    const tests = readFileSync('deploy/prometheus/alerts.test.yml', 'utf8');
    const alerts = rules.groups.flatMap((g) => g.rules.map((r) => r.alert));
    const inDocs = [...doc.matchAll(/^\|\s*`(Glacier[A-Za-z]+)`\s*\|/gm)].map((m) => m[1]);
    expect(inDocs.sort()).toEqual([...alerts].sort());
    for (const alert of alerts) expect(tests).toContain(`alertname: ${alert}`);
  });
});
