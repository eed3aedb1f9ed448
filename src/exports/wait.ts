/**
 * `run exports` without a queue: the scheduled pass, then the continuations it asks for, run in this
 * process at their delays (the same steps the queue's `export-poll` jobs run), until every
 * operation is done or `maxWait` passes. With `wait: false`, each continuation runs once, at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type Continuation, type JobContext, JobFailedError, type JobResult } from '../kernel/run.js';
import { getExportOperation } from '../store/index.js';
import { advanceExport, type ExportsSettings } from './lifecycle.js';
import { runExportsPass } from './pass.js';

interface Pending {
  continuation: Continuation;
  /** performance.now() at which it is due. */
  dueAt: number;
}

const PROGRESS_TASK = 'exports';

export async function runExportsInProcess(
  ctx: JobContext,
  s: ExportsSettings,
  mode: 'once' | 'until-done',
): Promise<JobResult> {
  const pending = new Map<string, Pending>();
  const seen = new Set<string>();
  /** Failures by window: a later success of the same window (a retry) clears its failure. */
  const failures = new Map<string, Error>();
  const enqueue = (cs: readonly Continuation[]) => {
    for (const c of cs) {
      seen.add(String(c.args['operationId']));
      if (!pending.has(c.id)) pending.set(c.id, { continuation: c, dueAt: performance.now() + c.delayMs });
    }
  };
  const windowOf = async (operationId: string) => {
    const row = await getExportOperation(ctx.store, operationId);
    return row ? `${row.exportName}|${row.firstDate}|${row.lastDate}` : operationId;
  };
  const report = () => {
    const left = new Set([...pending.values()].map((p) => String(p.continuation.args['operationId'])));
    ctx.progress.update(PROGRESS_TASK, seen.size - left.size, seen.size, 'operations');
  };
  const step = async (c: Continuation) => {
    const operationId = String(c.args['operationId']);
    try {
      enqueue(await advanceExport(ctx, s, operationId, c.args['poll'] as number | undefined));
      const row = await getExportOperation(ctx.store, operationId);
      if (row?.status.startsWith('COMPLETED')) failures.delete(await windowOf(operationId));
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      const error = err instanceof Error ? err : new Error(String(err));
      failures.set(await windowOf(operationId), error);
      if (error instanceof JobFailedError) enqueue(error.options.continuations ?? []);
      // Other failures (a download that keeps failing) are not retried here: the next run retries.
      ctx.log.error({ operationId, err: error.message }, 'export step failed');
    }
    report();
  };

  try {
    enqueue(await runExportsPass(ctx, s));
  } catch (err) {
    if (!(err instanceof JobFailedError)) throw err;
    failures.set('pass', err);
    enqueue(err.options.continuations ?? []);
  }
  report();

  const deadline = ctx.clock.now() + s.maxWait;
  let timedOut = false;
  if (mode === 'once') {
    const now = [...pending.values()];
    pending.clear();
    for (const p of now) await step(p.continuation);
  } else {
    while (pending.size > 0) {
      const next = [...pending.values()].reduce((a, b) => (b.dueAt < a.dueAt ? b : a));
      const waitMs = Math.max(0, next.dueAt - performance.now());
      if (ctx.clock.now() + waitMs > deadline) {
        timedOut = true;
        break;
      }
      // timers/promises removes its abort listener when the timer fires: no listener piles up.
      if (waitMs > 0) await sleep(waitMs, undefined, { signal: ctx.signal });
      pending.delete(next.continuation.id);
      await step(next.continuation);
    }
  }
  ctx.progress.end(PROGRESS_TASK);

  const continuations = [...pending.values()].map((p) => p.continuation);
  if (failures.size > 0) {
    const errors = [...failures.values()];
    const [first] = errors as [Error, ...Error[]];
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    throw new JobFailedError(`${first.message}${more}`, { continuations, cause: first.cause });
  }
  if (timedOut) {
    const running = new Set(continuations.map((c) => c.args['operationId'])).size;
    throw new JobFailedError(`${running} export(s) still RUNNING after waiting ${s.maxWait} ms (maxWait)`, {
      continuations,
    });
  }
  return { continuations };
}
