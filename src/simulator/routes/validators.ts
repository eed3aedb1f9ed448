/**
 * The staking endpoints: GET /v1/networks/{network}/validators/{nodeId} (a node's validations, a
 * paged list), /validators (a list with filters; `minUptimePerformance` defaults to 90, as documented),
 * /delegators and /rewards:listPending.
 */
import { isNodeId } from '../../upstream/identifiers.js';
import { type Handler, json } from '../context.js';
import { notFound } from '../http.js';
import { type Checker, checkNetwork, checkPageSize, createChecker, networkGroup } from '../validation.js';
import type {
  DelegatorDetails,
  ListDelegatorDetailsResponse,
  ListPendingRewardsResponse,
  ListValidatorDetailsResponse,
  ValidatorDetails,
} from '../validator-types.js';
import { parseSubjects } from './rewards.js';

const sortOrders = ['asc', 'desc'] as const;
const validationStatuses = ['completed', 'active', 'pending', 'removed'] as const;
const delegationStatuses = ['completed', 'active', 'pending'] as const;
const sortBys = [
  'blockIndex',
  'delegationCapacity',
  'timeRemaining',
  'delegationFee',
  'uptimePerformance',
] as const;

function splitList(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** An optional number in [min, max] (the list's numeric filters). */
function numberIn(check: Checker, name: string, raw: string | undefined, min: number, max: number) {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) {
    check.add(`${name} must be a number conforming to the specified constraints`);
    return undefined;
  }
  if (value < min) check.add(`${name} must not be less than ${min}`);
  else if (value > max) check.add(`${name} must not be greater than ${max}`);
  else return value;
  return undefined;
}

/** A page of `items` after the position `after` (an index), with the token of the next. */
function pageOf<T>(
  items: readonly T[],
  after: number | undefined,
  pageSize: number,
): { items: T[]; next: number | undefined } {
  const from = after === undefined ? 0 : after + 1;
  const slice = items.slice(from, from + pageSize);
  const more = from + pageSize < items.length;
  return { items: slice, next: more ? from + slice.length - 1 : undefined };
}

export const getValidatorDetails: Handler = (ctx, req) => {
  const check = createChecker();
  const network = checkNetwork(check, req.params['network'], true);
  const nodeId = req.params['nodeId'] ?? '';
  if (!isNodeId(nodeId)) {
    check.add(
      `nodeId: '${nodeId}' is not a valid node id (NodeID- followed by the cb58 of 20 bytes with its checksum)`,
    );
  }
  const status = check.oneOf('validationStatus', req.query['validationStatus'], validationStatuses);
  const sortOrder = check.oneOf('sortOrder', req.query['sortOrder'], sortOrders) ?? 'desc';
  const pageSize = checkPageSize(check, req.query['pageSize']);
  check.done();
  const group = networkGroup(network ?? 'mainnet');
  const all = ctx.validators.validations(group, nodeId);
  if (all === undefined) throw notFound(`Validator ${nodeId} not found`);
  let list = status ? all.filter((v) => v.validationStatus === status) : all;
  if (sortOrder === 'asc') list = [...list].reverse();
  const filterKey = JSON.stringify([group, nodeId, status ?? '', sortOrder]);
  const token = req.query['pageToken'];
  const after = token ? ctx.validatorTokens.resolve(token, 'validatorDetails', filterKey) : undefined;
  const page = pageOf(list, after, pageSize);
  const body: ListValidatorDetailsResponse = { validators: page.items };
  if (page.next !== undefined) {
    body.nextPageToken = ctx.validatorTokens.issue('validatorDetails', filterKey, page.next);
  }
  return json(200, body, (served) => {
    for (const v of page.items) served.validators.push(v);
  });
};

const timeRemaining = (v: ValidatorDetails, nowSec: number) => Math.max(0, v.endTimestamp - nowSec);

export const listValidators: Handler = (ctx, req) => {
  const check = createChecker();
  const network = checkNetwork(check, req.params['network'], true);
  const q = req.query;
  const nodeFilter = splitList(q['nodeIds']);
  const status = check.oneOf('validationStatus', q['validationStatus'], validationStatuses);
  const sortOrder = check.oneOf('sortOrder', q['sortOrder'], sortOrders) ?? 'desc';
  const sortBy = check.oneOf('sortBy', q['sortBy'], sortBys) ?? 'blockIndex';
  const pageSize = checkPageSize(check, q['pageSize']);
  // "Default is 90": a list query without it drops a validator whose uptime is low.
  const minUptime = numberIn(check, 'minUptimePerformance', q['minUptimePerformance'], 0, 100) ?? 90;
  const maxUptime = numberIn(check, 'maxUptimePerformance', q['maxUptimePerformance'], 0, 100) ?? 100;
  const minFee = numberIn(check, 'minFeePercentage', q['minFeePercentage'], 2, 100);
  const maxFee = numberIn(check, 'maxFeePercentage', q['maxFeePercentage'], 2, 100);
  const minTime = numberIn(check, 'minTimeRemaining', q['minTimeRemaining'], 0, 2147483647);
  const maxTime = numberIn(check, 'maxTimeRemaining', q['maxTimeRemaining'], 0, 2147483647);
  const minCap = numberIn(check, 'minDelegationCapacity', q['minDelegationCapacity'], 0, 720e15);
  const maxCap = numberIn(check, 'maxDelegationCapacity', q['maxDelegationCapacity'], 0, 720e15);
  const subnetId = q['subnetId'];
  check.done();
  const group = networkGroup(network ?? 'mainnet');
  const nowSec = Math.floor(ctx.clock.now() / 1000);
  // Substring matching, as documented: the pool's nodes and any well-formed node id asked for.
  const candidates = new Set(ctx.validators.pool(group));
  for (const entry of nodeFilter) if (isNodeId(entry)) candidates.add(entry);
  const matched = [...candidates]
    .filter((id) => nodeFilter.length === 0 || nodeFilter.some((entry) => id.includes(entry)))
    .sort();
  const feeOf = (v: ValidatorDetails) =>
    v.delegationFee === undefined ? undefined : Number(v.delegationFee);
  let list = matched
    .flatMap((id) => ctx.validators.validations(group, id) ?? [])
    .filter((v) => {
      if (status && v.validationStatus !== status) return false;
      if (subnetId !== undefined && subnetId !== '' && v.subnetId !== subnetId) return false;
      if (v.validationStatus === 'active') {
        if (v.uptimePerformance < minUptime || v.uptimePerformance > maxUptime) return false;
        const cap = Number(v.delegationCapacity ?? '0');
        if (minCap !== undefined && cap < minCap) return false;
        if (maxCap !== undefined && cap > maxCap) return false;
      }
      if (minFee !== undefined || maxFee !== undefined) {
        const fee = feeOf(v);
        if (fee === undefined) return false;
        if (minFee !== undefined && fee < minFee) return false;
        if (maxFee !== undefined && fee > maxFee) return false;
      }
      if (minTime !== undefined && timeRemaining(v, nowSec) < minTime) return false;
      if (maxTime !== undefined && timeRemaining(v, nowSec) > maxTime) return false;
      return true;
    });
  const keyOf = (v: ValidatorDetails): number => {
    switch (sortBy) {
      case 'timeRemaining':
        return timeRemaining(v, nowSec);
      case 'delegationFee':
        return feeOf(v) ?? 0;
      case 'uptimePerformance':
        return v.validationStatus === 'active' ? v.uptimePerformance : 0;
      case 'delegationCapacity':
        return v.validationStatus === 'active' ? Number(v.delegationCapacity ?? '0') : 0;
      default:
        return v.startTimestamp;
    }
  };
  const sign = sortOrder === 'asc' ? 1 : -1;
  list = list.sort((a, b) => sign * (keyOf(a) - keyOf(b)) || (a.txHash < b.txHash ? -1 : 1));
  const filterKey = JSON.stringify([
    group,
    q['nodeIds'] ?? '',
    status ?? '',
    sortOrder,
    sortBy,
    minUptime,
    maxUptime,
    minFee,
    maxFee,
    minTime,
    maxTime,
    minCap,
    maxCap,
    subnetId ?? '',
  ]);
  const token = q['pageToken'];
  const after = token ? ctx.validatorTokens.resolve(token, 'validators', filterKey) : undefined;
  const page = pageOf(list, after, pageSize);
  const body: ListValidatorDetailsResponse = { validators: page.items };
  if (page.next !== undefined)
    body.nextPageToken = ctx.validatorTokens.issue('validators', filterKey, page.next);
  return json(200, body, (served) => {
    for (const v of page.items) served.validators.push(v);
  });
};

export const listDelegators: Handler = (ctx, req) => {
  const check = createChecker();
  const network = checkNetwork(check, req.params['network'], true);
  const q = req.query;
  const status = check.oneOf('delegationStatus', q['delegationStatus'], delegationStatuses);
  const sortOrder = check.oneOf('sortOrder', q['sortOrder'], sortOrders) ?? 'desc';
  const pageSize = checkPageSize(check, q['pageSize']);
  const nodeIds = splitList(q['nodeIds']);
  for (const id of nodeIds) {
    if (!isNodeId(id))
      check.add(
        `nodeIds: '${id}' is not a valid node id (NodeID- followed by the cb58 of 20 bytes with its checksum)`,
      );
  }
  const rewardAddresses = splitList(q['rewardAddresses']).map((a) => a.replace(/^[PX]-/i, '').toLowerCase());
  check.done();
  const group = networkGroup(network ?? 'mainnet');
  const nodes = nodeIds.length > 0 ? [...new Set(nodeIds)].sort() : ctx.validators.pool(group);
  let list: DelegatorDetails[] = nodes
    .flatMap((id) => ctx.validators.delegators(group, id))
    .filter(
      (d) =>
        (!status || d.delegationStatus === status) &&
        (rewardAddresses.length === 0 || d.rewardAddresses.some((a) => rewardAddresses.includes(a))),
    );
  const sign = sortOrder === 'asc' ? 1 : -1;
  list = list.sort((a, b) => sign * (a.startTimestamp - b.startTimestamp) || (a.txHash < b.txHash ? -1 : 1));
  const filterKey = JSON.stringify([group, nodes.length, nodeIds, status ?? '', sortOrder, rewardAddresses]);
  const token = q['pageToken'];
  const after = token ? ctx.validatorTokens.resolve(token, 'delegators', filterKey) : undefined;
  const page = pageOf(list, after, pageSize);
  const body: ListDelegatorDetailsResponse = { delegators: page.items };
  if (page.next !== undefined)
    body.nextPageToken = ctx.validatorTokens.issue('delegators', filterKey, page.next);
  return json(200, body, (served) => {
    for (const d of page.items) served.delegators.push(d);
  });
};

export const listPendingRewards: Handler = (ctx, req) => {
  const check = createChecker();
  const network = checkNetwork(check, req.params['network'], true);
  const rawAddresses = req.query['addresses'];
  const rawNodeIds = req.query['nodeIds'];
  if (splitList(rawAddresses).length === 0 && splitList(rawNodeIds).length === 0) {
    check.add('At least one of addresses or nodeIds is required');
  }
  const subjects = parseSubjects(network, rawAddresses, rawNodeIds, network ? check : undefined);
  const sortOrder = check.oneOf('sortOrder', req.query['sortOrder'], sortOrders) ?? 'asc';
  const pageSize = checkPageSize(check, req.query['pageSize']);
  check.done();
  const group = networkGroup(network ?? 'mainnet');
  const addresses = subjects.filter((s) => s.kind === 'address').map((s) => s.id);
  const nodeIds = subjects.filter((s) => s.kind === 'node').map((s) => s.id);
  let list = ctx.validators.pendingRewards(group, { addresses, nodeIds });
  if (sortOrder === 'desc') list = list.reverse();
  const filterKey = JSON.stringify([group, subjects.map((s) => s.id), sortOrder]);
  const token = req.query['pageToken'];
  const after = token ? ctx.validatorTokens.resolve(token, 'pendingRewards', filterKey) : undefined;
  const page = pageOf(list, after, pageSize);
  const body: ListPendingRewardsResponse = { pendingRewards: page.items };
  if (page.next !== undefined)
    body.nextPageToken = ctx.validatorTokens.issue('pendingRewards', filterKey, page.next);
  return json(200, body, (served) => {
    for (const r of page.items) served.pendingRewards.push(r);
  });
};
