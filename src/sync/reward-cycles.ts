/**
 * The rewards job's cycles read (ACP-236 auto-renewed staking): the compounded part of a cycle's
 * reward produces no UTXO, so it never appears in the rewards history; GET
 * /v1/networks/{network}/validators/{nodeId}/cycles lists the settled cycles, newest first, and the
 * cycle in flight on its first page. Read for every configured node id with an auto-renewed
 * validation (a stored validation or reward says `autoRenewed`) and for the node of a configured
 * address's auto-renewed validator reward.
 *
 * A settled cycle is final: the first read of a node walks its cycles to the oldest
 * (`CYCLES_MAX_PAGES` a run, the page token kept in its cursor); later runs read the first page
 * only and stop at a cycle already stored. While no cycle can have settled since (the cycle in
 * flight ends after now) that page holds one cycle: the steady state is one request per node a run, for the current cycle, and no settled
 * cycle is asked for again in bulk. Each page and its cursor commit together.
 */
import type { JobContext } from '../kernel/index.js';
import {
  advanceCursor,
  cursorLock,
  cycleKey,
  nodeIdsWithAutoRenewedStaking,
  readCursor,
  storedCycleKeys,
  upsertCycles,
} from '../store/index.js';
import { canonicalNetwork, type Network, UpstreamHttpError } from '../upstream/index.js';
import { CYCLES_MAX_PAGES } from './reward-streams.js';

/** A node's cycles cursor. */
export interface CyclesCursor {
  /** Read to the oldest settled cycle once; else `pageToken` is where the first read goes on. */
  complete: boolean;
  pageToken?: string | undefined;
  /** The cycle in flight's end (Unix seconds) when last read; null when the node has none. */
  currentEnds: number | null;
}

/** The largest page the endpoint serves: a first read in as few requests as it can. */
export const CYCLES_PAGE_SIZE = 100;

export const cyclesScope = (network: string, nodeId: string): string =>
  `${canonicalNetwork(network)}/cycles/${nodeId}`;

export interface CyclesPayload {
  network: Network;
  addresses: readonly string[];
  nodeIds: readonly string[];
}

/** Reads the cycles of every node that has auto-renewed staking; returns the node ids read. */
export async function syncAutoRenewedCycles(payload: CyclesPayload, ctx: JobContext): Promise<string[]> {
  const nodes = await nodeIdsWithAutoRenewedStaking(ctx.store, payload.network, payload);
  for (const [i, nodeId] of nodes.entries()) {
    ctx.signal.throwIfAborted();
    await syncNodeCycles(payload, nodeId, ctx);
    ctx.progress.update('cycles', i + 1, nodes.length, 'node ids');
  }
  if (nodes.length > 0) ctx.progress.end('cycles');
  return nodes;
}

async function syncNodeCycles(payload: CyclesPayload, nodeId: string, ctx: JobContext): Promise<void> {
  const network = canonicalNetwork(payload.network);
  const scope = cyclesScope(network, nodeId);
  const where = { scope, keyPrefix: `${network}:`, context: { network, nodeId } };
  let cursor = await readCursor<CyclesCursor>(ctx.store, ctx.job, scope);
  const stored = await storedCycleKeys(ctx.store, network, nodeId);
  const nowSec = Math.floor(ctx.clock.now() / 1000);
  let pageToken = cursor && !cursor.complete ? cursor.pageToken : undefined;
  // Up to date, and nothing settled since the last read: one cycle on the page beside the current one.
  const quiet =
    cursor?.complete === true &&
    pageToken === undefined &&
    (cursor.currentEnds === null || nowSec < cursor.currentEnds);
  let pageSize = quiet ? 1 : CYCLES_PAGE_SIZE;
  let currentEnds = cursor?.currentEnds ?? null;
  for (let pages = 0; pages < CYCLES_MAX_PAGES; pages++) {
    let page: Awaited<ReturnType<typeof ctx.client.listValidatorCycles>>;
    try {
      page = await ctx.client.listValidatorCycles(
        { network: payload.network, nodeId, sortOrder: 'desc', pageSize, pageToken },
        { signal: ctx.signal },
      );
    } catch (err) {
      // A page token kept from an earlier run that the API no longer takes (tokens last 24 h): from the top.
      if (err instanceof UpstreamHttpError && err.status === 400 && pageToken !== undefined && pages === 0) {
        pageToken = undefined;
        pages--;
        continue;
      }
      throw err;
    }
    if (pageToken === undefined) currentEnds = page.currentCycle?.endTimestamp ?? null;
    const rejectedKeys = (page.findings?.rejected ?? []).flatMap((r) => r.key ?? []);
    const fresh = page.items.some((c) => !stored.has(cycleKey(c)));
    // A one-cycle page that shows a cycle not stored: something settled after all; read it in full.
    if (pageSize === 1 && (fresh || rejectedKeys.some((k) => !stored.has(k)))) {
      pageSize = CYCLES_PAGE_SIZE;
      pages--;
      continue;
    }
    const next = page.nextPageToken || undefined;
    // Everything older than a cycle stored before this run is stored too, once the first read is done.
    const reachedStored = cursor?.complete === true && page.items.some((c) => stored.has(cycleKey(c)));
    const done = next === undefined || reachedStored;
    const nextCursor: CyclesCursor =
      done || cursor?.complete === true
        ? { complete: true, currentEnds }
        : { complete: false, pageToken: next, currentEnds };
    const expected = cursor;
    const at = new Date(ctx.clock.now()).toISOString();
    const written = await ctx.commit(
      async (tx) => {
        const rows = await upsertCycles(tx, network, nodeId, page.items, at);
        const moved = await advanceCursor(tx, ctx.job, scope, expected, nextCursor, at);
        if (!moved) return { rows: 0, moved };
        return { rows, findings: page.findings, moved };
      },
      { lock: cursorLock(ctx.job, scope), where },
    );
    // Another run moved the cursor meanwhile: it reads this node; this one stops here.
    if (!written?.moved) return;
    cursor = nextCursor;
    if (done) return;
    pageToken = next;
  }
}
