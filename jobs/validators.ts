/** The validators job's handler; its definition (name, config key, cost, streams) is validators.definition.ts. */
import type { JobContext, JobHandler, RestoreRecord } from '../src/kernel/index.js';
import { contextOf } from '../src/kernel/index.js';
import {
  advanceCursor,
  cursorLock,
  deleteEndedPendingRewards,
  FINAL_VALIDATION_STATUSES,
  pruneValidationObservations,
  readCursor,
  refreshValidatorSummary,
  storedValidationStatuses,
  upsertPendingRewards,
  upsertValidations,
} from '../src/store/index.js';
import { canonicalNetwork, recheckRecord, UpstreamHttpError } from '../src/upstream/index.js';
import {
  nodeScope,
  PENDING_PAGE_SIZE,
  pendingBatches,
  pendingScope,
  type ValidatorsPayload,
} from './validators.definition.js';

export type { ValidatorsPayload } from './validators.definition.js';

/** A node's cursor: its history read to the oldest validation, or the page to go on from. */
type NodeCursor = { complete: true } | { complete: false; pageToken: string };
/** The pending rewards' cursor: when they were last read (ms). */
type PendingCursor = { readAt: number };

/** Slack of `pendingRewardsEvery`: a run a few seconds early on its slot still reads them. */
const EVERY_SLACK_MS = 60_000;

/**
 * GET /v1/networks/{network}/validators/{nodeId} per node id, newest first: a node's first run (or
 * one after `reset`) reads its history to the oldest validation (`maxPages` a run, the page token
 * kept in its cursor); later runs read the first page and stop at a validation already stored as
 * final (completed or removed: never asked for again). Each page, its records set aside, its cursor
 * and the node's summary commit together. A node id the API does not know (404, or no validation at
 * all) is recorded as unknown, and the other node ids go on. Then the pending rewards, when due.
 */
export const validators: JobHandler<ValidatorsPayload> = async (payload, ctx) => {
  for (const [i, nodeId] of payload.nodeIds.entries()) {
    ctx.signal.throwIfAborted();
    const known = await syncNode(payload, nodeId, ctx);
    if (!known)
      ctx.log.warn({ nodeId, network: payload.network }, 'node id unknown to the API: no validation');
    ctx.progress.update('validators', i + 1, payload.nodeIds.length, 'node ids');
  }
  ctx.progress.end('validators');
  if (payload.pendingRewards) await syncPendingRewards(payload, ctx);
  // A bounded history: observations past the retention go, in batches, each counted as it commits.
  await pruneValidationObservations(
    ctx.store,
    new Date(ctx.clock.now() - payload.observationRetention).toISOString(),
    { batchSize: 1000, signal: ctx.signal, onBatch: (n) => ctx.countRemoved('validation_observations', n) },
  );
};

async function syncNode(payload: ValidatorsPayload, nodeId: string, ctx: JobContext): Promise<boolean> {
  const network = canonicalNetwork(payload.network);
  const scope = nodeScope(network, nodeId);
  const where = { scope, keyPrefix: `${network}:`, context: { network } };
  const iso = () => new Date(ctx.clock.now()).toISOString();
  let cursor = await readCursor<NodeCursor>(ctx.store, ctx.job, scope);
  const stored = await storedValidationStatuses(ctx.store, network, nodeId);
  let pageToken = cursor && !cursor.complete ? cursor.pageToken : undefined;
  for (let pages = 0; pages < payload.maxPages; pages++) {
    let page: Awaited<ReturnType<typeof ctx.client.listValidatorDetails>>;
    try {
      page = await ctx.client.listValidatorDetails(
        { network: payload.network, nodeId, sortOrder: 'desc', pageSize: payload.pageSize, pageToken },
        { signal: ctx.signal },
      );
    } catch (err) {
      if (err instanceof UpstreamHttpError && err.status === 404 && pages === 0 && pageToken === undefined) {
        await markKnown(payload, nodeId, false, ctx);
        return false;
      }
      // A page token kept from an earlier run that the API no longer takes (tokens last 24 h): from the top.
      if (err instanceof UpstreamHttpError && err.status === 400 && pageToken !== undefined && pages === 0) {
        pageToken = undefined;
        pages--;
        continue;
      }
      throw err;
    }
    const rejected = page.findings?.rejected.length ?? 0;
    if (
      pages === 0 &&
      pageToken === undefined &&
      page.items.length === 0 &&
      rejected === 0 &&
      stored.size === 0
    ) {
      await markKnown(payload, nodeId, false, ctx);
      return false;
    }
    const next = page.nextPageToken || undefined;
    // Everything older than a validation stored final before this run is stored and final too.
    const reachedFinal =
      cursor?.complete === true &&
      page.items.some((v) => FINAL_VALIDATION_STATUSES.includes(stored.get(v.txHash) ?? ''));
    const done = next === undefined || reachedFinal;
    const nextCursor: NodeCursor =
      done || cursor?.complete === true ? { complete: true } : { complete: false, pageToken: next };
    const expected = cursor;
    const at = iso();
    const written = await ctx.commit(
      async (tx) => {
        const rows = await upsertValidations(tx, network, page.items, at);
        const moved = await advanceCursor(tx, ctx.job, scope, expected, nextCursor, at);
        if (!moved) return { rows: 0, moved };
        await refreshValidatorSummary(tx, network, nodeId, at, {
          known: true,
          pendingRewards: payload.pendingRewards,
        });
        return { rows, findings: page.findings, moved };
      },
      { lock: cursorLock(ctx.job, scope), where },
    );
    // Another run moved the cursor meanwhile: it reads this node; this one stops here.
    if (!written?.moved) return true;
    cursor = nextCursor;
    if (done) return true;
    pageToken = next;
  }
  return true;
}

