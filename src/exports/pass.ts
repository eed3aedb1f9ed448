/**
 * The scheduled pass (`exports` job): creates what is due now and returns a poll for every
 * operation with work left, so nothing is orphaned after a crash or a Redis loss.
 */
import { type Continuation, type JobContext, JobFailedError } from '../kernel/index.js';
import { listRetryableExports, listTruncatedWithoutFollowUp, listUnfinishedExports } from '../store/index.js';
import { isUnrecoverable } from '../upstream/index.js';
import {
  continueTruncated,
  type ExportsSettings,
  pollContinuation,
  retryFailed,
  startExport,
} from './lifecycle.js';
import { exportRequest, requestHash, windowDates } from './requests.js';

/**
 * Due now: each definition's current window (unless a live or final operation covers it), the
 * remainder of truncated exports, and retries whose backoff has passed. Every creation goes
 * through a claim, so two passes at once (or a pass and a poll) never create a window twice.
 * One failure does not hold back the others: they are all tried, then the pass fails with the
 * first, still returning the polls it made.
 */
export async function runExportsPass(ctx: JobContext, s: ExportsSettings): Promise<Continuation[]> {
  const out = new Map<string, Continuation>();
  const add = (cs: readonly Continuation[]) => {
    for (const c of cs) if (!out.has(c.id)) out.set(c.id, c);
  };
  const errors: Error[] = [];
  const attempt = async (what: string, step: () => Promise<Continuation[]>) => {
    try {
      add(await step());
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      const error = err instanceof Error ? err : new Error(String(err));
      errors.push(error);
      if (error instanceof JobFailedError) add(error.options.continuations ?? []);
      ctx.log.error({ what, err: error.message }, 'export step failed');
    }
  };

  for (const def of s.definitions) {
    const { firstDate, lastDate } = windowDates(def.window, ctx.clock.now());
    const body = exportRequest(def, firstDate, lastDate);
    await attempt(`create ${def.name} ${firstDate}..${lastDate}`, () =>
      startExport(ctx, s, {
        exportName: def.name,
        firstDate,
        lastDate,
        body,
        requestHash: requestHash(body),
      }),
    );
  }
  for (const row of await listTruncatedWithoutFollowUp(ctx.store)) {
    await attempt(`continue ${row.operationId}`, () => continueTruncated(ctx, s, row));
  }
  for (const row of await listRetryableExports(ctx.store, s.maxRetries)) {
    await attempt(`retry ${row.operationId}`, () => retryFailed(ctx, s, row));
  }
  for (const row of await listUnfinishedExports(ctx.store)) add([pollContinuation(row, s)]);

  const continuations = [...out.values()];
  if (errors.length > 0) {
    const [first] = errors as [Error, ...Error[]];
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    throw new JobFailedError(`${first.message}${more}`, {
      continuations,
      cause: first.cause,
      // Retrying the pass helps only if some failure may pass (a 5xx, a network fault).
      unrecoverable: errors.every(
        (e) => (e instanceof JobFailedError && e.options.unrecoverable) || isUnrecoverable(e),
      ),
    });
  }
  return continuations;
}
