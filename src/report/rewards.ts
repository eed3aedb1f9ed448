import Big from 'big.js';
import type { RewardsJobConfig } from '../config/index.js';
import { excerpt } from '../escape/excerpt.js';
import { forTerminal } from '../escape/terminal.js';
import {
  autoRenewedOwners,
  hasRewardsFor,
  listCycles,
  listPriceCurrencies,
  listPricedRewards,
  type PricedReward,
  type Store,
  type StoredCycle,
} from '../store/index.js';
import { bareAddress, canonicalNetwork, currencies } from '../upstream/endpoints.js';
import {
  type CompoundedIncome,
  compoundedOf,
  DEFAULT_COMPOUNDED_INCOME,
  finalCycles,
  nanoToAvax,
  parseCompounded,
  type RowKind,
  restakedPart,
} from './rewards-compounded.js';
import {
  ownerOf,
  parseRewardTypes,
  type RewardOwner,
  type Subjects,
  subjectsOf,
} from './rewards-subjects.js';

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

export interface RewardsReportRequest {
  /** First UTC day, YYYY-MM-DD, included. */
  from: string;
  /** Last UTC day, YYYY-MM-DD, included. */
  to: string;
  /** Prices of this currency; default: the rewards job's configured currency (usd without one). */
  currency?: string | undefined;
  /** Only rewards of these addresses (`P-`/`X-` prefix optional) or node ids, configured or not. */
  addresses?: readonly string[] | undefined;
  /**
   * `records` (csv, table): every reward of the subjects; `income` (the tax-tool imports, the
   * summary, json): only the user's own income, the delegators' rewards of a node left out and said.
   */
  view?: 'records' | 'income' | undefined;
  /** Only rewards of these types (`--reward-type`); unknown ones are a ReportError. */
  rewardTypes?: readonly string[] | undefined;
  /** The income view keeps a node's delegators' rewards too (`--include-delegators`). */
  includeDelegators?: boolean | undefined;
  /** Rewards of subjects no longer configured stay in (`--all-subjects`). */
  allSubjects?: boolean | undefined;
  /**
   * When auto-renewed staking's compounded rewards are income (`--compounded`, rewards-compounded.ts);
   * default: `jobs.rewards.compoundedIncome`, else at-compounding.
   */
  compounded?: string | undefined;
}

/**
 * Why a reward has a value or not: `priced`; `pending` when the rewards job last read it before it
 * was 24 h old (the API prices a reward only then: the next run stores its price); `unpriced` when
 * it was read older than that and still came without a price in the currency (the API has none, or
 * it was collected in other currencies only).
 */
export type PriceStatus = 'priced' | 'pending' | 'unpriced';

/** The API prices a reward once its end time is this old. */
const PRICE_DELAY_SECONDS = 86_400;

export interface RewardsReportRow {
  /**
   * `paid`: a reward UTXO; `compounded`: a settled cycle's compounded part (no UTXO, at-compounding);
   * `restakedReturn`: the part of a position's final reward that re-pays what was compounded before
   * (at-compounding): shown, never counted in the totals or the income imports.
   */
  kind: RowKind;
  /** UTC date of the reward's end time, YYYY-MM-DD. */
  date: string;
  /** The reward's end time, Unix seconds. */
  endTimestamp: number;
  /**
   * Whom the reward was collected for: the configured addresses among its owners (several, space
   * separated, when it belongs to more than one: the reward is still one row, counted once), else
   * the configured node id it was paid for, else (`--all-subjects`, no longer configured) its owner
   * addresses.
   */
  address: string;
  /** Whose reward it is (rewards-subjects.ts): a configured address's, the node operator's, a delegator's. */
  owner: RewardOwner;
  nodeId: string;
  rewardType: string;
  /** `fixed`, or `autoRenewed` for a cycle of an auto-renewed validation (ACP-236). */
  stakingType: string;
  /** AVAX, exact, with the asset's decimals (9). */
  amount: string;
  /** Price of one AVAX at reward time in `currency`, as stored; undefined when none is stored. */
  price: string | undefined;
  currency: string;
  /** amount × price rounded to cents (half even); undefined without a price. */
  value: string | undefined;
  priceStatus: PriceStatus;
  utxoId: string;
  rewardTxHash: string;
  outputIndex: number;
}

