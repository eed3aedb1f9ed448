/** The budget `plan` and `config check` speak of: `--tier`'s, else the configured (effective) one. */
import type { Config } from '../config/index.js';
import { type TierName, tiers } from '../upstream/endpoints.js';

/** The budget a plan is compared with: `--tier`'s limits, else the configured (effective) budget. */
export interface PlanBudget {
  tier: TierName;
  perDay: number;
  perMinute: number;
  /** Where it comes from, in words: "--tier Pro", "tier Free", "budget.computeUnitsPerDay". */
  source: string;
}

/**
 * `--tier`'s limits when given; else the effective budget of the config (what the service's shared
 * budget enforces): the tier's limits, or the explicit budget.computeUnitsPerDay / PerMinute.
 */
export function planBudget(config: Config, tierName?: TierName): PlanBudget {
  if (tierName) return { tier: tierName, ...tiers[tierName], source: `--tier ${tierName}` };
  const b = config.budget;
  const tier = tiers[b.tier];
  const explicit = [
    ...(b.computeUnitsPerDay !== tier.perDay ? ['budget.computeUnitsPerDay'] : []),
    ...(b.computeUnitsPerMinute !== tier.perMinute ? ['budget.computeUnitsPerMinute'] : []),
  ];
  const tierWords = `tier ${b.tier}${config.apiKey || b.tier !== 'none' ? '' : ': no API key'}`;
  return {
    tier: b.tier,
    perDay: b.computeUnitsPerDay,
    perMinute: b.computeUnitsPerMinute,
    source: explicit.length > 0 ? `${explicit.join(' and ')}, else ${tierWords}` : tierWords,
  };
}
