import Big from 'big.js';
import { stringify } from 'csv-stringify/sync';
import type { RewardsJobConfig } from '../config/index.js';
import {
  bareAddress,
  hasRewardsFor,
  listPriceCurrencies,
  listPricedRewards,
  type PricedReward,
  type Store,
} from '../store/index.js';
import { formatTable } from '../terminal/text-table.js';
import { canonicalNetwork, currencies } from '../upstream/endpoints.js';

/**
 * The rewards report (`report rewards`): one row per reward that ended in a range of UTC days, with
 * its amount in AVAX and its value in a currency, from the historical prices the rewards job stored.
 * Everything is exact decimal arithmetic (big.js on the stored decimal text): an amount is nAVAX
 * shifted by the asset's denomination, a value is amount × price rounded to cents, half to even.
 */

/** A bad request (dates, range, currency, address): the CLI prints it and exits with code 2. */
export class ReportError extends Error {
  override readonly name = 'ReportError';
}

export const REWARDS_CSV_HEADER = [
  'date',
  'address',
  'node_id',
  'reward_type',
  'amount_avax',
  'price',
  'currency',
  'value',
] as const;

export interface RewardsReportRequest {
  /** First UTC day, YYYY-MM-DD, included. */
  from: string;
  /** Last UTC day, YYYY-MM-DD, included. */
  to: string;
  /** Prices of this currency; default: the rewards job's configured currency (usd without one). */
  currency?: string | undefined;
  /** Only rewards of these addresses (`P-`/`X-` prefix optional) or node ids. */
  addresses?: readonly string[] | undefined;
}

export interface RewardsReportRow {
  /** UTC date of the reward's end time, YYYY-MM-DD. */
  date: string;
  /**
   * Whom the reward was collected for: the configured addresses among its owners (several, space
   * separated, when it belongs to more than one: the reward is still one row, counted once), else
   * the configured node id it was paid for, else (no longer configured) its owner addresses.
   */
  address: string;
  nodeId: string;
  rewardType: string;
  /** AVAX, exact, with the asset's decimals (9). */
  amount: string;
  /** Price of one AVAX at reward time in `currency`, as stored; undefined when none is stored. */
  price: string | undefined;
  currency: string;
  /** amount × price rounded to cents (half even); undefined without a price. */
  value: string | undefined;
  utxoId: string;
}

export interface RewardsTotals {
  rewards: number;
  /** Rewards without a price: in `amount`, not in `value`. */
  unpriced: number;
  amount: string;
  /** The sum of the rows' rounded values, so that the rows add up to it. */
  value: string;
}

export interface RewardsReport {
  network: string;
  currency: string;
  from: string;
  to: string;
  rows: RewardsReportRow[];
  months: { month: string; totals: RewardsTotals }[];
  total: RewardsTotals;
}

const DAY_MS = 86_400_000;

/** YYYY-MM-DD as a real calendar day, to Unix ms at 00:00 UTC. */
function parseDay(text: string, flag: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Number.NaN;
  if (!m || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text) {
    throw new ReportError(`${flag} "${text}": not a date; use YYYY-MM-DD, e.g. 2025-01-31`);
  }
  return ms;
}

/** The range as Unix ms at 00:00 UTC of each day; throws ReportError for a bad date or order. */
export function parseRange(from: string, to: string): { fromMs: number; toMs: number } {
  const fromMs = parseDay(from, '--from');
  const toMs = parseDay(to, '--to');
  if (toMs < fromMs) throw new ReportError(`--to ${to} is before --from ${from}`);
  return { fromMs, toMs };
}

async function pickCurrency(
  store: Store,
  network: string,
  requested: string | undefined,
  job: RewardsJobConfig | undefined,
): Promise<string> {
  const currency = (requested ?? job?.currency ?? 'usd').toLowerCase();
  if (!(currencies as readonly string[]).includes(currency)) {
    throw new ReportError(
      `--currency "${requested}": not a currency the API prices in; use one of ${currencies.join(', ')}`,
    );
  }
  const collected = await listPriceCurrencies(store, network);
  if (!collected.includes(currency)) {
    throw new ReportError(
      collected.length
        ? `no ${currency} prices collected on ${network}; prices were collected in: ${collected.join(', ')} (set jobs.rewards.currency to ${currency} and run the rewards job to collect them)`
        : `no reward prices collected on ${network} yet: run the rewards job first (the API prices a reward once it is older than 24 h)`,
    );
  }
  return currency;
}

/** The rewards the report asked for by `--address`, checked against what was collected. */
async function pickSubjects(
  store: Store,
  network: string,
  requested: readonly string[] | undefined,
  job: RewardsJobConfig | undefined,
): Promise<Set<string> | undefined> {
  if (!requested?.length) return undefined;
  const subjects = new Set(requested.map(bareAddress));
  const configured = [...(job?.addresses.map(bareAddress) ?? []), ...(job?.nodeIds ?? [])];
  for (const subject of subjects) {
    if (!configured.includes(subject) && !(await hasRewardsFor(store, network, subject))) {
      throw new ReportError(
        `--address "${subject}": no rewards collected for it on ${network}; ${
          configured.length ? `configured: ${configured.join(', ')}` : 'jobs.rewards is not configured'
        }`,
      );
    }
  }
  return subjects;
}