export interface RewardsTotals {
  rewards: number;
  /** Rewards without a price (pending ones included): in `amount`, not in `value`. */
  unpriced: number;
  /** Of those, the rewards younger than 24 h when last read: their price is yet to come. */
  pending: number;
  amount: string;
  /** The sum of the rows' rounded values, so that the rows add up to it. */
  value: string;
}

/** A stored reward the report cannot compute with (a value an earlier version or a hostile upstream left). */
export interface InvalidReward {
  utxoId: string;
  rewardTxHash: string;
  /** What is wrong, with the stored value (escaped when printed). */
  reason: string;
}

/**
 * Rewards of the range the report left out, one entry per kind: a node's rewards paid to its
 * delegators (per reward type; the income view without `--include-delegators`), or rewards of
 * subjects no longer configured (`unconfigured`, with their node ids).
 */
export interface LeftOutRewards {
  kind: 'delegator' | 'unconfigured';
  /** For `delegator`: the reward type. */
  rewardType?: string;
  totals: RewardsTotals;
  /** For `unconfigured`: the node ids the rewards were paid for, with how many each, most first. */
  nodeIds?: { nodeId: string; rewards: number }[];
}

export interface RewardsReport {
  view: 'records' | 'income';
  /** When compounded rewards counted as income. */
  compounded: CompoundedIncome;
  network: string;
  currency: string;
  from: string;
  to: string;
  rows: RewardsReportRow[];
  /** Rewards of the range left out of `rows` and the totals: their stored values are invalid. */
  invalid: InvalidReward[];
  /** Rewards of the range left out of `rows` and the totals by the subjects and the view. */
  leftOut: LeftOutRewards[];
  months: { month: string; totals: RewardsTotals }[];
  total: RewardsTotals;
}

const DAY_MS = 86_400_000;

/** YYYY-MM-DD as a real calendar day, to Unix ms at 00:00 UTC. */
export function parseDay(text: string, flag: string): number {
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
        `--address/--node-id "${forTerminal(subject)}": no rewards collected for it on ${network}; ${
          configured.length ? `configured: ${configured.join(', ')}` : 'jobs.rewards is not configured'
        }`,
      );
    }
  }
  return subjects;
}

function collectedFor(
  r: Pick<PricedReward, 'addresses' | 'nodeId'>,
  owner: RewardOwner,
  subjects: Subjects,
): string {
  if (owner === 'address') return r.addresses.filter((a) => subjects.addresses.has(a)).join(' ');
  if (subjects.nodeIds.has(r.nodeId)) return r.nodeId;
  return r.addresses.join(' ') || r.nodeId;
}

export function totalsOf(rows: readonly RewardsReportRow[]): RewardsTotals {
  let amount = new Big(0);
  let value = new Big(0);
  let unpriced = 0;
  let pending = 0;
  let counted = 0;
  for (const row of rows) {
    // Counted once already, when it compounded.
    if (row.kind === 'restakedReturn') continue;
    counted++;
    amount = amount.plus(row.amount);
    if (row.priceStatus === 'pending') pending++;
    if (row.value === undefined) unpriced++;
    else value = value.plus(row.value);
  }
  return { rewards: counted, unpriced, pending, amount: amount.toFixed(9), value: value.toFixed(2) };
}

