/**
 * The one run path: `runJob` runs a job by its definition for `run <job>`, the worker and the demo
 * alike. A run goes: definition → payload (from the config and the job data) → the `job_runs` row
 * opened → the handler (and, for `run <job>`, its continuations in-process) → the row closed → the
 * outcome classified once (outcome.ts). The queue only translates that outcome into BullMQ's words.
 */
import type { Config } from '../config/index.js';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';
import { scrubSecrets } from '../runtime/secrets.js';
import {
  DEFAULT_SET_ASIDE_ROOM,
  failAbandonedRuns,
  finishJobRun,
  type JobRunResult,
  NOTHING_RECORDED,
  type RecordedFindings,
  recordFindings,
  type SetAsideRoom,
  type Sql,
  type Store,
  startJobRun,
} from '../store/index.js';
import { createMeter, type DataApiClient, type RejectReason } from '../upstream/index.js';
import { type FollowUps, runFollowUps } from './follow-ups.js';
import {
  type CommitOptions,
  type Continuation,
  findJob,
  type Job,
  type JobArgs,
  type JobContext,
  JobFailedError,
  type JobHandler,
  type JobList,
  type ProgressSink,
  silentProgress,
  type Written,
} from './job.js';
import { classifyFailure, type Failure } from './outcome.js';
import { retryRejectedRecords } from './retry-rejected.js';

/** The instances a run needs, built once by the entry point (src/service/app.ts). */
export interface RunDeps {
  client: DataApiClient;
  store: Store;
  log: Logger;
  clock: Clock;
  /** Strings that must never reach the database or the logs, whatever an error says (the API key). */
  secrets?: readonly string[];
}

export interface RunSummary {
  job: string;
  scope: string;
  /** Its `job_runs` row; undefined when the run could not even be recorded (the database is down). */
  runId: number | undefined;
  status: 'succeeded' | 'failed';
  rowsWritten: number;
  /**
   * Rows deleted per table (the maintenance job), apart from `rowsWritten`: its `job_runs` row's
   * `rows_removed` (NULL when empty), a failed run's too (what its committed batches deleted).
   */
  rowsRemoved: Record<string, number>;
  requests: number;
  computeUnits: number;
  /** Records the run set aside for the first time, per reason (not those seen again). */
  rejected: Partial<Record<RejectReason, number>>;
  /** Records new to rejected_records beyond the run's cap (`setAside`): counted, not kept. */
  setAsideDropped?: number;
  durationMs: number;
  error?: Error | undefined;
  /** The error and its causes as one line, secrets scrubbed: what job_runs and the queue keep. */
  errorMessage?: string | undefined;
  /** A failed run's outcome: what the queue does next, and the reason metrics count. */
  failure?: Failure | undefined;
  continuations: Continuation[];
}

export interface RunRequest {
  config: Config;
  /** Job data: a continuation's args. */
  args?: JobArgs;
  /** `job_runs.scope`: which slot or queued job this run is. @defaultValue 'all' */
  scope?: string;
  signal?: AbortSignal;
  progress?: ProgressSink;
  /**
   * `run <job>`: run the continuations here, within this run, instead of returning them for the
   * queue: `until-done` waits for them (up to the job's wait limit), `once` runs each once.
   */
  followUps?: 'until-done' | 'once';
  /** The job list continuations are looked up in (with `followUps`). */
  jobs?: JobList;
  /**
   * `run <job> --retry-rejected`: instead of the handler, the job's records set aside are checked
   * again and those that pass stored (retry-rejected.ts); no request to the API.
   */
  retryRejected?: boolean;
  /**
   * The queue handed this run over from a worker that stopped (killed, host gone): that worker's
   * run of the same scope is marked failed ("interrupted") before this one starts.
   */
  takenOverBy?: string;
}

