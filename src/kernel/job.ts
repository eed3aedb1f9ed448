/**
 * The job contract: what a job is (its definition), what its handler is given (the context), what
 * it may return (continuations) and how it fails on purpose (`JobFailedError`). Jobs in jobs/ stand
 * on this file alone; the kernel's `runJob` (run.ts) is the one function that runs them.
 */
import type { Config, JobsConfig } from '../config/index.js';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';
import type { FindingsSource, RejectedRecordRow, Sql, Store } from '../store/index.js';
import type { EndpointName } from '../upstream/endpoints.js';
import type { DataApiClient, Findings, RejectedRecord } from '../upstream/index.js';

/**
 * Where a page's findings came from, as a handler says it (the kernel adds the time and the scrub,
 * and the job: the run's own, unless the data belongs to another, as an export file's rows found by
 * an `export-poll` run belong to `exports`).
 */
export type FindingsWhere = Pick<FindingsSource, 'scope' | 'keyPrefix' | 'context'> & { job?: string };

/**
 * What a job does with a record it set aside when `run <job> --retry-rejected` checks it again:
 * the record's rows written (it passed today's checks and was stored through `tx`), or why it still
 * fails. The record's `context` says what storing it needs (its network, its series...).
 */
export type RestoreOutcome = { stored: number } | { rejected: RejectedRecord };
export type RestoreRecord = (tx: Sql, record: RejectedRecordRow, at: string) => Promise<RestoreOutcome>;

/** A record's `context` (the collector's own JSON) as an object; empty if it is not one. */
export function contextOf(record: Pick<RejectedRecordRow, 'context'>): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(record.context);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/**
 * What one transaction of a job wrote, as its `work` returns it to `ctx.commit`: the rows written
 * (new or changed) and what the checks of the answer behind them found (records set aside, drift),
 * which the kernel records in the same transaction. More members may ride along: `commit` hands the
 * whole object back once committed.
 */
export interface Written {
  rows: number;
  findings?: Findings | undefined;
}

export interface CommitOptions {
  /** Serializes the transactions naming the same key (a stream's cursor lock: `cursorLock`). */
  lock?: string | undefined;
  /**
   * Where the findings came from (the job is the run's own unless it says another).
   * @defaultValue `{ scope: 'all', context: {} }`
   */
  where?: FindingsWhere | undefined;
}

/**
 * The one way a job writes: runs `work` in one transaction and records the findings it returns in
 * that same transaction; once it committed, the kernel counts its rows in the run's `rows_written`
 * and notes its findings (a log line per record set aside and per drift name seen for the first
 * time, `glacier_records_rejected_total`), so a run that fails half-way still says what it committed.
 * `work` resolving to undefined means nothing to write: the transaction commits empty, nothing is
 * counted, and `commit` resolves to undefined. What `work` throws rolls it all back and is thrown.
 */
export type Commit = <W extends Written>(
  work: (tx: Sql) => Promise<W | undefined>,
  options?: CommitOptions,
) => Promise<W | undefined>;

/** What a job handler gets: the real instances, built once by the entry point. */
export interface JobContext {
  /** The run's job name (a follow-up run in-process runs within its parent's run, under its name). */
  job: string;
  /** The run's `job_runs` id (what a load in progress names, so that a crash in it is told). */
  runId?: number | undefined;
  client: DataApiClient;
  store: Store;
  log: Logger;
  clock: Clock;
  signal: AbortSignal;
  /** Writes through one transaction and keeps the run's books of it (see `Commit`). */
  commit: Commit;
  /**
   * Counts rows that a store function wrote in a transaction of its own (an export operation
   * recorded): what `commit` does for the work it runs. Call it right after that function returns.
   */
  countRows(n: number): void;
  /**
   * Counts rows a committed transaction deleted from `table` (the maintenance job's pruning): they
   * add to the run's `rows_removed` for that table (never to its `rows_written`: deleting is not
   * writing) and to the `glacier_rows_pruned_total` counter of that table. Call it
   * right after each commit, as `countRows`: a run cut short still records what it deleted.
   */
  countRemoved(table: string, n: number): void;
  /** Progress of long work (a backfill, a download), for a terminal; a no-op elsewhere. */
  progress: ProgressSink;
  /** What must never be stored or logged (the API key…): upstream text a handler stores goes through scrubSecrets. */
  secrets?: readonly string[];
}

/** What long work reports; the CLI draws it in a terminal, everything else ignores it. */
export interface ProgressSink {
  /** `done` of `total` (unknown total: undefined) units of the named task; `unit` e.g. 'pages', 'bytes'. */
  update(task: string, done: number, total?: number, unit?: string): void;
  /** The named task is over (its bar is removed). */
  end(task: string): void;
}

export const silentProgress: ProgressSink = { update: () => undefined, end: () => undefined };

/**
 * Follow-up work a run asks for (an export's next status read). In the service it becomes a delayed
 * BullMQ job; for `run <job>` the kernel runs it in-process, at its delay, within the same run.
 */
