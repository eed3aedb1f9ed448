/**
 * Continuations run in-process, for `run <job>` (no queue): the job's handler, then the
 * continuations it asks for, each at its delay with the same context (one run, one `job_runs` row),
 * until none is left or the wait limit passes. In the service the same continuations are delayed
 * BullMQ jobs instead. With `once`, each continuation asked for by the first step runs once, at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Continuation,
  type HandlerOutcome,
  type InProcessFollowUps,
  type JobContext,
  JobFailedError,
  type JobResult,
} from './job.js';

type Step = (ctx: JobContext) => HandlerOutcome;

export interface FollowUps extends InProcessFollowUps {
  mode: 'once' | 'until-done';
  /** The step a continuation runs; undefined for a job that is unknown or not configured here. */
  resolve: (c: Continuation) => Step | undefined;
}

interface Pending {
  continuation: Continuation;
  /** performance.now() at which it is due. */
  dueAt: number;
}

export async function runFollowUps(
  task: string,
  first: Step,
  ctx: JobContext,
  o: FollowUps,
): Promise<JobResult> {
  const keyOf = async (c: Continuation) => (o.keyOf ? o.keyOf(c, ctx) : c.id);
  const pending = new Map<string, Pending & { key: string }>();
  const seen = new Set<string>();
  /** Failures by key: a later success of the same key (a retry) clears its failure. */
  const failures = new Map<string, Error>();
  const enqueue = async (cs: readonly Continuation[]) => {
    for (const c of cs) {
      const key = await keyOf(c);
      seen.add(key);
      if (!pending.has(c.id)) {
        pending.set(c.id, { continuation: c, key, dueAt: performance.now() + c.delayMs });
      }
    }
  };
  const report = () => {
    const left = new Set([...pending.values()].map((p) => p.key));
    ctx.progress.update(task, seen.size - left.size, seen.size, o.unit);
  };
  const attempt = async (key: string, step: Step) => {
    try {
      await enqueue((await step(ctx))?.continuations ?? []);
      failures.delete(key);
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      const error = err instanceof Error ? err : new Error(String(err));
      failures.set(key, error);
      if (error instanceof JobFailedError) await enqueue(error.options.continuations ?? []);
      // Other failures (a download that keeps failing) are not retried here: the next run retries.
      if (key !== task) ctx.log.error({ key, err: error.message }, `${task} step failed`);
    }
    report();
  };
  const run = async ({ continuation: c, key }: Pending & { key: string }) => {
    const step = o.resolve(c);
    if (step) await attempt(key, step);
    else failures.set(key, new Error(`continuation ${c.id}: job "${c.job}" cannot run here`));
  };

  await attempt(task, first);
  const errorOfFirst = failures.get(task);
  if (errorOfFirst && !(errorOfFirst instanceof JobFailedError)) throw errorOfFirst;

  const deadline = ctx.clock.now() + o.waitLimitMs;
  let timedOut = false;
  if (o.mode === 'once') {
    const now = [...pending.values()];
    pending.clear();
    for (const p of now) await run(p);
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
      await run(next);
    }
  }
  ctx.progress.end(task);

  const left = new Set([...pending.values()].map((p) => p.key)).size;
  const continuations = [...pending.values()].map((p) => p.continuation);
  if (failures.size > 0) {
    const errors = [...failures.values()];
    const [first_] = errors as [Error, ...Error[]];
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    throw new JobFailedError(`${first_.message}${more}`, { continuations, cause: first_.cause });
  }
  if (timedOut) {
    throw new JobFailedError(`${left} ${o.unit} still pending after waiting ${o.waitLimitMs} ms (maxWait)`, {
      continuations,
    });
  }
  return { continuations };
}