/** Runs a job by its definition; never throws (the summary says how it went). */
export async function runJob(job: Job, deps: RunDeps, request: RunRequest): Promise<RunSummary> {
  const scope = request.scope ?? 'all';
  const prepared = job.prepare(request.config, request.args);
  if (!prepared) return notConfigured(job, scope);
  if (request.takenOverBy) await markInterrupted(job.name, scope, request.takenOverBy, deps);

  let run: JobHandler<undefined> = (_, ctx) => prepared.run(ctx);
  if (request.retryRejected) {
    const restore = job.restore;
    if (!restore) {
      const error = new JobFailedError(`${job.name} sets no records aside: nothing to retry`, {
        unrecoverable: true,
      });
      return {
        ...notConfigured(job, scope),
        error,
        errorMessage: error.message,
        failure: classifyFailure(error),
      };
    }
    return runHandler(
      job.name,
      async (_: undefined, ctx: JobContext) => {
        await retryRejectedRecords(job.name, await restore(), ctx);
      },
      undefined,
      deps,
      {
        scope: request.scope ?? 'retry-rejected',
        setAsideCap: setAsideCap(request.config),
        ...(request.signal && { signal: request.signal }),
        ...(request.progress && { progress: request.progress }),
      },
    );
  }
  if (request.followUps) {
    const { config, jobs = [] } = request;
    const followUps: FollowUps = {
      mode: request.followUps,
      waitLimitMs: 0,
      unit: 'steps',
      ...prepared.inProcess,
      resolve: (c) => {
        const next = findJob(jobs, c.job)?.prepare(config, c.args);
        return next && ((ctx) => next.run(ctx));
      },
    };
    run = (_, ctx) => runFollowUps(job.name, (c) => prepared.run(c), ctx, followUps);
  }
  return runHandler(job.name, run, undefined, deps, {
    scope,
    setAsideCap: setAsideCap(request.config),
    ...(request.signal && { signal: request.signal }),
    ...(request.progress && { progress: request.progress }),
  });
}

/**
 * The run itself, from a handler and its payload (tests call handlers this way): a `job_runs` row
 * before and after, requests and compute units counted by a meter of its own, and one log line with
 * the outcome. A database that cannot record the run (it went away) fails the run, as the handler's
 * own error would: the queue retries it.
 */
export async function runHandler<P>(
  job: string,
  handler: JobHandler<P>,
  payload: P,
  deps: RunDeps,
  options: {
    scope?: string;
    signal?: AbortSignal;
    progress?: ProgressSink;
    /** @defaultValue DEFAULT_SET_ASIDE_ROOM */
    setAsideCap?: SetAsideRoom;
  } = {},
): Promise<RunSummary> {
  const scope = options.scope ?? 'all';
  const started = deps.clock.now();
  const meter = createMeter();
  let runId: number | undefined;
  const cap = options.setAsideCap ?? DEFAULT_SET_ASIDE_ROOM;
  const books = newBooks(cap);
  const { rowsRemoved, rejected } = books;
  let continuations: Continuation[] = [];
  let error: Error | undefined;
  try {
    runId = await startJobRun(deps.store, job, scope, new Date(started).toISOString());
  } catch (err) {
    // Without its row the handler does not run: nothing it wrote could be told apart.
    error = new Error('could not record the start of the run in job_runs', { cause: err });
  }
  // One child logger per run, its id bound once known: a child of a child costs pino as much again.
  const log = deps.log.child(runId === undefined ? { job, scope } : { job, scope, runId });
  if (runId !== undefined) {
    const signal = options.signal ?? new AbortController().signal;
    const ctx = createJobContext(
      job,
      {
        runId,
        client: deps.client.scoped({ meter, signal }),
        store: deps.store,
        log,
        clock: deps.clock,
        signal,
        progress: options.progress,
        secrets: deps.secrets,
      },
      books,
    );
    try {
      continuations = (await handler(payload, ctx))?.continuations ?? [];
    } catch (err) {
      error = asError(err);
    }
  }
  const usage = meter.snapshot();
  const finished = deps.clock.now();
  const describe = (e: Error) => scrubSecrets(describeError(e), deps.secrets ?? []);
  if (runId !== undefined) {
    try {
      await finishJobRun(deps.store, runId, {
        status: error ? 'failed' : 'succeeded',
        finishedAt: new Date(finished).toISOString(),
        rowsWritten: books.rowsWritten,
        rowsRemoved,
        requests: usage.requests,
        computeUnits: usage.computeUnits,
        error: error ? describe(error) : undefined,
      });
    } catch (err) {
      // The run fails whatever the handler did (what it committed stays), and the queue retries it;
      // its row is closed `failed` once the database answers again, not left `running`.
      const recordError = new Error('could not record the end of the run in job_runs', { cause: err });
      if (error) log.error({ err: describe(recordError) }, recordError.message);
      recordEndLater(deps, log, runId, {
        status: 'failed',
        finishedAt: new Date(finished).toISOString(),
        rowsWritten: books.rowsWritten,
        rowsRemoved,
        requests: usage.requests,
        computeUnits: usage.computeUnits,
        error: `interrupted: ${describe(recordError)}; recorded once the database answered again (the run had ${error ? `failed: ${describe(error)}` : 'succeeded'}; the queue retries the job)`,
      });
      error ??= recordError;
    }
  }
  const message = error ? describe(error) : undefined;
  const summary: RunSummary = {
    job,
    scope,
    runId,
    status: error ? 'failed' : 'succeeded',
    rowsWritten: books.rowsWritten,
    rowsRemoved,
    requests: usage.requests,
    computeUnits: usage.computeUnits,
    rejected,
    ...(books.setAsideDropped > 0 && { setAsideDropped: books.setAsideDropped }),
    durationMs: finished - started,
    error,
    errorMessage: message,
    failure: error ? classifyFailure(error) : undefined,
    // A JobFailedError may still ask for follow-ups; any other failure drops them.
    continuations: !error
      ? continuations
      : error instanceof JobFailedError
        ? (error.options.continuations ?? [])
        : [],
  };
  const line = {
    status: summary.status,
    rowsWritten: books.rowsWritten,
    ...(Object.keys(rowsRemoved).length > 0 && { rowsRemoved }),
    requests: usage.requests,
    computeUnits: usage.computeUnits,
    ...(Object.keys(rejected).length > 0 && { setAside: rejected }),
    durationMs: summary.durationMs,
  };
  if (books.setAsideDropped > 0) {
    log.warn(
      {
        dropped: books.setAsideDropped,
        maxRecordsPerRun: cap.records,
        maxBytesPerRun: cap.bytes,
      },
      "records set aside beyond the run's cap were counted, not kept (setAside.maxRecordsPerRun, setAside.maxBytesPerRun; glacier_rejected_records_dropped_total): the upstream sends many bad records, see status and rejected_records",
    );
  }
  if (error) log.error({ ...line, err: message }, 'job run failed');
  else log.info(line, 'job run');
  return summary;
}

