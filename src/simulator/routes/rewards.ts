/** GET /v1/networks/{network}/rewards: historical rewards of addresses and/or node ids. */
import { type Currency, currencies, type Network } from '../../upstream/endpoints.js';
import { isNodeId } from '../../upstream/identifiers.js';
import { type Handler, json } from '../context.js';
import type { RewardSubject } from '../data/rewards.js';
import { bech32Verify } from '../ids.js';
import type { ListHistoricalRewardsResponse } from '../types.js';
import { type Checker, checkNetwork, checkPageSize, createChecker, networkGroup } from '../validation.js';

const sortOrders = ['asc', 'desc'] as const;
const ADDRESS = /^([a-z]+)1[02-9ac-hj-np-z]{38}$/;

function splitList(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * The distinct subjects of a query in a stable order: addresses first (bare, lower-case: `P-`/`X-`
 * forms of one address are one subject), then node ids. Adds a message per malformed entry: an
 * address whose bech32 checksum fails, a node id whose cb58 checksum fails, is refused (400) as
 * the real API refuses it, rather than given invented rewards.
 */
export function parseSubjects(
  network: Network | undefined,
  rawAddresses: string | undefined,
  rawNodeIds: string | undefined,
  check?: Checker,
): RewardSubject[] {
  const hrp = network === 'mainnet' ? 'avax' : 'fuji';
  const addresses = new Set<string>();
  for (const entry of splitList(rawAddresses)) {
    const bare = entry.replace(/^[PX]-/i, '').toLowerCase();
    const m = ADDRESS.exec(bare);
    if (!m || (network !== undefined && m[1] !== hrp)) {
      check?.add(`addresses: '${entry}' must be a ${hrp}1... address, optionally preceded by P- or X-`);
      continue;
    }
    if (!bech32Verify(bare)) {
      check?.add(`addresses: '${entry}' is not a valid address (its bech32 checksum fails)`);
      continue;
    }
    addresses.add(bare);
  }
  const nodeIds = new Set<string>();
  for (const entry of splitList(rawNodeIds)) {
    if (!isNodeId(entry)) {
      check?.add(
        `nodeIds: '${entry}' is not a valid node id (NodeID- followed by the cb58 of 20 bytes with its checksum)`,
      );
    } else nodeIds.add(entry);
  }
  return [
    ...[...addresses].sort().map((id): RewardSubject => ({ kind: 'address', id })),
    ...[...nodeIds].sort().map((id): RewardSubject => ({ kind: 'node', id })),
  ];
}

export const listRewards: Handler = (ctx, req) => {
  const check = createChecker();
  const network = checkNetwork(check, req.params['network'], true);
  const rawAddresses = req.query['addresses'];
  const rawNodeIds = req.query['nodeIds'];
  if (splitList(rawAddresses).length === 0 && splitList(rawNodeIds).length === 0) {
    check.add('At least one of addresses or nodeIds is required');
  }
  const subjects = parseSubjects(network, rawAddresses, rawNodeIds, network ? check : undefined);
  // sortOrder has no documented default; the simulator lists newest first, like the other lists.
  const sortOrder = check.oneOf('sortOrder', req.query['sortOrder'], sortOrders) ?? 'desc';
  const currency: Currency = check.oneOf('currency', req.query['currency'], currencies) ?? 'usd';
  const pageSize = checkPageSize(check, req.query['pageSize']);
  check.done();

  const group = networkGroup(network ?? 'mainnet');
  const query = { group, subjects, sortOrder };
  const filterKey = JSON.stringify([group, subjects.map((s) => s.id), sortOrder]);
  const token = req.query['pageToken'];
  const after = token ? ctx.rewardTokens.resolve(token, 'rewards', filterKey) : undefined;
  const page = ctx.rewards.page(query, after, pageSize, currency);

  const body: ListHistoricalRewardsResponse = { historicalRewards: page.items };
  if (page.next) body.nextPageToken = ctx.rewardTokens.issue('rewards', filterKey, page.next);
  return json(200, body, (served) => {
    for (const reward of page.items) served.rewards.push(reward);
  });
};