export async function buildRewardsReport(
  store: Store,
  job: RewardsJobConfig | undefined,
  request: RewardsReportRequest,
): Promise<RewardsReport> {
  const { fromMs, toMs } = parseRange(request.from, request.to);
  const types = parseRewardTypes(request.rewardTypes);
  if (!types.ok) throw new ReportError(forTerminal(types.message));
  const view = request.view ?? 'records';
  const compounded = parseCompounded(request.compounded, job?.compoundedIncome ?? DEFAULT_COMPOUNDED_INCOME);
  if (!compounded.ok) throw new ReportError(forTerminal(compounded.message));
  const mode = compounded.mode;
  const network = canonicalNetwork(job?.network ?? 'mainnet');
  const currency = await pickCurrency(store, network, request.currency, job);
  const named = await pickSubjects(store, network, request.addresses, job);
  // Named subjects narrow the report to their rewards and count as configured (one no longer
  // configured comes back that way); without them, the config's, and all with --all-subjects.
  const configured = subjectsOf(job, bareAddress);
  const subjects: Subjects = {
    addresses: new Set([
      ...configured.addresses,
      ...[...(named ?? [])].filter((s) => !s.startsWith('NodeID-')),
    ]),
    nodeIds: new Set([...configured.nodeIds, ...[...(named ?? [])].filter((s) => s.startsWith('NodeID-'))]),
    all: !named && request.allSubjects === true,
  };
  // Both days are whole UTC days: [from 00:00, to + 1 day 00:00).
  const untilSec = (toMs + DAY_MS) / 1000;
  const rewards = await listPricedRewards(store, network, currency, fromMs / 1000, untilSec);
  // Auto-renewed staking: every cycle up to the range's end (a final reward re-pays earlier ones).
  const cycles = await listCycles(store, network, untilSec);
  const finals = mode === 'at-compounding' ? finalCycles(cycles) : new Map();
  const invalid: InvalidReward[] = [];
  const rows: RewardsReportRow[] = [];
  const delegators = new Map<string, RewardsReportRow[]>();
  const unconfigured: RewardsReportRow[] = [];
  const place = (row: RewardsReportRow, owner: RewardOwner | undefined, addresses: readonly string[]) => {
    if (owner === undefined) {
      row.address = addresses.join(' ') || row.nodeId;
      unconfigured.push(row);
    } else if (owner === 'delegator' && view === 'income' && !request.includeDelegators) {
      const list = delegators.get(row.rewardType) ?? [];
      list.push(row);
      delegators.set(row.rewardType, list);
    } else {
      rows.push(row);
    }
  };
  for (const r of rewards) {
    if (types.types && !types.types.has(r.rewardType)) continue;
    // A subject named on the command line narrows the report: the others are not "left out".
    if (named && !named.has(r.nodeId) && !r.addresses.some((a) => named.has(a))) continue;
    const owner = ownerOf(r, subjects);
    const problem = invalidReward(r);
    if (problem) {
      invalid.push({ utxoId: r.utxoId, rewardTxHash: r.rewardTxHash, reason: problem });
      continue;
    }
    const row = reportRow(r, owner ?? 'delegator', owner ? collectedFor(r, owner, subjects) : '', currency);
    const restaked = restakedPart(r, finals);
    if (restaked > 0n) {
      // at-compounding: the final reward's part compounded before was income then; shown apart.
      const back = { ...row, kind: 'restakedReturn' as const };
      setAmount(back, restaked);
      setAmount(row, BigInt(r.amount) - restaked);
      // An abort's validation reward is all return (its own cycle's reward forfeited): no income row.
      if (restaked < BigInt(r.amount)) place(row, owner, r.addresses);
      place(back, owner, r.addresses);
    } else {
      place(row, owner, r.addresses);
    }
  }
  if (mode === 'at-compounding' && cycles.length > 0) {
    // Whose a cycle is, when its node id does not say: the owner addresses of its position's rewards.
    const needOwners =
      subjects.addresses.size > 0 ||
      named !== undefined ||
      cycles.some((c) => !subjects.nodeIds.has(c.nodeId));
    const owners = needOwners ? await autoRenewedOwners(store, network) : new Map<string, string[]>();
    // The compounded part's price: the reward paid by the same transaction (the withdrawn part).
    const paid = new Map<string, PricedReward>();
    for (const r of rewards) if (r.stakingType === 'autoRenewed') paid.set(r.rewardTxHash, r);
    const operator = !types.types || types.types.has('VALIDATOR') || types.types.has('VALIDATOR_FEE');
    const added: RewardsReportRow[] = [];
    const before = rows.length;
    for (const c of cycles) {
      if (!operator || c.endTimestamp < fromMs / 1000) continue;
      const nano = compoundedOf(c);
      if (nano === 0n) continue;
      const addresses = owners.get(c.stakingTxHash) ?? [];
      if (named && !named.has(c.nodeId) && !addresses.some((a) => named.has(a))) continue;
      const subject = { addresses, nodeId: c.nodeId, rewardType: 'VALIDATOR' };
      const owner = ownerOf(subject, subjects);
      const row = compoundedRow(c, nano, paid.get(c.rewardTxHash), currency);
      row.owner = owner ?? 'node';
      row.address = owner ? collectedFor(subject, owner, subjects) : '';
      place(row, owner, addresses);
    }
    // In time order with the paid rewards: both lists are (cycles by end time), merged in one pass.
    added.push(...rows.splice(before));
    if (added.length > 0) {
      const merged = mergeByEnd(rows, added);
      rows.length = 0;
      for (const row of merged) rows.push(row);
    }
  }
  const leftOut: LeftOutRewards[] = [...delegators.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([rewardType, list]) => ({ kind: 'delegator', rewardType, totals: totalsOf(list) }));
  if (unconfigured.length) {
    const counts = new Map<string, number>();
    for (const row of unconfigured) counts.set(row.nodeId, (counts.get(row.nodeId) ?? 0) + 1);
    leftOut.push({
      kind: 'unconfigured',
      totals: totalsOf(unconfigured),
      nodeIds: [...counts.entries()]
        .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
        .map(([nodeId, n]) => ({ nodeId, rewards: n })),
    });
  }
  const months = [...new Set(rows.map((r) => r.date.slice(0, 7)))].map((month) => ({
    month,
    totals: totalsOf(rows.filter((r) => r.date.startsWith(month))),
  }));
  return {
    view,
    compounded: mode,
    network,
    currency,
    from: request.from,
    to: request.to,
    rows,
    invalid,
    leftOut,
    months,
    total: totalsOf(rows),
  };
}

