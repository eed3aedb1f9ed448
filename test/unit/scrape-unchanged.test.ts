import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createScrape } from '../../src/metrics/scrape.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { createLogger } from '../../src/runtime/logger.js';

/** A scrape on its own registry, silent, at time 0. */
function testScrape() {
  const registry = new Registry();
  const log = createLogger({ level: 'silent', pretty: false });
  return { registry, scrape: createScrape({ registry, log, clock: createManualClock(0), seriesCap: 100 }) };
}

describe('a collector whose read sets what it set before', () => {
  it('exposes what each read set: a series gone is gone, a value changed is changed, an unlabelled one too', async () => {
    const { registry, scrape } = testScrape();
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

describe('a collector with a fingerprint', () => {
  it('is read only when its fingerprint changed, and again after a failed read', async () => {
    const { registry, scrape } = testScrape();
    let print = 'a';
    let value = 1;
    let fail = false;
    let reads = 0;
    scrape.define({
      name: 'printed',
      families: { value: { name: 'printed_value', help: 'value' } },
      fingerprint: () => print,
      read(g) {
        reads++;
        if (fail) throw new Error('store gone');
        g.value.set(value);
      },
    });
    const series = async () =>
      (await scrape.collect().then(() => registry.metrics()))
        .split('\n')
        .filter((l) => /^(printed_|glacier_scrape_collector_success)/.test(l));
    expect(await series()).toEqual([
      'glacier_scrape_collector_success{collector="printed"} 1',
      'printed_value 1',
    ]);
    value = 2; // the rows changed without their fingerprint: not read again (the fingerprint's contract)
    expect(await series()).toContain('printed_value 1');
    expect(reads).toBe(1);
    print = 'b';
    expect(await series()).toContain('printed_value 2');
    expect(reads).toBe(2);
    fail = true;
    print = 'c';
    expect(await series()).toEqual(['glacier_scrape_collector_success{collector="printed"} 0']);
    fail = false;
    // Same fingerprint as the failed read's: read again all the same, the failure left nothing.
    expect(await series()).toEqual([
      'glacier_scrape_collector_success{collector="printed"} 1',
      'printed_value 2',
    ]);
    expect(reads).toBe(4);
  });
});
