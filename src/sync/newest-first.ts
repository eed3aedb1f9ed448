import { channel } from 'node:diagnostics_channel';
import type { FindingsWhere, JobContext } from '../kernel/job.js';
import { advanceCursor, cursorLock, readCursor, type Sql } from '../store/index.js';
import { UpstreamHttpError } from '../upstream/errors.js';
import type { Page } from '../upstream/index.js';

/** How long a prefetch's request may take to reach the wire before the page's write starts anyway. */
const PREFETCH_SEND_WAIT_MS = 20;

/**
 * undici publishes here as it writes a request's headers to the socket: Node's diagnostics channel,
 * read without importing undici (`status` reads this walk's cursors without loading the HTTP client).
 */
const sendHeaders = channel('undici:client:sendHeaders');

/**
 * A promise that resolves when undici next writes a request to a socket, or after `maxMs`
 * (a budget wait, a connection being opened) or when `stop` settles, whichever comes first. Listen
 * before starting the request. What it is for: a prefetch waits for its request to be on the
 * wire before the synchronous SQLite write of the current page takes the event loop; one turn of
 * the loop is not always enough, as the request passes through the budget and the retry policy.
 * Another request sent meanwhile (another job's) ends the wait early: the write then starts as
 * it would without it.
 */
function nextRequestSent(maxMs: number): { sent: Promise<void>; stop: () => void } {
  let done: () => void = () => undefined;
  const sent = new Promise<void>((resolve) => {
    done = resolve;
  });
  const onSend = () => finish();
  const timer = setTimeout(() => finish(), maxMs);
  function finish() {
    clearTimeout(timer);
    sendHeaders.unsubscribe(onSend);
    done();
  }
  sendHeaders.subscribe(onSend);
  return { sent, stop: finish };
}

/**
 * Incremental collection of a list the API serves newest first (latest transactions, rewards by
 * end time), with no gap and no double work across crashes:
 *
 * - `highWater` is the newest item of the last segment that was read down to the previous
 *   high-water mark (or to the end of the list). It only moves when a segment is complete.
 * - A run pages from the top until it reaches the high-water mark. Each page is written in one
 *   transaction with the cursor that follows it: while a segment is open, the cursor keeps its
 *   `pending` next-page token, so a crash or a `maxPages` stop resumes right after the last
 *   committed page instead of skipping the rest of the segment.
 * - A pending token the API no longer accepts (tokens expire after 24 h) restarts the segment from
 *   the top, down to the same mark: more requests, nothing lost.
 * - A run with nothing new costs one request: the first page already holds the mark.
 * - A page's records that failed their checks are set aside (`ctx.commit` records the page's
 *   findings) in the page's transaction: the page's good records are written and the cursor moves on all the same. The
 *   marks follow the good records only.
 * - Two walks of one stream at once (workers on two hosts, a stalled job taken over while it still
 *   runs) never both write: each page's transaction takes the stream's lock and checks that the
 *   cursor is still the one this walk left; the walk that finds it moved stops, writing nothing.
 */
export interface Mark {
  /** Seconds (block time, reward end time). */
  ts: number;
  /** The item's natural key. */
  id: string;
}

export interface NewestFirstCursor {
  highWater?: Mark | undefined;
  /** `newest` is absent while the segment's pages held no good record yet. */
  pending?: { pageToken: string; newest?: Mark | undefined; stopAt?: Mark | undefined } | undefined;
  /** The first backfill's progress (`backfill` streams), kept once it is complete. */
  backfill?: BackfillProgress | undefined;
}

/**
 * How far the first read of a `backfill` stream's whole history got: it is complete once the
 * stream has a high-water mark. Written with each page's cursor, so a crash or a `maxPages` stop
 * keeps it, and the next run goes on counting.
 */
export interface BackfillProgress {
  /** Pages committed, a page whose token expired and was read again included (each cost a request). */
  pages: number;
  /** Items read, each once. */
  items: number;
  /** The oldest item reached so far. */
  oldest?: Mark | undefined;
  /** The newest item when the backfill started: with `oldest`, the span of history read. */
  newest?: Mark | undefined;
}

