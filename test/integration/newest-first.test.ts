import { afterEach, describe, expect, it } from 'vitest';
import { createJobContext } from '../../src/kernel/index.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { createLogger } from '../../src/runtime/logger.js';
import type { Store } from '../../src/store/index.js';
import { readCursor } from '../../src/store/index.js';
import { type NewestFirstCursor, syncNewestFirst } from '../../src/sync/newest-first.js';
import { type Page, UpstreamHttpError } from '../../src/upstream/index.js';
import { testStore } from '../support/store.js';

/**
 * The incremental walk against a list that grows on top, with a real store (SQLite or PostgreSQL). Items are numbers:
 * the id is the number, the timestamp too; the list is served newest first in pages of 3, with
 * tokens that remember an offset from the bottom (stable while items arrive on top, like the API).
 */
function feed() {
  let newest = 0;
  const tokens = new Map<string, number>();
  const valid = new Set<string>();
  let requests = 0;
  return {
    /** From this many requests on, every token is refused (a prefetch that fails). */
    expireTokensAfter: undefined as number | undefined,
    add(n: number) {
      newest += n;
    },
    expireTokens() {
      valid.clear();
    },
    get requests() {
      return requests;
    },
    async fetchPage(token: string | undefined): Promise<Page<number>> {
      requests++;
      if (token !== undefined && this.expireTokensAfter !== undefined && requests > this.expireTokensAfter) {
        throw new UpstreamHttpError({ method: 'GET', path: '/x', status: 503, retryable: true });
      }
      let top = newest;
      if (token !== undefined) {
        if (!valid.has(token)) {
          throw new UpstreamHttpError({ method: 'GET', path: '/x', status: 400, retryable: false });
        }
        top = tokens.get(token)!;
      }
      const items: number[] = [];
      for (let i = top; i > 0 && items.length < 3; i--) items.push(i);
      const last = items.at(-1);
      if (last === undefined || last === 1) return { items };
      const next = `t${requests}`;
      tokens.set(next, last - 1);
      valid.add(next);
      return { items, nextPageToken: next };
    },
  };
}

/** The walk's context: the job `test`, its cursors timed 2025-01-01, no client (the feed stands for it). */
const walkContext = (store: Store) =>
  createJobContext('test', {
    client: undefined as never,
    store,
    log: createLogger({ level: 'silent', pretty: false }),
    clock: createManualClock(Date.parse('2025-01-01T00:00:00.000Z')),
    signal: new AbortController().signal,
  });

function run(
  store: Store,
  f: ReturnType<typeof feed>,
  opts: { maxPages?: number; backfill?: boolean; crashAfter?: number } = {},
) {
  let writes = 0;
  return syncNewestFirst<number>(walkContext(store), {
    scope: 's',
    fetchPage: (token) => f.fetchPage(token),
    mark: (n) => ({ ts: n, id: String(n) }),
    reached: (n, m) => n <= m.ts,
    write: async (tx, items) => {
      if (opts.crashAfter !== undefined && writes === opts.crashAfter) throw new Error('crash');
      writes++;
      let written = 0;
      for (const n of items)
        written += await tx.run('INSERT INTO t (n) VALUES (?) ON CONFLICT DO NOTHING', [n]);
      return written;
    },
    maxPages: opts.maxPages ?? 100,
    backfill: opts.backfill ?? true,
  });
}

const stored = async (store: Store) =>
  (await store.all<{ n: number }>('SELECT n FROM t ORDER BY n')).map((r) => r.n);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

let cleanup: () => Promise<void> = async () => {};
afterEach(() => cleanup());

async function setup() {
  const t = await testStore();
  cleanup = t.cleanup;
  await t.store.exec('CREATE TABLE t (n INTEGER PRIMARY KEY)');
  return t.store;
}