/** A row's amount (and value, at its price) set to `nano` nAVAX. */
function setAmount(row: RewardsReportRow, nano: bigint): void {
  row.amount = nanoToAvax(nano);
  row.value =
    row.price === undefined
      ? undefined
      : new Big(row.amount).times(row.price).round(2, Big.roundHalfEven).toFixed(2);
}

/** Two lists in end-time order as one (a stable merge: `a` first on a tie). */
function mergeByEnd(a: readonly RewardsReportRow[], b: readonly RewardsReportRow[]): RewardsReportRow[] {
  const out: RewardsReportRow[] = [];
  let j = 0;
  for (const row of a) {
    while (j < b.length && b[j]!.endTimestamp < row.endTimestamp) out.push(b[j++]!);
    out.push(row);
  }
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/** A settled cycle's compounded part as a row, priced as the reward `paidBy` its reward tx (if any). */
function compoundedRow(
  c: StoredCycle,
  nano: bigint,
  paidBy: PricedReward | undefined,
  currency: string,
): RewardsReportRow {
  const readAt = paidBy ? Date.parse(paidBy.lastSeenAt) / 1000 : 0;
  const row: RewardsReportRow = {
    kind: 'compounded',
    date: new Date(c.endTimestamp * 1000).toISOString().slice(0, 10),
    endTimestamp: c.endTimestamp,
    address: '',
    owner: 'node',
    nodeId: c.nodeId,
    rewardType: 'VALIDATOR',
    stakingType: 'autoRenewed',
    amount: '',
    price: paidBy?.price ?? undefined,
    currency,
    value: undefined,
    // Priced as its withdrawn part; without one (everything compounded), named as unpriced.
    priceStatus:
      paidBy?.price != null
        ? 'priced'
        : paidBy && readAt < paidBy.endTimestamp + PRICE_DELAY_SECONDS
          ? 'pending'
          : 'unpriced',
    utxoId: '',
    rewardTxHash: c.rewardTxHash,
    outputIndex: 0,
  };
  setAmount(row, nano);
  return row;
}

function reportRow(r: PricedReward, owner: RewardOwner, address: string, currency: string): RewardsReportRow {
  const amount = new Big(`${r.amount}e-${r.assetDenomination}`);
  const readAt = Date.parse(r.lastSeenAt) / 1000;
  return {
    kind: 'paid',
    date: new Date(r.endTimestamp * 1000).toISOString().slice(0, 10),
    endTimestamp: r.endTimestamp,
    address,
    owner,
    nodeId: r.nodeId,
    rewardType: r.rewardType,
    stakingType: r.stakingType,
    amount: amount.toFixed(r.assetDenomination),
    price: r.price ?? undefined,
    currency,
    value: r.price === null ? undefined : amount.times(r.price).round(2, Big.roundHalfEven).toFixed(2),
    priceStatus:
      r.price !== null ? 'priced' : readAt < r.endTimestamp + PRICE_DELAY_SECONDS ? 'pending' : 'unpriced',
    utxoId: r.utxoId,
    rewardTxHash: r.rewardTxHash,
    outputIndex: r.outputIndex,
  };
}

/** The report computes with these; a reward stored with other values is left out and named. */
const AMOUNT = /^\d{1,78}$/;
const PRICE = /^\d{1,100}(\.\d{1,100})?$/;

/** Why a stored reward cannot be reported, or undefined when it can. */
function invalidReward(r: PricedReward): string | undefined {
  const d = Number(r.assetDenomination);
  if (!Number.isInteger(d) || d < 0 || d > 30)
    return `denomination ${String(r.assetDenomination)} is not an integer 0..30`;
  if (!AMOUNT.test(String(r.amount)))
    return `amount ${excerpt(String(r.amount), 40)} is not a decimal integer of at most 78 digits`;
  if (r.price !== null && !PRICE.test(String(r.price)))
    return `price ${excerpt(String(r.price), 40)} is not a decimal number`;
  const end = Number(r.endTimestamp);
  if (!Number.isSafeInteger(end) || Number.isNaN(new Date(end * 1000).getTime())) {
    return `end time ${String(r.endTimestamp)} is no time`;
  }
  return undefined;
}

/**
 * The standard-error lines about rewards of the range left out because a stored value is invalid,
 * or undefined when there are none.
 */
export function describeInvalid(report: RewardsReport, limit = 20): string | undefined {
  if (report.invalid.length === 0) return undefined;
  const listed = report.invalid
    .slice(0, limit)
    .map(
      (r) =>
        `  utxo ${forTerminal(r.utxoId)} (paid by ${forTerminal(r.rewardTxHash)}): ${forTerminal(r.reason)}`,
    );
  if (report.invalid.length > limit) listed.push(`  … and ${report.invalid.length - limit} more`);
  return [
    `warning: ${report.invalid.length} reward(s) of the range left out of this report and its totals: a stored value is invalid (set aside by later versions; see docs/operations.md, "A record was set aside").`,
    ...listed,
  ].join('\n');
}

/**
 * The standard-error lines about rewards the report left out, one per kind (count, AVAX, value),
 * or undefined when it left none out.
 */
export function describeLeftOut(report: RewardsReport, limit = 10): string | undefined {
  if (report.leftOut.length === 0) return undefined;
  const sums = (t: RewardsTotals) =>
    `${t.amount} AVAX, ${t.value} ${report.currency}${t.unpriced ? ` (${t.unpriced} without a price, not in the value)` : ''}`;
  return report.leftOut
    .map((l) => {
      if (l.kind === 'delegator') {
        return `note: left out: ${l.totals.rewards} ${forTerminal(l.rewardType ?? '')} reward(s) of the configured node id(s) paid to their delegators, not to a configured address: ${sums(l.totals)}; --include-delegators puts them back.`;
      }
      const ids = (l.nodeIds ?? []).slice(0, limit).map((n) => `${forTerminal(n.nodeId)} (${n.rewards})`);
      if ((l.nodeIds?.length ?? 0) > limit) ids.push(`… and ${(l.nodeIds?.length ?? 0) - limit} more`);
      return `note: left out: ${l.totals.rewards} reward(s) of subjects no longer configured (paid for node id(s) ${ids.join(', ')}, or to their owner addresses): ${sums(l.totals)}; name them with --address or --node-id, or --all-subjects puts them back.`;
    })
    .join('\n');
}

/**
 * The standard-error line about returns of restaked rewards (at-compounding: the part of a final
 * reward compounded before), or undefined when there are none. `leftOutOfFile`: an income import.
 */
export function describeRestaked(report: RewardsReport, leftOutOfFile: boolean): string | undefined {
  const back = report.rows.filter((r) => r.kind === 'restakedReturn');
  if (back.length === 0) return undefined;
  const amount = back.reduce((sum, r) => sum.plus(r.amount), new Big(0)).toFixed(9);
  return `note: ${back.length} final reward(s) of auto-renewed validations re-pay ${amount} AVAX compounded before: income when it compounded (--compounded at-compounding), so ${leftOutOfFile ? 'left out of this file' : 'shown as "return of restaked rewards" and not in the totals'}; --compounded at-withdrawal counts it when paid instead.`;
}

function listRewards(rows: readonly RewardsReportRow[], limit: number): string[] {
  const listed = rows
    .slice(0, limit)
    .map(
      (r) =>
        `  ${r.date} ${r.rewardType} ${r.address} (${r.kind === 'compounded' ? `compounded (restaked), no UTXO: the cycle settled by ${r.rewardTxHash}` : `utxo ${r.utxoId}`})`,
    );
  if (rows.length > limit) listed.push(`  … and ${rows.length - limit} more`);
  return listed;
}

/**
 * The standard-error lines about rewards without a value, or undefined when every reward has one.
 * `omitPending`: the format left the pending rewards out (an income import must not carry a zero).
 */
export function describeUnpriced(
  report: RewardsReport,
  { limit = 20, omitPending = false }: { limit?: number; omitPending?: boolean } = {},
): string | undefined {
  const pending = report.rows.filter((r) => r.priceStatus === 'pending');
  const unpriced = report.rows.filter((r) => r.priceStatus === 'unpriced' && r.kind !== 'compounded');
  const unpricedCompounded = report.rows.filter(
    (r) => r.priceStatus === 'unpriced' && r.kind === 'compounded',
  );
  const lines: string[] = [];
  if (pending.length) {
    lines.push(
      omitPending
        ? `warning: ${pending.length} reward(s) pending, left out of this file: younger than 24 h when last collected, so the API had no price for them yet; the next rewards run stores it, then report again.`
        : `warning: ${pending.length} reward(s) pending: younger than 24 h when last collected, so the API had no ${report.currency} price for them yet (their price and value are empty, the totals' values leave them out); the next rewards run stores it.`,
      ...listRewards(pending, limit),
    );
  }
  if (unpriced.length) {
    lines.push(
      `warning: ${unpriced.length} reward(s) have no ${report.currency} price stored although they were older than 24 h when collected (the API gave none in ${report.currency}): their price and value are empty, never 0, and the totals' values leave them out.`,
      ...listRewards(unpriced, limit),
    );
  }
  if (unpricedCompounded.length) {
    lines.push(
      `warning: ${unpricedCompounded.length} compounded (restaked) row(s) have no ${report.currency} price: cycles carry no price, and no reward was paid by the cycle's transaction to take one from (everything compounded): their price and value are empty, never 0, and the totals' values leave them out.`,
      ...listRewards(unpricedCompounded, limit),
    );
  }
  return lines.length ? lines.join('\n') : undefined;
}
