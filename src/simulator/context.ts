/** What every route handler stands on: the data sources, the stores and the settings of one simulator. */
import type { Clock } from '../runtime/clock.js';
import type { Account } from './auth.js';
import type { AutoRenewedSource } from './data/auto-renewed.js';
import type { RewardKey, RewardSource } from './data/rewards.js';
import type { SupplySource } from './data/supply.js';
import type { TransactionSource } from './data/transactions.js';
import type { ValidatorSource } from './data/validators.js';
import type { ExportedRange, ExportSettings, OperationStore } from './exports.js';
import type { ServedLog } from './logs.js';
import type { TokenCodec } from './pagination.js';
import type { Query } from './validation.js';

export interface SimContext {
  seed: number;
  clock: Clock;
  transactions: TransactionSource;
  rewards: RewardSource;
  supply: SupplySource;
  operations: OperationStore;
  exportSettings: ExportSettings;
  txTokens: TokenCodec<number>;
  rewardTokens: TokenCodec<RewardKey>;
  validators: ValidatorSource;
  /** ACP-236 auto-renewed validations (Fuji): their cycles. */
  autoRenewed: AutoRenewedSource;
  /** Tokens of the staking lists (validators, delegators, pending rewards): an index into the list. */
  validatorTokens: TokenCodec<number>;
  /** Base of download URLs (no trailing slash). */
  publicUrl(): string;
}

export interface RouteRequest {
  params: Readonly<Record<string, string>>;
  query: Query;
  /** The parsed JSON body of a POST; undefined otherwise. */
  body: unknown;
  account: Account;
}

export type RouteResult =
  | {
      kind: 'json';
      status: number;
      body: unknown;
      /** Records the body in the served log; skipped when a fault made it unusable. */
      record?: (served: ServedLog) => void;
    }
  | { kind: 'csv'; range: ExportedRange };

export type Handler = (ctx: SimContext, req: RouteRequest) => RouteResult;

export function json(status: number, body: unknown, record?: (served: ServedLog) => void): RouteResult {
  return record ? { kind: 'json', status, body, record } : { kind: 'json', status, body };
}
