/**
 * GET /v1/networks/{network}/validators/{nodeId}/cycles (ACP-236, the SDK's next release: the
 * shapes in src/upstream/auto-renew.ts): the settled cycles of a node's auto-renewed validations,
 * newest first by default (`sortOrder` asc|desc by end time and cycle index), `txHash` narrowing to
 * one position, `pageSize` 1..100 (default 10), and `currentCycle` (the cycle in flight of the
 * node's latest position, absent once it ended) on the first page only. A node with none gets an
 * empty list; a malformed node id, a 400.
 */
import { isNodeId } from '../../upstream/identifiers.js';
import { type Handler, json } from '../context.js';
import { settledCycles } from '../data/auto-renewed.js';
import { checkNetwork, checkPageSize, createChecker, networkGroup } from '../validation.js';

const sortOrders = ['asc', 'desc'] as const;

export const listValidatorCycles: Handler = (ctx, req) => {
  const check = createChecker();
  const network = checkNetwork(check, req.params['network'], true);
  const nodeId = req.params['nodeId'] ?? '';
  if (!isNodeId(nodeId)) {
    check.add(
      `nodeId: '${nodeId}' is not a valid node id (NodeID- followed by the cb58 of 20 bytes with its checksum)`,
    );
  }
  const sortOrder = check.oneOf('sortOrder', req.query['sortOrder'], sortOrders) ?? 'desc';
  const pageSize = checkPageSize(check, req.query['pageSize']);
  const txHash = req.query['txHash'] || undefined;
  check.done();
  const group = networkGroup(network ?? 'mainnet');
  const positions = ctx.autoRenewed.positions(group, nodeId);
  const cycles = settledCycles(positions, sortOrder, txHash);
  const filterKey = JSON.stringify([group, nodeId, sortOrder, txHash ?? '']);
  const token = req.query['pageToken'];
  const after = token ? ctx.validatorTokens.resolve(token, 'validatorCycles', filterKey) : undefined;
  const from = after === undefined ? 0 : after + 1;
  const items = cycles.slice(from, from + pageSize);
  const body: Record<string, unknown> = { cycles: items };
  if (from + pageSize < cycles.length) {
    body['nextPageToken'] = ctx.validatorTokens.issue('validatorCycles', filterKey, from + items.length - 1);
  }
  const latest = positions.filter((p) => txHash === undefined || p.stakingTxHash === txHash).at(-1);
  if (after === undefined && latest?.current) body['currentCycle'] = latest.current;
  return json(200, body);
};
