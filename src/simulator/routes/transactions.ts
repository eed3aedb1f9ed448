/** GET /v1/transactions: the latest transactions of a network's EVM chains, newest first. */
import { type Handler, json } from '../context.js';
import type { ListNativeTransactionsResponse } from '../types.js';
import { checkNetwork, checkPageSize, createChecker, networkGroup } from '../validation.js';

const statuses = ['failed', 'success'] as const;

export const listTransactions: Handler = (ctx, req) => {
  const check = createChecker();
  const network = checkNetwork(check, req.query['network'], false);
  const status = check.oneOf('status', req.query['status'], statuses);
  const pageSize = checkPageSize(check, req.query['pageSize']);
  check.done();

  // Without `network` the API lists mainnet (a decision of this project, see README.md).
  const group = networkGroup(network ?? 'mainnet');
  const filterKey = JSON.stringify([group, status ?? null]);
  const token = req.query['pageToken'];
  const before = token
    ? ctx.txTokens.resolve(token, 'transactions', filterKey)
    : ctx.transactions.countAt(ctx.clock.now());
  const page = ctx.transactions.page(status ? { group, status } : { group }, before, pageSize);

  const body: ListNativeTransactionsResponse = { transactions: page.items };
  if (page.nextBefore !== undefined) {
    body.nextPageToken = ctx.txTokens.issue('transactions', filterKey, page.nextBefore);
  }
  return json(200, body, (served) => {
    for (const tx of page.items) served.transactions.push(tx);
  });
};
