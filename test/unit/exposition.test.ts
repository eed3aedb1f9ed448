import { Counter, type OpenMetricsContentType, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createRenderer } from '../../src/metrics/exposition.js';
import { createScrape } from '../../src/metrics/scrape.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { createLogger } from '../../src/runtime/logger.js';

/** prom-client's own render of the registry in a format, its counters' names restored after. */
async function promClientRender(registry: Registry, format: 'prometheus' | 'openmetrics'): Promise<string> {
  if (format === 'prometheus') return registry.metrics();
  const metrics = registry.getMetricsAsArray();
  const names = metrics.map((m) => m.name);
  const view = Registry.merge([registry]) as unknown as Registry<OpenMetricsContentType>;
  view.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  try {
    return await view.metrics();
  } finally {
    metrics.forEach((m, i) => {
      m.name = names[i]!;
    });
  }
}

describe('the scrape text', () => {
  it.each(['prometheus', 'openmetrics'] as const)(
    'is what prom-client renders (%s), kept or not, and follows what the collectors read',
    async (format) => {
      const registry = new Registry();
      const scrape = createScrape({
        registry,
        log: createLogger({ level: 'silent', pretty: false }),
        clock: createManualClock(0),
        seriesCap: 100,
      });
      const requests = new Counter({ name: 'test_requests_total', help: 'requests', registers: [registry] });
      let rows: [string, number][] = [
        ['a', 1],
        ['b"\\\n', 2],
      ];
      scrape.define({
        name: 'test',
        families: { rows: { name: 'test_rows', help: 'rows\nper name', labelNames: ['name'] } },
        read(g) {
          for (const [name, n] of rows) g.rows.set({ name }, n);
        },
      });
      const render = createRenderer(registry, scrape);
      for (const step of [
        () => undefined,
        () => requests.inc(),
        () => (rows = [['a', 3]]),
        () => undefined,
      ]) {
        step();
        const { body } = await render(format);
        // The collectors ran inside render(): prom-client renders the same gauges, duration included.
        expect(body).toBe(await promClientRender(registry, format));
        expect(registry.getMetricsAsArray().map((m) => m.name)).toContain('test_requests_total');
      }
      expect((await render(format)).body).toContain('test_rows{name="a"} 3');
      expect((await render(format)).body).not.toContain('test_rows{name="b');
    },
  );
});
