/** Handler of each route (see router.ts for the paths). */
import type { Handler } from '../context.js';
import type { RouteName } from '../router.js';
import { listValidatorCycles } from './cycles.js';
import { createExport, download, getOperation } from './operations.js';
import { listRewards } from './rewards.js';
import { getAggregatedSignatures, getSupply } from './simple.js';
import { listTransactions } from './transactions.js';
import { getApiUsageMetrics, getPrimaryNetworkRpcUsageMetrics, getSubnetRpcUsageMetrics } from './usage.js';
import { getValidatorDetails, listDelegators, listPendingRewards, listValidators } from './validators.js';

export const handlers: Readonly<Record<RouteName, Handler>> = {
  supply: getSupply,
  transactions: listTransactions,
  rewards: listRewards,
  apiUsageMetrics: getApiUsageMetrics,
  primaryNetworkRpcUsageMetrics: getPrimaryNetworkRpcUsageMetrics,
  subnetRpcUsageMetrics: getSubnetRpcUsageMetrics,
  signatures: getAggregatedSignatures,
  createExport,
  getOperation,
  download,
  validatorDetails: getValidatorDetails,
  validators: listValidators,
  delegators: listDelegators,
  pendingRewards: listPendingRewards,
  validatorCycles: listValidatorCycles,
};