export interface Continuation {
  /** A job name of jobs/index.ts. */
  job: string;
  /** Job data: small and secret-free; merged over that job's payload built from the current config. */
  args: Record<string, unknown>;
  delayMs: number;
  /** Dedupe id: a continuation asked for twice (a retried run) is enqueued once. No ':' in it. */
  id: string;
}

/**
 * A failed run that still asks for follow-up work (an export FAILED upstream with ErrInternal: the
 * run fails so monitoring sees it, and a retry is scheduled). `unrecoverable`: retrying this same
 * run cannot help, so the queue does not retry it (the continuations are the retry).
 */
export class JobFailedError extends Error {
  override readonly name = 'JobFailedError';
  constructor(
    message: string,
    readonly options: { continuations?: Continuation[]; unrecoverable?: boolean; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
  }
}

export interface JobResult {
  continuations?: Continuation[];
}

/** What a handler resolves to: its continuations, or nothing (an async function without `return`). */
export type HandlerOutcome = Promise<JobResult | undefined> | Promise<void>;

/** A job: a plain function that knows nothing of BullMQ. `run <job>` and the worker both call it. */
export type JobHandler<P> = (payload: P, ctx: JobContext) => HandlerOutcome;

/**
 * What a definition runs, imported on first use: a definition is read by every command (`config
 * check`, `plan`, `--help`'s completions), the code it runs (the store, the HTTP client) only by a run.
 */
export type Lazy<T> = () => Promise<T>;

/** Requests of one run, per endpoint (compute units follow from endpoints.ts). */
export type Calls = Partial<Record<EndpointName, number>>;

/** What one run costs: every stream up to date (one page each) and every stream reading `maxPages`. */
export interface RunCost {
  steady: Calls;
  worst: Calls;
  /**
   * Requests of a run with nothing new (everything collected, nothing due): the fewest it can
   * make, which `npm run bench`'s steady-state figure holds the job's idle run against.
   * @defaultValue steady
   */
  idle?: Calls | undefined;
  note?: string | undefined;
  /** Rows one run adds to the job's `table` at most, steady and worst (for `plan`'s rows per day). */
  rows?: { steady: number; worst: number } | undefined;
  /**
   * Requests a run and its follow-ups make within one minute at most, when fewer than `worst`
   * (exports: the worst case's polls are spread over hours): what `plan` holds against the budget
   * per minute. @defaultValue worst
   */
  burst?: Calls | undefined;
}

/**
 * One stream of a job: one cursor in `sync_state` (job, scope). `reset` lists them, says what the
 * next run of a stream without its cursor fetches, and removes the cursor.
 */
export interface Stream {
  /** The cursor's scope in sync_state. */
  scope: string;
  /** What it collects, for people: "mainnet, all statuses", "3 addresses from avax1h2cc…". */
  label: string;
  /** Requests the next run makes for it without a cursor (its first run, bounded by `maxPages`). */
  firstRun: Calls;
  /** What that first run reads, and what follows it, for people. */
  reads: string;
  /** A stream whose first runs read its whole history (rewards): what `reset` estimates in all. */
  history?: { kind: 'addresses' | 'nodeIds'; ids: number; pageSize: number; maxPages: number } | undefined;
}

/** The config section of a job, with the keys every section has. */
type Section<K extends keyof JobsConfig> = NonNullable<JobsConfig[K]>;

/** Free-form job data: a continuation's args (`operationId`). Never a secret. */
export type JobArgs = Readonly<Record<string, unknown>>;

export interface InProcessFollowUps {
  /** How long `run <job>` waits for the continuations to finish, ms. */
  waitLimitMs: number;
  /** What one continuation key is, for the progress bar (`operations`). */
  unit: string;
  /**
   * What a continuation moves forward (an export window): a later step of the same key that
   * succeeds clears an earlier failure of it (a retry that worked). @defaultValue its `id`
   */
  keyOf?: (c: Continuation, ctx: JobContext) => Promise<string>;
}

/** A job bound to a config and job data: its handler with the payload built, ready for `runJob`. */
export interface PreparedJob {
  readonly name: string;
  run(ctx: JobContext): HandlerOutcome;
  /** How `run <job>` runs its continuations in-process, when it has any. */
  readonly inProcess: InProcessFollowUps | undefined;
}

/**
 * Everything about one job, declared once in its file under jobs/: the CLI (`run`), the scheduler,
 * the worker, `plan`, `status` and the metrics all read it.
 */
export interface Job {
  /** As the CLI, the queue and `job_runs` know it. */
  readonly name: string;
  /** Its section under `jobs:` in the config file. */
  readonly configKey: keyof JobsConfig;
  /** Fired by the scheduler on the section's `schedule`; false for follow-ups only the queue starts. */
  readonly scheduled: boolean;
  /** The table its runs' `rows_written` grow (`status`'s growth per day, `plan`'s rows per day). */
  readonly table: string | undefined;
  /**
   * Whether its runs delete rows (maintenance): `rows_removed` per table; its runs recorded before
   * that column existed put the total in `rows_written` (`status`'s rows pruned per day reads both).
   */
  readonly prunes?: boolean | undefined;
  /** How it stores a record it set aside once it passes (`run <job> --retry-rejected`); none: it sets none aside. */
  readonly restore: Lazy<RestoreRecord> | undefined;
  /** The section's schedule settings, when the job is configured. */
  schedule(config: Config): { schedule: string; enabled: boolean; runOnStart: boolean } | undefined;
  /** The job bound to a config and job data; undefined when its section is absent. */
  prepare(config: Config, args?: JobArgs): PreparedJob | undefined;
  /** Requests per run, for `plan` (scheduled jobs only). */
  cost(config: Config): RunCost | undefined;
  /**
   * Its streams as configured, each with its cursor (`reset`); undefined for a job that keeps no
   * cursor, or whose section is absent.
   */
  streams(config: Config): Stream[] | undefined;
  /** Whether it keeps cursors in sync_state at all. */
  readonly hasCursors: boolean;
  /** Whether `start` fires a run at once (its spec's `firstRunAtStart`); false without its section. */
  needsFirstRun(config: Config, store: Store): Promise<boolean>;
}

export interface JobSpec<K extends keyof JobsConfig, P> {
  name: string;
  configKey: K;
  /** Its handler, imported when a run starts (`async () => (await import('./x.js')).x`). */
  handler: Lazy<JobHandler<P>>;
  /** The handler's payload from its config section and the job data (and the whole config, rarely needed). */
  payload: (section: Section<K>, args: JobArgs, config: Config) => P;
  /** Omit for a job only the queue starts. */
  cost?: (section: Section<K>) => RunCost;
  /** For a job with continuations: how long `run <job>` waits for them (e.g. exports' `maxWait`), and
   * what its progress counts. */
  inProcess?: (section: Section<K>) => InProcessFollowUps;
  /** @defaultValue true */
  scheduled?: boolean;
  /** The table its runs' `rows_written` grow, if one. */
  table?: string;
  /** @defaultValue false: true for a job whose runs delete rows (`countRemoved`). */
  prunes?: boolean;
  /** How it stores a record it set aside, checked again (`run <job> --retry-rejected`); imported on use. */
  restore?: Lazy<RestoreRecord>;
  /** Its streams and their cursors' scopes, for a job that keeps cursors (`reset`). */
  streams?: (section: Section<K>) => Stream[];
  /**
   * Whether `start` fires a run at once although `runOnStart` is false: a first read the schedule
   * would leave waiting (rewards: a configured subject never read, on an hourly schedule).
   */
  firstRunAtStart?: (section: Section<K>, store: Store) => Promise<boolean>;
}

/** Declares a job; the payload is typed against its own section, so no caller needs a cast. */
export function defineJob<K extends keyof JobsConfig, P>(spec: JobSpec<K, P>): Job {
  const sectionOf = (config: Config) => config.jobs[spec.configKey] as Section<K> | undefined;
  return {
    name: spec.name,
    configKey: spec.configKey,
    scheduled: spec.scheduled ?? true,
    table: spec.table,
    prunes: spec.prunes ?? false,
    restore: spec.restore,
    schedule(config) {
      const section = sectionOf(config);
      if (!section) return undefined;
      const { schedule, enabled, runOnStart } = section;
      return { schedule, enabled, runOnStart };
    },
    prepare(config, args = {}) {
      const section = sectionOf(config);
      if (!section) return undefined;
      const payload = spec.payload(section, args, config);
      return {
        name: spec.name,
        run: async (ctx) => {
          const handler = await spec.handler();
          return (await handler(payload, ctx)) ?? undefined;
        },
        inProcess: spec.inProcess?.(section),
      };
    },
    cost(config) {
      const section = sectionOf(config);
      return section && spec.cost ? spec.cost(section) : undefined;
    },
    streams(config) {
      const section = sectionOf(config);
      return section && spec.streams ? spec.streams(section) : undefined;
    },
    hasCursors: spec.streams !== undefined,
    async needsFirstRun(config, store) {
      const section = sectionOf(config);
      return section && spec.firstRunAtStart ? spec.firstRunAtStart(section, store) : false;
    },
  };
}

/** A config section without the keys that only say when to run it. */
export function withoutSchedule<S extends { schedule: string; enabled: boolean; runOnStart: boolean }>(
  section: S,
): Omit<S, 'schedule' | 'enabled' | 'runOnStart'> {
  const { schedule: _s, enabled: _e, runOnStart: _r, ...rest } = section;
  return rest;
}

/** The jobs the collector knows, as the entry point hands them to the service, `status`, `plan`. */
export type JobList = readonly Job[];

export function findJob(jobs: JobList, name: string): Job | undefined {
  return jobs.find((j) => j.name === name);
}
