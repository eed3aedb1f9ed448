import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createScrape } from '../../src/metrics/scrape.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { createLogger } from '../../src/runtime/logger.js';

describe('a collector whose read sets what it set before', () => {
  it('exposes what each read set: a series gone is gone, a value changed is changed, an unlabelled one too', async () => {
    const registry = new Registry();
    const scrape = createScrape({
      registry,
      log: createLogger({ level: 'silent', pretty: false }),
      clock: createManualClock(0),
      seriesCap: 100,
    });
    let rows: [string, number][] = [
      ['a', 1],
      ['b', 2],
    ];
    let total: number | undefined = 3;
    scrape.define({
      name: 'test',
      families: {
        rows: { name: 'test_rows', help: 'rows', labelNames: ['name'] },
        total: { name: 'test_total', help: 'total' },
      },
      read(g) {
        for (const [name, n] of rows) g.rows.set({ name }, n);
        if (total !== undefined) g.total.set(total);
      },
    });
    // A scrape: the collectors read, then the registry is rendered (createRenderer does both).
    const series = async () =>
      (await scrape.collect().then(() => registry.metrics()))
        .split('\n')
        .filter((l) => l.startsWith('test_'))
        .sort();
    expect(await series()).toEqual(['test_rows{name="a"} 1', 'test_rows{name="b"} 2', 'test_total 3']);
    expect(await series()).toEqual(['test_rows{name="a"} 1', 'test_rows{name="b"} 2', 'test_total 3']);
    rows = [['a', 5]];
    expect(await series()).toEqual(['test_rows{name="a"} 5', 'test_total 3']);
    total = undefined;
    expect(await series()).toEqual(['test_rows{name="a"} 5']);
    rows = [
      ['a', 5],
      ['c', 0],
    ];
    total = 4;
    expect(await series()).toEqual(['test_rows{name="a"} 5', 'test_rows{name="c"} 0', 'test_total 4']);
  });
});