/** The node's summary alone (a node id the API does not know), in one commit. */
async function markKnown(payload: ValidatorsPayload, nodeId: string, known: boolean, ctx: JobContext) {
  const network = canonicalNetwork(payload.network);
  const at = new Date(ctx.clock.now()).toISOString();
  await ctx.commit(async (tx) => {
    await refreshValidatorSummary(tx, network, nodeId, at, { known, pendingRewards: payload.pendingRewards });
    return { rows: 0 };
  });
}

/** rewards:listPending for the node ids and addresses, batched, when `pendingRewardsEvery` has passed. */
async function syncPendingRewards(payload: ValidatorsPayload, ctx: JobContext): Promise<void> {
  const network = canonicalNetwork(payload.network);
  const scope = pendingScope(network);
  const cursor = await readCursor<PendingCursor>(ctx.store, ctx.job, scope);
  const now = ctx.clock.now();
  if (
    cursor &&
    payload.pendingRewardsEvery > 0 &&
    now - cursor.readAt < payload.pendingRewardsEvery - EVERY_SLACK_MS
  ) {
    ctx.log.debug({ lastReadAt: new Date(cursor.readAt).toISOString() }, 'pending rewards not due');
    return;
  }
  const where = { scope, keyPrefix: `${network}:`, context: { network } };
  const at = new Date(now).toISOString();
  for (const { kind, ids } of pendingBatches(payload)) {
    let pageToken: string | undefined;
    for (let pages = 0; pages < payload.maxPages; pages++) {
      const page = await ctx.client.listPendingRewards(
        { network: payload.network, [kind]: ids, pageSize: PENDING_PAGE_SIZE, pageToken },
        { signal: ctx.signal },
      );
      await ctx.commit(
        async (tx) => ({
          rows: await upsertPendingRewards(tx, network, page.items, at),
          findings: page.findings,
        }),
        { where },
      );
      pageToken = page.nextPageToken || undefined;
      if (!pageToken) break;
    }
  }
  // Those whose period is over are paid now (rewards) or lost (validations); each node's sum anew.
  await ctx.commit(
    async (tx) => {
      const removed = await deleteEndedPendingRewards(tx, network, Math.floor(now / 1000));
      await advanceCursor(tx, ctx.job, scope, cursor, { readAt: now }, at);
      for (const nodeId of payload.nodeIds) {
        const known = await tx.get<{ known: number }>(
          'SELECT known FROM validator_summaries WHERE network = ? AND node_id = ?',
          [network, nodeId],
        );
        await refreshValidatorSummary(tx, network, nodeId, at, {
          known: known ? known.known === 1 : true,
          pendingRewards: true,
        });
      }
      return { rows: removed };
    },
    { lock: cursorLock(ctx.job, scope) },
  );
}

/** A record set aside, checked again: a validation, or a pending reward, stored when it passes. */
export const restore: RestoreRecord = async (tx, record, at) => {
  const network = String(contextOf(record)['network'] ?? 'mainnet');
  if (record.endpoint === 'pendingRewards') {
    const checked = recheckRecord('pendingRewards', record.raw);
    if (!checked.ok) return { rejected: checked.rejected };
    return { stored: await upsertPendingRewards(tx, network, [checked.value], at) };
  }
  const checked = recheckRecord('validatorDetails', record.raw);
  if (!checked.ok) return { rejected: checked.rejected };
  const stored = await upsertValidations(tx, network, [checked.value], at);
  return { stored };
};
