import { describe, expect, it } from 'vitest';
import { formatCount } from '../../src/terminal/units.js';

describe('formatCount', () => {
  it.each([
    0,
    7,
    999,
    1000,
    1234,
    12_345,
    123_456,
    1_234_567,
    10_000_000,
    -1,
    -1000,
    -1_234_567,
    2 ** 53 - 1,
    1.5,
    1234.5678,
    0.0001,
    -0.5,
    1e21,
    Number.NaN,
    Number.POSITIVE_INFINITY,
  ])('writes %d as toLocaleString("en") does', (n) => {
    expect(formatCount(n)).toBe(n.toLocaleString('en'));
  });
});
