import { describe, expect, it } from 'vitest';
import { failureReason } from '../../src/kernel/index.js';
import { capRows } from '../../src/metrics/cap.js';
import { decimalToNumber, unitsToNumber } from '../../src/metrics/decimal.js';
import { negotiate } from '../../src/metrics/exposition.js';
import { longestGapSeconds } from '../../src/metrics/schedule-gap.js';
import { readCron } from '../../src/queue/schedule.js';
import { UpstreamHttpError, UpstreamNetworkError, UpstreamResponseError } from '../../src/upstream/index.js';

describe('longestGapSeconds', () => {
  /** Brute force: walk every firing for `days` days from a Monday. */
  function walked(expression: string, days: number): number {
    const reading = readCron(expression);
    let at = reading.nextAfter(new Date(Date.UTC(2025, 0, 6)));
    const end = at.getTime() + days * 86_400_000;
    let longest = 0;
    while (at.getTime() < end) {
      const next = reading.nextAfter(at);
      longest = Math.max(longest, (next.getTime() - at.getTime()) / 1000);
      at = next;
    }
    return longest;
  }

  it.each([
    ['*/5 * * * *', 300, 2],
    ['* * * * *', 60, 1],
    ['0 9 * * 1-5', 3 * 86_400, 21],
    ['*/15 9-17 * * 1-5', 3 * 86_400 - 8 * 3600 - 45 * 60, 21],
    ['30 2,14 * * *', 12 * 3600, 3],
    ['*/10 * * * * *', 10, 1],
    ['0 0 L * *', 31 * 86_400, 400],
    ['0 3 1 */3 *', 92 * 86_400, 800],
  ])('%s waits at most %i s, as walking its firings says', (expression, expected, days) => {
    expect(longestGapSeconds(expression)).toBe(expected);
    expect(walked(expression, days)).toBe(expected);
  });

  it('has no interval for a schedule that fires on fewer than two days in four years', () => {
    expect(longestGapSeconds('0 0 29 2 *')).toBeUndefined();
  });
});

describe('capRows', () => {
  interface Row {
    unit: string;
    type: string;
    v: number;
  }
  /** `n` rows: units of two rows (types A and B). */
  const rows = (n: number): Row[] =>
    Array.from({ length: n }, (_, i) => ({ unit: `s${Math.floor(i / 2)}`, type: i % 2 ? 'A' : 'B', v: 1 }));
  const options = (cap: number) => ({
    cap,
    unitOf: (r: Row) => r.unit,
    foldKeyOf: (r: Row) => r.type,
    fold: (into: Row | undefined, r: Row): Row => ({ unit: 'other', type: r.type, v: (into?.v ?? 0) + r.v }),
  });

  it.each([
    [10, 10, 10, 0],
    [12, 10, 10, 2],
    [20, 11, 10, 6],
  ])('%i rows under a cap of %i give %i rows, %i units folded', (n, cap, length, folded) => {
    const result = capRows(rows(n), options(cap));
    expect(result.rows).toHaveLength(length);
    expect(result.foldedUnits).toBe(folded);
    expect(result.rows.reduce((s, r) => s + r.v, 0)).toBe(n);
    // Units are kept or folded whole.
    const kept = new Set(result.rows.filter((r) => r.unit !== 'other').map((r) => r.unit));
    for (const unit of kept) expect(result.rows.filter((r) => r.unit === unit)).toHaveLength(2);
  });
});

describe('negotiate', () => {
  it.each([
    [undefined, 'prometheus'],
    ['text/plain', 'prometheus'],
    ['*/*', 'prometheus'],
    ['application/openmetrics-text', 'openmetrics'],
    ['application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1', 'openmetrics'],
    ['text/plain;version=0.0.4,application/openmetrics-text;q=0.5', 'prometheus'],
    ['application/openmetrics-text;q=0', 'prometheus'],
  ] as const)('Accept %s → %s', (accept, format) => {
    expect(negotiate(accept)).toBe(format);
  });
});

describe('decimals as gauges', () => {
  it.each([
    ['0', 0],
    ['450000000.123456789', 450000000.12345678],
    ['720000000', 720000000],
    ['0.000000001', 1e-9],
  ])('%s → %d', (text, expected) => {
    expect(decimalToNumber(text)).toBe(expected);
  });

  it('reads smallest units exactly before the one rounding to a double', () => {
    expect(unitsToNumber(1n, 9)).toBe(1e-9);
    expect(unitsToNumber(123456789012345678n, 9)).toBe(Number('123456789.012345678'));
    expect(unitsToNumber(-5n, 9)).toBe(-5e-9);
    // 2^53 + 1 nAVAX is not a double; the decimal text rounds once, correctly.
    expect(unitsToNumber(9007199254740993n, 9)).toBe(Number('9007199.254740993'));
  });

  it('reads text that is not a number as NaN, never a throw (a scrape survives what is stored)', () => {
    expect(decimalToNumber('12,5')).toBeNaN();
    expect(decimalToNumber('')).toBeNaN();
  });
});

describe('failureReason', () => {
  const http = (status: number) =>
    new UpstreamHttpError({
      method: 'GET',
      path: '/v1/x',
      status,
      retryable: status >= 500 || status === 429,
    });
  it.each([
    [http(429), 'rate_limited'],
    [http(404), 'client_error'],
    [http(503), 'server_error'],
    [new UpstreamNetworkError({ method: 'GET', path: '/', attempts: 3, detail: 'ECONNRESET' }), 'network'],
    [
      new UpstreamResponseError({ method: 'GET', path: '/', status: 200, kind: 'shape' }),
      'malformed_response',
    ],
    [new Error('wrapped', { cause: http(500) }), 'server_error'],
    [Object.assign(new Error('aborted'), { name: 'AbortError' }), 'aborted'],
    [new Error('disk full'), 'other'],
    [undefined, 'other'],
  ])('%s → %s', (error, reason) => {
    expect(failureReason(error)).toBe(reason);
  });
});
