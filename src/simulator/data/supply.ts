/**
 * AVAX supply. The figures move every SUPPLY_UPDATE_MS of clock time (the real endpoint refreshes
 * every few minutes): counters (rewards, burns, fees) only grow, staked and locked amounts drift.
 * The same instant gives the same body; amounts are AVAX decimal strings with many fraction digits.
 */
import { formatScaled, hash32 } from '../ids.js';
import type { AvaxSupply } from '../types.js';

export const SUPPLY_UPDATE_MS = 5 * 60_000;
/** The example figures of the OpenAPI were published at this instant; the simulator grows from them. */
const ANCHOR_MS = Date.UTC(2025, 10, 5, 20, 15);
/** Amounts are computed in 10^-19 AVAX, the precision of the real figures. */
const SCALE = 19;
const ONE = 10n ** BigInt(SCALE);

function avax(text: string): bigint {
  const [whole = '0', fraction = ''] = text.split('.');
  return BigInt(whole) * ONE + BigInt(fraction.padEnd(SCALE, '0').slice(0, SCALE));
}

interface Counter {
  base: bigint;
  /** Growth per update, AVAX. */
  perUpdate: bigint;
}

const counters = {
  totalRewards: { base: avax('99186786.83258938583018127214'), perUpdate: avax('236.87') },
  totalPBurned: { base: avax('15039.56226661934233308491042'), perUpdate: avax('0.0472') },
  totalCBurned: { base: avax('4868917.656222642629429578983'), perUpdate: avax('1.93') },
  totalXBurned: { base: avax('45577.89911362119281041174838'), perUpdate: avax('0.0061') },
  l1ValidatorFees: { base: avax('6786.673898334'), perUpdate: avax('0.0394') },
} satisfies Record<string, Counter>;

const GENESIS_UNLOCK = avax('360000000');

export interface SupplySource {
  at(nowMs: number): AvaxSupply;
}

export function createSupplySource(deps: { seed: number }): SupplySource {
  const { seed } = deps;
  // Each seed publishes at its own second within the window: lastUpdated never ends in :00.000.
  const offsetMs = hash32(seed, 5) % 60_000;

  /** A counter that rises by perUpdate per update plus a share of one more: strictly increasing. */
  function counter(c: Counter, update: number, salt: number): bigint {
    const jitter = (c.perUpdate * BigInt(hash32(seed, update, salt))) >> 32n;
    return c.base + c.perUpdate * BigInt(update) + jitter;
  }

  /** A level that drifts around its base by up to `swing`, smoothly over weeks. */
  function level(base: bigint, swing: bigint, update: number, salt: number): bigint {
    const wave = Math.sin(update / 2016 + salt) * 1_000_000;
    const noise = BigInt(hash32(seed, update, salt)) % (swing / 1000n + 1n);
    return base + (swing * BigInt(Math.round(wave))) / 1_000_000n + noise;
  }

  return {
    at(nowMs) {
      const n = Math.floor((nowMs - offsetMs) / SUPPLY_UPDATE_MS);
      const update = n - Math.floor(ANCHOR_MS / SUPPLY_UPDATE_MS);
      const totalRewards = counter(counters.totalRewards, update, 1);
      const totalPBurned = counter(counters.totalPBurned, update, 2);
      const totalCBurned = counter(counters.totalCBurned, update, 3);
      const totalXBurned = counter(counters.totalXBurned, update, 4);
      const l1ValidatorFees = counter(counters.l1ValidatorFees, update, 5);
      const totalSupply = GENESIS_UNLOCK + totalRewards - totalPBurned - totalCBurned - totalXBurned;
      const totalStaked = level(avax('199605247.61112'), avax('2500000'), update, 6);
      const totalLocked = level(avax('36162978.31786130001530843447'), avax('400000'), update, 7);
      return {
        circulatingSupply: formatScaled(totalSupply, SCALE, 19),
        totalSupply: formatScaled(totalSupply, SCALE, 19),
        totalPBurned: formatScaled(totalPBurned, SCALE, 19),
        totalCBurned: formatScaled(totalCBurned, SCALE, 19),
        totalXBurned: formatScaled(totalXBurned, SCALE, 19),
        totalStaked: formatScaled(totalStaked, SCALE, 5),
        totalLocked: formatScaled(totalLocked, SCALE, 19),
        totalRewards: formatScaled(totalRewards, SCALE, 19),
        lastUpdated: new Date(n * SUPPLY_UPDATE_MS + offsetMs).toISOString(),
        genesisUnlock: formatScaled(GENESIS_UNLOCK, SCALE, 0),
        l1ValidatorFees: formatScaled(l1ValidatorFees, SCALE, 9),
      };
    },
  };
}
