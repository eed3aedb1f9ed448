/**
 * Ground truth: the data as it exists at clock.now(), computed by the same functions that serve it,
 * so tests can compare a collector's database with what the API holds.
 */
import type { Currency, Network } from '../upstream/endpoints.js';
import type { SimContext } from './context.js';
import { type CsvRow, exportRows } from './csv.js';
import type { AutoRenewedPosition } from './data/auto-renewed.js';
import { signedMessage } from './data/signatures.js';
import type { TxStatusFilter } from './data/transactions.js';
import { parseSubjects } from './routes/rewards.js';
import type { AvaxSupply, HistoricalReward, NativeTransaction, OperationStatusResponse } from './types.js';
import { networkGroup } from './validation.js';
import type { DelegatorDetails, PendingReward, ValidatorDetails } from './validator-types.js';

export interface GroundTruth {
  /** Every transaction existing now, newest first (the API's order). No network = mainnet, as the API. */
  transactions(filter?: { network?: Network; status?: TxStatusFilter }): NativeTransaction[];
  /** Every reward existing now for the query, newest first (the default sortOrder), prices in `currency` (usd). */
  rewards(
    network: Network,
    query: { addresses?: string[]; nodeIds?: string[] },
    currency?: Currency,
  ): HistoricalReward[];
  supply(): AvaxSupply;
  /** A node's validations now, newest start first (every status); undefined for a node the API does not know (404). */
  validations(network: Network, nodeId: string): ValidatorDetails[] | undefined;
  /** Delegations to a node's validations now, newest first. */
  delegators(network: Network, nodeId: string): DelegatorDetails[];
  /** Pending rewards of node ids and addresses now, ending soonest first. */
  pendingRewards(network: Network, query: { addresses?: string[]; nodeIds?: string[] }): PendingReward[];
  /** A node's ACP-236 auto-renewed positions now (Fuji only), oldest first, with their cycles. */
  autoRenewed(network: Network, nodeId: string): AutoRenewedPosition[];
  /** The `autoRenew` object of each of them, as a validator object carries it. */
  autoRenew(network: Network, nodeId: string): ReturnType<SimContext['autoRenewed']['autoRenew']>;
  signature(network: Network, txHash: string): string;
  operation(operationId: string): OperationStatusResponse | undefined;
  /** The rows of a finished export's CSV file (column name → cell), in file order; undefined if none. */
  exportRows(operationId: string): Iterable<CsvRow> | undefined;
}

export function createGroundTruth(ctx: SimContext): GroundTruth {
  return {
    transactions(filter = {}) {
      const group = networkGroup(filter.network ?? 'mainnet');
      const txFilter = filter.status ? { group, status: filter.status } : { group };
      const out: NativeTransaction[] = [];
      for (let i = ctx.transactions.countAt(ctx.clock.now()) - 1; i >= 0; i--) {
        if (ctx.transactions.matches(txFilter, i)) out.push(ctx.transactions.build(group, i));
      }
      return out;
    },
    rewards(network, query, currency = 'usd') {
      const subjects = parseSubjects(network, query.addresses?.join(','), query.nodeIds?.join(','));
      return ctx.rewards.all({ group: networkGroup(network), subjects, sortOrder: 'desc' }, currency);
    },
    autoRenewed(network, nodeId) {
      return ctx.autoRenewed.positions(networkGroup(network), nodeId);
    },
    autoRenew(network, nodeId) {
      return ctx.autoRenewed.autoRenew(networkGroup(network), nodeId);
    },
    supply() {
      return ctx.supply.at(ctx.clock.now());
    },
    validations(network, nodeId) {
      return ctx.validators.validations(networkGroup(network), nodeId);
    },
    delegators(network, nodeId) {
      return ctx.validators.delegators(networkGroup(network), nodeId);
    },
    pendingRewards(network, query) {
      const subjects = parseSubjects(network, query.addresses?.join(','), query.nodeIds?.join(','));
      return ctx.validators.pendingRewards(networkGroup(network), {
        addresses: subjects.filter((s) => s.kind === 'address').map((s) => s.id),
        nodeIds: subjects.filter((s) => s.kind === 'node').map((s) => s.id),
      });
    },
    signature(network, txHash) {
      return signedMessage(ctx.seed, networkGroup(network), txHash);
    },
    operation(operationId) {
      const record = ctx.operations.get(operationId);
      return record ? ctx.operations.view(record, ctx.publicUrl()) : undefined;
    },
    exportRows(operationId) {
      const record = ctx.operations.get(operationId);
      if (!record) return undefined;
      const range = ctx.operations.downloadable(record.id, record.downloadToken);
      return range ? exportRows(ctx.seed, range, ctx.exportSettings.rowsPerDay) : undefined;
    },
  };
}