/** What a run counts of what it committed: its `job_runs` row's figures. */
export interface RunBooks {
  rowsWritten: number;
  /** Rows deleted per table (`countRemoved`). */
  rowsRemoved: Record<string, number>;
  /** Records set aside for the first time, per reason. */
  rejected: Partial<Record<RejectReason, number>>;
  /** What the run may still set aside (its cap, less what it kept). */
  setAsideRoom: SetAsideRoom;
  /** Records beyond the cap: counted, not kept. */
  setAsideDropped: number;
}

export function newBooks(cap: Readonly<SetAsideRoom> = DEFAULT_SET_ASIDE_ROOM): RunBooks {
  return { rowsWritten: 0, rowsRemoved: {}, rejected: {}, setAsideRoom: { ...cap }, setAsideDropped: 0 };
}

/** A run's cap on records set aside, from the config's `setAside` section. */
export function setAsideCap(config: Pick<Config, 'setAside'>): SetAsideRoom {
  return { records: config.setAside.maxRecordsPerRun, bytes: config.setAside.maxBytesPerRun };
}

/** What a context is made of: the instances of the run, before the kernel adds its bookkeeping. */
export type ContextParts = Pick<JobContext, 'runId' | 'client' | 'store' | 'log' | 'clock' | 'signal'> & {
  progress?: ProgressSink | undefined;
  secrets?: readonly string[] | undefined;
};

/**
 * A job's context over `parts`, its books kept in `books` (the run's figures): `runHandler` makes
 * one per run; a test or a bench that drives a handler's parts (the walk) alone makes its own.
 */
export function createJobContext(job: string, parts: ContextParts, books: RunBooks = newBooks()): JobContext {
  const secrets = parts.secrets ?? [];
  const countRows = (n: number) => {
    books.rowsWritten += n;
  };
  return {
    ...parts,
    job,
    commit: (work, options) =>
      commitAndCount(parts, job, secrets, work, options, books.setAsideRoom, countRows, (recorded) =>
        noteFindings(parts.log, recorded, books),
      ),
    countRows,
    countRemoved: (table, n) => {
      books.rowsRemoved[table] = (books.rowsRemoved[table] ?? 0) + n;
    },
    progress: parts.progress ?? silentProgress,
    secrets,
  };
}

/**
 * The commit-order rule, in one place: the work and its findings in one transaction, then (only
 * once it committed) its rows counted and its findings noted. A transaction that rolls back counts
 * nothing and notes nothing, so the run's figures are what the database holds.
 */
async function commitAndCount<W extends Written>(
  parts: Pick<ContextParts, 'store' | 'clock'>,
  job: string,
  secrets: readonly string[],
  work: (tx: Sql) => Promise<W | undefined>,
  options: CommitOptions | undefined,
  room: Readonly<SetAsideRoom>,
  countRows: (n: number) => void,
  note: (recorded: RecordedFindings) => void,
): Promise<W | undefined> {
  const committed = await parts.store.transaction(
    async (tx) => {
      const written = await work(tx);
      if (written === undefined) return undefined;
      const where = options?.where ?? { scope: 'all', context: {} };
      const recorded = written.findings
        ? await recordFindings(
            tx,
            written.findings,
            {
              ...where,
              job: where.job ?? job,
              at: new Date(parts.clock.now()).toISOString(),
              scrub: (text) => scrubSecrets(text, secrets),
            },
            room,
          )
        : NOTHING_RECORDED;
      return { written, recorded };
    },
    options?.lock === undefined ? undefined : { lock: options.lock },
  );
  if (committed === undefined) return undefined;
  countRows(committed.written.rows);
  note(committed.recorded);
  return committed.written;
}

