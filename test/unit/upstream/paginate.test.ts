import { describe, expect, it } from 'vitest';
import { PageTokenRepeatedError } from '../../../src/upstream/errors.js';
import { type Page, paginate } from '../../../src/upstream/paginate.js';

/** A fake upstream: page i holds [i] and points to `tokens[i]`. Records the tokens it was asked for. */
function pages(tokens: (string | undefined)[]) {
  const requested: (string | undefined)[] = [];
  const fetchPage = async (token: string | undefined): Promise<Page<number>> => {
    requested.push(token);
    const index = token === undefined ? 0 : Number(token.slice(1));
    return { items: [index], nextPageToken: tokens[index] };
  };
  return { fetchPage, requested };
}

async function collect<T>(gen: AsyncGenerator<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  for await (const page of gen) items.push(...page.items);
  return items;
}

describe('paginate', () => {
  it('follows tokens and stops after the page without nextPageToken', async () => {
    const { fetchPage, requested } = pages(['t1', 't2', undefined]);
    expect(await collect(paginate(fetchPage))).toEqual([0, 1, 2]);
    expect(requested).toEqual([undefined, 't1', 't2']);
  });

  it('treats an empty nextPageToken as the last page', async () => {
    const { fetchPage, requested } = pages(['t1', '']);
    expect(await collect(paginate(fetchPage))).toEqual([0, 1]);
    expect(requested).toHaveLength(2);
  });

  it('stops at maxPages without fetching further', async () => {
    const { fetchPage, requested } = pages(['t1', 't2', 't3', undefined]);
    expect(await collect(paginate(fetchPage, { maxPages: 2 }))).toEqual([0, 1]);
    expect(requested).toEqual([undefined, 't1']);
  });

  it('fetches nothing with maxPages 0', async () => {
    const { fetchPage, requested } = pages(['t1', undefined]);
    expect(await collect(paginate(fetchPage, { maxPages: 0 }))).toEqual([]);
    expect(requested).toEqual([]);
  });

  it('throws PageTokenRepeatedError instead of following a token it already followed', async () => {
    // page 2 points back to t1: a loop
    const { fetchPage, requested } = pages(['t1', 't2', 't1']);
    const seen: number[] = [];
    const run = async () => {
      for await (const page of paginate(fetchPage)) seen.push(...page.items);
    };
    await expect(run()).rejects.toBeInstanceOf(PageTokenRepeatedError);
    expect(seen).toEqual([0, 1, 2]);
    expect(requested).toEqual([undefined, 't1', 't2']);
  });

  it('throws when a page points to itself', async () => {
    const { fetchPage } = pages(['t1', 't1']);
    await expect(collect(paginate(fetchPage))).rejects.toThrow(/repeated a page token after 2 page/);
  });

  it('stops at maxPages rather than failing on a repeat beyond it', async () => {
    const { fetchPage } = pages(['t1', 't1']);
    expect(await collect(paginate(fetchPage, { maxPages: 2 }))).toEqual([0, 1]);
  });

  it('fetches no further page when the consumer breaks (its stop rule)', async () => {
    const { fetchPage, requested } = pages(['t1', 't2', 't3', undefined]);
    for await (const page of paginate(fetchPage)) {
      if (page.items.includes(1)) break;
    }
    expect(requested).toEqual([undefined, 't1']);
  });

  it('propagates a fetch error', async () => {
    const gen = paginate<number>(async () => {
      throw new Error('upstream down');
    });
    await expect(collect(gen)).rejects.toThrow('upstream down');
  });

  it('stops with the abort reason once the signal aborts', async () => {
    const controller = new AbortController();
    const { fetchPage, requested } = pages(['t1', 't2', undefined]);
    const reason = new Error('job cancelled');
    const run = async () => {
      for await (const _page of paginate(fetchPage, { signal: controller.signal })) controller.abort(reason);
    };
    await expect(run()).rejects.toBe(reason);
    expect(requested).toEqual([undefined]);
  });
});