function collectedFor(r: PricedReward, job: RewardsJobConfig | undefined): string {
  const configured = new Set(job?.addresses.map(bareAddress) ?? []);
  const owned = r.addresses.filter((a) => configured.has(a));
  if (owned.length) return owned.join(' ');
  if (job?.nodeIds.includes(r.nodeId)) return r.nodeId;
  return r.addresses.join(' ') || r.nodeId;
}

function totalsOf(rows: readonly RewardsReportRow[]): RewardsTotals {
  let amount = new Big(0);
  let value = new Big(0);
  let unpriced = 0;
  for (const row of rows) {
    amount = amount.plus(row.amount);
    if (row.value === undefined) unpriced++;
    else value = value.plus(row.value);
  }
  return { rewards: rows.length, unpriced, amount: amount.toFixed(9), value: value.toFixed(2) };
}

export async function buildRewardsReport(
  store: Store,
  job: RewardsJobConfig | undefined,
  request: RewardsReportRequest,
): Promise<RewardsReport> {
  const { fromMs, toMs } = parseRange(request.from, request.to);
  const network = canonicalNetwork(job?.network ?? 'mainnet');
  const currency = await pickCurrency(store, network, request.currency, job);
  const subjects = await pickSubjects(store, network, request.addresses, job);
  // Both days are whole UTC days: [from 00:00, to + 1 day 00:00).
  const rewards = await listPricedRewards(store, network, currency, fromMs / 1000, (toMs + DAY_MS) / 1000);
  const rows = rewards
    .filter((r) => !subjects || subjects.has(r.nodeId) || r.addresses.some((a) => subjects.has(a)))
    .map((r): RewardsReportRow => {
      const amount = new Big(`${r.amount}e-${r.assetDenomination}`);
      return {
        date: new Date(r.endTimestamp * 1000).toISOString().slice(0, 10),
        address: collectedFor(r, job),
        nodeId: r.nodeId,
        rewardType: r.rewardType,
        amount: amount.toFixed(r.assetDenomination),
        price: r.price ?? undefined,
        currency,
        value: r.price === null ? undefined : amount.times(r.price).round(2, Big.roundHalfEven).toFixed(2),
        utxoId: r.utxoId,
      };
    });
  const months = [...new Set(rows.map((r) => r.date.slice(0, 7)))].map((month) => ({
    month,
    totals: totalsOf(rows.filter((r) => r.date.startsWith(month))),
  }));
  return { network, currency, from: request.from, to: request.to, rows, months, total: totalsOf(rows) };
}

/** A row's cells in header order; a missing price or value is an empty cell, never 0. */
function cells(r: RewardsReportRow): string[] {
  return [r.date, r.address, r.nodeId, r.rewardType, r.amount, r.price ?? '', r.currency, r.value ?? ''];
}

/** CSV: the header and one line per reward; no totals (a spreadsheet sums them). */
export function formatRewardsCsv(report: RewardsReport): string {
  return stringify([[...REWARDS_CSV_HEADER], ...report.rows.map(cells)]);
}

/** The table: rows, a subtotal after each month, and the grand total. */
export function formatRewardsTable(report: RewardsReport): string {
  const lines: string[][] = [];
  const rules: number[] = [];
  const totalRow = (label: string, t: RewardsTotals) => [
    label,
    `${t.rewards} reward${t.rewards === 1 ? '' : 's'}${t.unpriced ? `, ${t.unpriced} without price` : ''}`,
    '',
    '',
    t.amount,
    '',
    report.currency,
    t.value,
  ];
  for (const { month, totals } of report.months) {
    for (const r of report.rows.filter((row) => row.date.startsWith(month))) {
      lines.push(cells(r));
    }
    rules.push(lines.length);
    lines.push(totalRow(`${month} subtotal`, totals));
  }
  rules.push(lines.length);
  lines.push(totalRow('total', report.total));
  const title = `Rewards on ${report.network} that ended from ${report.from} to ${report.to} (UTC days, both included), valued in ${report.currency}`;
  return `${title}\n\n${formatTable([...REWARDS_CSV_HEADER], lines, { right: [4, 5, 7], rulesBefore: rules })}\n`;
}

/** The stderr warning about rewards without a price, or undefined when every reward has one. */
export function describeUnpriced(report: RewardsReport, limit = 20): string | undefined {
  const unpriced = report.rows.filter((r) => r.value === undefined);
  if (!unpriced.length) return undefined;
  const listed = unpriced
    .slice(0, limit)
    .map((r) => `  ${r.date} ${r.rewardType} ${r.address} (utxo ${r.utxoId})`);
  if (unpriced.length > limit) listed.push(`  … and ${unpriced.length - limit} more`);
  return [
    `warning: ${unpriced.length} reward(s) have no ${report.currency} price stored: their price and value are empty and the totals' values leave them out.`,
    'The API prices a reward once it is older than 24 h, and the next rewards run stores it.',
    ...listed,
  ].join('\n');
}
