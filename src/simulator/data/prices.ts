/** A deterministic AVAX price history, for the `historicalPrice` of rewards. */
import type { Currency } from '../../upstream/endpoints.js';
import { hash32 } from '../ids.js';

/** Units of each currency per US dollar: fixed, plausible rates (the simulator has no FX market). */
const perUsd: Readonly<Record<Currency, number>> = {
  usd: 1,
  eur: 0.92,
  aud: 1.52,
  cad: 1.36,
  chf: 0.88,
  clp: 940,
  cny: 7.2,
  czk: 23,
  dkk: 6.9,
  gbp: 0.79,
  hkd: 7.8,
  huf: 360,
  jpy: 150,
  nzd: 1.65,
};

/** AVAX price on the UTC day of `timestampSec`, in `currency`, rounded to cents. */
export function avaxPrice(seed: number, timestampSec: number, currency: Currency): number {
  const day = Math.floor(timestampSec / 86_400);
  const wobble = (hash32(seed, day, 11) % 1000) / 1000;
  const usd = 28 + 14 * Math.sin(day / 57) + 5 * Math.sin(day / 13) + wobble;
  return Math.round(usd * perUsd[currency] * 100) / 100;
}