describe('newest-first incremental sync', () => {
  it('reads everything once, then only what arrived on top, with one request when nothing is new', async () => {
    const store = await setup();
    const f = feed();
    f.add(10);
    expect((await run(store, f)).rowsWritten).toBe(10);
    expect(await stored(store)).toEqual(range(1, 10));
    const before = f.requests;
    expect((await run(store, f)).rowsWritten).toBe(0);
    expect(f.requests - before).toBe(1);
    f.add(4);
    expect((await run(store, f)).rowsWritten).toBe(4);
    expect(await stored(store)).toEqual(range(1, 14));
  });

  it('resumes after a crash from the page after the last committed one, losing nothing', async () => {
    const store = await setup();
    const f = feed();
    f.add(12);
    await expect(run(store, f, { crashAfter: 2 })).rejects.toThrow('crash');
    expect(await stored(store)).toEqual(range(7, 12));
    const cursor = await readCursor<NewestFirstCursor>(store, 'test', 's');
    expect(cursor?.pending).toBeDefined();
    f.add(2); // items arrive while the collector is down
    await run(store, f);
    expect(await stored(store)).toEqual(range(1, 14));
    // The first backfill's progress went on across the crash: every page and item of it once.
    expect(await readCursor<NewestFirstCursor>(store, 'test', 's')).toEqual({
      highWater: { ts: 14, id: '14' },
      backfill: { pages: 4, items: 12, oldest: { ts: 1, id: '1' }, newest: { ts: 12, id: '12' } },
    });
  });

  it('counts a first backfill read again after an expired token once per item, every page it paid for', async () => {
    const store = await setup();
    const f = feed();
    f.add(12);
    await run(store, f, { maxPages: 2 });
    expect((await readCursor<NewestFirstCursor>(store, 'test', 's'))?.backfill).toEqual({
      pages: 2,
      items: 6,
      oldest: { ts: 7, id: '7' },
      newest: { ts: 12, id: '12' },
    });
    f.expireTokens();
    await run(store, f);
    // 2 pages, then 1 refused token, then 4 pages from the top again: 6 pages committed.
    expect(await readCursor<NewestFirstCursor>(store, 'test', 's')).toEqual({
      highWater: { ts: 12, id: '12' },
      backfill: { pages: 6, items: 12, oldest: { ts: 1, id: '1' }, newest: { ts: 12, id: '12' } },
    });
    expect(await stored(store)).toEqual(range(1, 12));
  });

  it('a maxPages stop continues on the next run instead of leaving a gap', async () => {
    const store = await setup();
    const f = feed();
    f.add(3);
    await run(store, f);
    f.add(15); // 5 pages of new items above the mark
    const first = await run(store, f, { maxPages: 2 });
    expect(first.complete).toBe(false);
    expect(await stored(store)).toEqual([...range(1, 3), ...range(13, 18)]);
    await run(store, f, { maxPages: 2 });
    await run(store, f, { maxPages: 2 });
    expect(await stored(store)).toEqual(range(1, 18));
  });

  it('an expired pending token restarts the segment from the top, down to the same mark', async () => {
    const store = await setup();
    const f = feed();
    f.add(3);
    await run(store, f);
    f.add(9);
    await run(store, f, { maxPages: 1 });
    f.expireTokens();
    f.add(1);
    await run(store, f);
    expect(await stored(store)).toEqual(range(1, 13));
  });

  it('without backfill, the first run takes maxPages and starts from there', async () => {
    const store = await setup();
    const f = feed();
    f.add(30);
    await run(store, f, { maxPages: 2, backfill: false });
    expect(await stored(store)).toEqual(range(25, 30));
    f.add(2);
    await run(store, f, { maxPages: 2, backfill: false });
    expect(await stored(store)).toEqual(range(25, 32));
  });

  it('requests the next page while the current one is written, and commits pages in order', async () => {
    const store = await setup();
    const f = feed();
    f.add(9);
    const events: string[] = [];
    const result = await syncNewestFirst<number>(walkContext(store), {
      scope: 's',
      fetchPage: (token) => {
        events.push(`fetch ${token ?? 'top'}`);
        return f.fetchPage(token);
      },
      mark: (n) => ({ ts: n, id: String(n) }),
      reached: (n, m) => n <= m.ts,
      write: async (_tx, items) => {
        events.push(`write ${items[0]}`);
        return items.length;
      },
      maxPages: 100,
      backfill: true,
    });
    expect(result.rowsWritten).toBe(9);
    // Page 2 is asked for before page 1 is written; nothing is asked for after the last page.
    expect(events).toEqual(['fetch top', 'fetch t1', 'write 9', 'fetch t2', 'write 6', 'write 3']);
  });

  it('a failed write with a page in flight fails the run, and the next run resumes without a gap', async () => {
    const store = await setup();
    const f = feed();
    f.add(15);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      f.expireTokensAfter = 2; // the prefetched page fails too, and nobody awaits it
      await expect(run(store, f, { crashAfter: 1 })).rejects.toThrow('crash');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    f.expireTokensAfter = undefined;
    await run(store, f);
    expect(await stored(store)).toEqual(range(1, 15));
  });
});