/** Records set aside logged one by one per run; the rest are counted in the run's line (`setAside`). */
export const SET_ASIDE_LINES_PER_RUN = 10;

/**
 * The log lines of what a committed page set aside or saw for the first time (upstream text in them
 * is bounded and escaped by the checks), the first SET_ASIDE_LINES_PER_RUN records of the run each;
 * the run's count per reason and what is left of its room.
 */
function noteFindings(log: Logger, recorded: RecordedFindings, books: RunBooks): void {
  const counts = books.rejected;
  books.setAsideRoom.records -= recorded.newRecords.length;
  books.setAsideRoom.bytes -= recorded.newBytes;
  books.setAsideDropped += recorded.dropped;
  for (const r of recorded.newRecords) {
    const logged = Object.values(counts).reduce((a, b) => a + b, 0);
    counts[r.reason] = (counts[r.reason] ?? 0) + 1;
    if (logged >= SET_ASIDE_LINES_PER_RUN) continue;
    log.warn(
      {
        recordId: r.recordId,
        endpoint: r.endpoint,
        scope: r.scope,
        reason: r.reason,
        fields: r.fields,
        problems: r.problems,
      },
      'record set aside: it failed its schema or a bound; the rest of its page was stored (rejected_records)',
    );
  }
  for (const d of recorded.newDrift) {
    log.warn(
      { endpoint: d.endpoint, kind: d.kind, name: d.name },
      d.kind === 'field'
        ? 'the upstream sent a field the OpenAPI does not list (stored as sent; upstream_drift)'
        : 'the upstream sent an enum value the OpenAPI does not list (stored as sent; upstream_drift)',
    );
  }
}

/** A job whose config section is absent: nothing runs, nothing is recorded, and retrying cannot help. */
function notConfigured(job: Job, scope: string): RunSummary {
  const error = new JobFailedError(`jobs.${job.configKey} is not configured`, { unrecoverable: true });
  return {
    job: job.name,
    scope,
    runId: undefined,
    status: 'failed',
    rowsWritten: 0,
    rowsRemoved: {},
    requests: 0,
    computeUnits: 0,
    rejected: {},
    durationMs: 0,
    error,
    errorMessage: error.message,
    failure: classifyFailure(error),
    continuations: [],
  };
}

/** How long the end of a run is tried again while the database is away, and how often at most. */
const RECORD_END_FOR_MS = 6 * 3_600_000;
const RECORD_END_EVERY_MS = 5_000;

/**
 * Records the end of a run whose row could not be closed (the database away) in the background: tried
 * again at 0.5, 1, 2, 4 then every 5 s, for up to 6 hours, one line when it lands. Stops on a store
 * that was closed (the process shutting down: the next run's take-over marks it then).
 */
function recordEndLater(deps: RunDeps, log: Logger, runId: number, result: JobRunResult): void {
  const until = deps.clock.now() + RECORD_END_FOR_MS;
  let delay = 500;
  const attempt = () => {
    finishJobRun(deps.store, runId, result).then(
      () =>
        log.warn(
          { runId },
          'the end of a run that could not be recorded is recorded now: failed, interrupted',
        ),
      (err: Error) => {
        if (/after calling end|closed|not open/i.test(err.message) || deps.clock.now() > until) return;
        delay = Math.min(delay * 2, RECORD_END_EVERY_MS);
        setTimeout(attempt, delay).unref();
      },
    );
  };
  setTimeout(attempt, delay).unref();
}

/** The run a stopped worker left `running` says so, rather than `running` for ever. */
async function markInterrupted(job: string, scope: string, takenOverBy: string, deps: RunDeps) {
  try {
    const marked = await failAbandonedRuns(deps.store, {
      job,
      scope,
      at: new Date(deps.clock.now()).toISOString(),
      error: `interrupted: its worker stopped before the run finished; the job was taken over by ${takenOverBy}`,
    });
    if (marked > 0) deps.log.warn({ job, scope, runs: marked }, 'run of a stopped worker marked failed');
  } catch (err) {
    // The new run goes ahead: its own row records what happens next.
    deps.log.warn({ job, scope, err: (err as Error).message }, 'could not mark the stopped run failed');
  }
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** The error's message with its causes: "[GET] /v1/transactions: 503 …: caused by …". */
export function describeError(error: Error): string {
  const parts = [error.message];
  let cause = error.cause;
  for (let depth = 0; cause instanceof Error && depth < 3; depth++) {
    parts.push(`caused by ${cause.message}`);
    cause = cause.cause;
  }
  return parts.join(': ');
}
