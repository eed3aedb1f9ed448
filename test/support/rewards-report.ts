import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Collector } from './collector.js';
import { tempDir } from './tmp.js';

/**
 * For the rewards report tests: the CLI's environment, and expected amounts in BigInt alone
 * (independent of the report's big.js): nAVAX as AVAX, and nAVAX × price in cents rounded half to even.
 */

/** A config file with the rewards job of these subjects (usd), and the CLI environment reading it and the store. */
export function rewardsCliEnv(
  c: Collector,
  addresses: readonly string[],
  nodeIds: readonly string[],
): { env: Record<string, string>; cleanup: () => void } {
  const dir = tempDir('glacier-report-');
  const configPath = join(dir.dir, 'glacier-collector.json');
  writeFileSync(
    configPath,
    JSON.stringify({ jobs: { rewards: { schedule: '0 * * * *', addresses, nodeIds, currency: 'usd' } } }),
  );
  return { env: { ...c.dbEnv, GLACIER_CONFIG: configPath }, cleanup: dir.cleanup };
}

/** nAVAX (an integer string) as AVAX with 9 decimals. */
export function avax(nano: string | bigint): string {
  const n = BigInt(nano);
  return `${n / 1_000_000_000n}.${(n % 1_000_000_000n).toString().padStart(9, '0')}`;
}

/** nAVAX × price in cents, rounded half to even. */
export function cents(nano: string, price: string): bigint {
  const [whole, frac = ''] = price.split('.');
  const numerator = BigInt(nano) * BigInt(`${whole}${frac}`) * 100n;
  const denominator = 10n ** BigInt(9 + frac.length);
  const q = numerator / denominator;
  const twice = 2n * (numerator % denominator);
  return twice > denominator || (twice === denominator && q % 2n === 1n) ? q + 1n : q;
}

/** Cents as a decimal with two places. */
export const money = (c: bigint) => `${c / 100n}.${(c % 100n).toString().padStart(2, '0')}`;