/**
 * A `backfill` stream's first read of its history is complete once its first segment reached the
 * end of the list: from then on the cursor has a mark (or, for an empty list, nothing pending).
 */
export function backfillComplete(cursor: NewestFirstCursor | undefined): boolean {
  return cursor !== undefined && (cursor.highWater !== undefined || cursor.pending === undefined);
}

/**
 * What the walk needs of a job's context: the store, the job (its cursors are the job's), the clock
 * (the cursor's time) and `commit`, which keeps the run's books of each page.
 */
export type WalkContext = Pick<JobContext, 'store' | 'job' | 'clock' | 'commit'>;

/** One stream, as its job describes it: its cursor's scope and the domain callbacks. */
export interface NewestFirstStream<T> {
  /** The cursor's scope in sync_state (and of the page's findings). */
  scope: string;
  fetchPage: (pageToken: string | undefined) => Promise<Page<T>>;
  mark: (item: T) => Mark;
  /** True when `item` is at or below the mark a segment reads down to. */
  reached: (item: T, stopAt: Mark) => boolean;
  /** Writes a page through `tx`, the page's transaction; returns rows written. */
  write: (tx: Sql, items: T[]) => Promise<number>;
  /** Where a page's findings came from, beside the stream's scope. @defaultValue no key prefix, empty context */
  where?: Omit<FindingsWhere, 'scope'> | undefined;
  maxPages: number;
  /**
   * Fetch the next page while the current one is written (its token is known before the write).
   * The fetch only reads: a page and its cursor still commit together, in order, and a crash loses
   * at most that unwritten read. @defaultValue true
   */
  prefetch?: boolean;
  /**
   * On the first run (no mark yet), keep reading older pages on later runs until the end of the list
   * (rewards: the whole history matters), or stop after `maxPages` and start from there (the latest
   * transactions feed: history before the first run is not the collector's to backfill).
   */
  backfill: boolean;
}

export interface NewestFirstResult {
  rowsWritten: number;
  pages: number;
  /** False when `maxPages` stopped the run before the segment was complete. */
  complete: boolean;
  /** True when another walk of the stream moved its cursor meanwhile, and this one stopped. */
  superseded: boolean;
}

export async function syncNewestFirst<T>(
  ctx: WalkContext,
  stream: NewestFirstStream<T>,
): Promise<NewestFirstResult> {
  const o: Walk<T> = { ...stream, ctx };
  const stored = await readCursor<NewestFirstCursor>(ctx.store, ctx.job, o.scope);
  const initial = stored ?? {};
  const state: WalkState = {
    rowsWritten: 0,
    pages: 0,
    highWater: initial.highWater,
    cursor: stored,
    progress: initial.backfill,
  };
  const stop = (outcome: 'paused' | 'superseded') => ({
    rowsWritten: state.rowsWritten,
    pages: state.pages,
    complete: false,
    superseded: outcome === 'superseded',
  });
  let rereading = false;
  if (initial.pending) {
    const { pageToken, newest, stopAt } = initial.pending;
    const outcome = await walk(o, state, pageToken, newest, stopAt, true);
    if (outcome === 'paused' || outcome === 'superseded') return stop(outcome);
    // 'done': the open segment is complete, so read what arrived on top meanwhile if pages remain;
    // 'restart': its token expired, so read it again from the top, down to the same mark.
    rereading = outcome === 'restart';
  }
  const outcome = await walk(o, state, undefined, undefined, state.highWater, false, rereading);
  if (outcome === 'paused' || outcome === 'superseded') return stop(outcome);
  return { rowsWritten: state.rowsWritten, pages: state.pages, complete: true, superseded: false };
}

/** A stream and the context it is walked in. */
type Walk<T> = NewestFirstStream<T> & { ctx: WalkContext };

interface WalkState {
  rowsWritten: number;
  pages: number;
  highWater: Mark | undefined;
  /** The cursor as this walk last read or wrote it (undefined: none stored). */
  cursor: NewestFirstCursor | undefined;
  progress: BackfillProgress | undefined;
}

