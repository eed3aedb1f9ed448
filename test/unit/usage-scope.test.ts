import { describe, expect, it } from 'vitest';
import { scopeOf } from '../../jobs/usage-metrics.definition.js';
import { usageSourceSchema } from '../../src/config/schema.js';

/** Every key a usage source's query can hold: each source's own, and `chainId` of one subnet chain. */
const keys = [
  ...new Set(['chainId', ...usageSourceSchema.options.flatMap((option) => Object.keys(option.shape))]),
];

describe('a usage series scope', () => {
  it('orders its keys as localeCompare did, so the scopes stored by earlier versions stay the same', () => {
    expect(keys.length).toBeGreaterThan(10);
    expect([...keys].sort((a, b) => (a < b ? -1 : 1))).toEqual([...keys].sort((a, b) => a.localeCompare(b)));
  });

  it('is key=value pairs in that order, the network canonical and the bypass token only as set', () => {
    expect(
      scopeOf({ requestPath: '/v1/x', groupBy: 'chainId', network: 'mainnet', rlBypassApiToken: 'secret' }),
    ).toBe('groupBy=chainId&network=mainnet&requestPath=/v1/x&rlBypassApiToken=set');
    expect(scopeOf({ timeInterval: 'hourly' })).toBe('all');
  });
});
