/**
 * The output formats of `report rewards` by name, with their line for `--help`. The CLI builds its
 * options from this list without loading the writers (rewards-formats.ts, which loads the CSV
 * library), so `--help` stays quick; rewards-formats.ts has one writer for each name here, which the
 * compiler checks.
 */
export const rewardsFormatHelp = {
  table: 'the rows, a subtotal per month and a total',
  csv: 'the rows only, one line per reward',
  json: 'your income rows (as --summary counts them), their totals and what was left out',
  koinly: "Koinly's Universal custom CSV import, rewards as income, pending ones left out",
  cointracking: "CoinTracking's CSV import, rewards as Staking income, pending ones left out",
} as const;

export type RewardsFormatName = keyof typeof rewardsFormatHelp;
export const rewardsFormatNames = Object.keys(rewardsFormatHelp) as RewardsFormatName[];

/** `--summary` periods (rewards-summary.ts). */
export const SUMMARY_PERIODS = ['year'] as const;
export type SummaryPeriod = (typeof SUMMARY_PERIODS)[number];
