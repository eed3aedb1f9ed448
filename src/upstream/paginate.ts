import { PageTokenRepeatedError } from './errors.js';
import type { Findings } from './records.js';

export interface Page<T> {
  /** The records that passed their schema and bounds. */
  items: T[];
  /** Absent (or empty) on the last page. Tokens expire after 24 hours upstream. */
  nextPageToken?: string | undefined;
  /** Records set aside and drift seen on this page; absent when there were none. */
  findings?: Findings | undefined;
}

export interface PaginateOptions {
  /** Stop after this many pages even if the upstream has more. */
  maxPages?: number;
  /** Checked before each page is fetched; pass the same signal to `fetchPage` to abort a fetch in flight. */
  signal?: AbortSignal;
}

/**
 * Yields pages in order, starting without a token. Stops after a page without `nextPageToken` (or with
 * an empty one) or after `maxPages`. The consumer applies its own stop rule by `break`ing (e.g. on a
 * page holding only rows it already has): no further page is fetched then.
 *
 * Throws PageTokenRepeatedError instead of fetching a token it has already fetched: a server bug would
 * otherwise loop forever. The page that carried the repeated token has been yielded by then.
 */
export async function* paginate<T>(
  fetchPage: (pageToken: string | undefined) => Promise<Page<T>>,
  options: PaginateOptions = {},
): AsyncGenerator<Page<T>, void, undefined> {
  const { maxPages = Number.POSITIVE_INFINITY, signal } = options;
  const seen = new Set<string>();
  let token: string | undefined;
  let pages = 0;
  while (pages < maxPages) {
    signal?.throwIfAborted();
    const page = await fetchPage(token);
    pages += 1;
    yield page;
    const next = page.nextPageToken;
    if (!next || pages >= maxPages) return;
    if (seen.has(next)) throw new PageTokenRepeatedError(pages);
    seen.add(next);
    token = next;
  }
}