/** The backfill's progress after `items`, a page of the walk down to the end of the list. */
function advanceProgress<T>(
  o: Walk<T>,
  progress: BackfillProgress | undefined,
  items: readonly T[],
  rereading: boolean,
): BackfillProgress {
  const p = progress ?? { pages: 0, items: 0 };
  const marks = items.map(o.mark);
  // Read again after an expired token: only what lies below the oldest item reached is new.
  const fresh = rereading && p.oldest ? marks.filter((m) => m.ts < p.oldest!.ts) : marks;
  let oldest = p.oldest;
  for (const m of fresh) if (!oldest || m.ts < oldest.ts) oldest = m;
  return { pages: p.pages + 1, items: p.items + fresh.length, oldest, newest: p.newest ?? marks[0] };
}

async function walk<T>(
  o: Walk<T>,
  state: WalkState,
  startToken: string | undefined,
  startNewest: Mark | undefined,
  stopAt: Mark | undefined,
  resumed: boolean,
  rereading = false,
): Promise<'done' | 'paused' | 'restart' | 'superseded'> {
  // The walk down to the end of the list of a stream with no mark yet: its first backfill.
  const tracking = o.backfill && stopAt === undefined;
  let token = startToken;
  let newest = startNewest;
  /** The next page, requested while the current one was written. */
  let prefetched: Promise<Page<T>> | undefined;
  while (state.pages < o.maxPages) {
    let page: Page<T>;
    try {
      page = await (prefetched ?? o.fetchPage(token));
    } catch (err) {
      // Only a remembered token can have expired; a 400 on a fresh one is a real error.
      if (resumed && token === startToken && err instanceof UpstreamHttpError && err.status === 400) {
        return 'restart';
      }
      throw err;
    }
    state.pages++;
    const first = page.items[0];
    if (!newest && first) newest = o.mark(first);
    const reached = stopAt !== undefined && page.items.some((item) => o.reached(item, stopAt));
    const end = reached || !page.nextPageToken;
    const outOfPages = state.pages >= o.maxPages;

    const progress = tracking ? advanceProgress(o, state.progress, page.items, rereading) : state.progress;
    let cursor: NewestFirstCursor;
    if (end) {
      cursor = { highWater: newest ?? state.highWater };
    } else if (outOfPages && !stopAt && !o.backfill && !resumed) {
      cursor = { highWater: newest };
    } else {
      cursor = {
        highWater: state.highWater,
        pending: { pageToken: page.nextPageToken!, newest, stopAt },
      };
    }
    if (progress) cursor.backfill = progress;
    prefetched = undefined;
    if (!end && !outOfPages && (o.prefetch ?? true)) {
      // A SQLite write is synchronous: the request is let onto the wire first (it passes the
      // budget and the retry policy, then undici writes it on a later turn), so the upstream
      // answers while this page is written. At most PREFETCH_SEND_WAIT_MS (a budget wait).
      const wait = nextRequestSent(PREFETCH_SEND_WAIT_MS);
      prefetched = o.fetchPage(page.nextPageToken);
      // Its failure is seen when it is awaited; if the write below fails first, nobody awaits it.
      prefetched.then(wait.stop, wait.stop);
      await wait.sent;
    }
    const { ctx } = o;
    const at = new Date(ctx.clock.now()).toISOString();
    const committed = await ctx.commit(
      async (tx) => {
        if (!(await advanceCursor(tx, ctx.job, o.scope, state.cursor, cursor, at))) return undefined;
        return { rows: await o.write(tx, page.items), findings: page.findings };
      },
      {
        lock: cursorLock(ctx.job, o.scope),
        where: { ...o.where, scope: o.scope, context: o.where?.context ?? {} },
      },
    );
    if (committed === undefined) return 'superseded';
    state.cursor = cursor;
    state.progress = progress;
    state.rowsWritten += committed.rows;
    if (end) {
      state.highWater = cursor.highWater;
      return 'done';
    }
    token = page.nextPageToken;
  }
  return 'paused';
}
