/**
 * `reset <job> [--scope <scope>…] [--yes]`: re-collect a stream from scratch by removing its cursor
 * (its row of sync_state), as Airbyte's and dlt's resets do. Without `--yes` it changes nothing and
 * says, per stream, what its cursor holds and what the next run will fetch and cost; with `--yes` it
 * removes the cursors, each in the transaction that serializes the stream's pages (a walk running
 * meanwhile finds its cursor gone and stops, writing nothing more). Stored rows stay: the next runs
 * write again only what changed (upserts on natural keys), so nothing is duplicated.
 */
import type { Config } from '../config/index.js';
import { shellWord } from '../config/invocation.js';
import type { Calls, Job, JobList, Stream } from '../kernel/index.js';
import { readCron } from '../queue/schedule.js';
import { assumedPages, estimateBackfill, NETWORK_LAUNCH_MS } from '../report/backfill.js';
import { closest } from '../runtime/closest.js';
import { cursorLock, deleteCursor, listCursors, type Store, type StoredCursor } from '../store/index.js';
import { formatCount, span } from '../terminal/units.js';
import { planBudget } from './budget.js';
import { tally } from './plan.js';
import { runnableJob, unknownJobMessage } from './run.js';
import { openExistingStore, UsageError } from './usage.js';

export interface ResetFlags {
  scope: string[];
  yes?: boolean | undefined;
  json?: boolean | undefined;
}

/** One stream `reset` acts on: its cursor now, and what the next run does without it. */
export interface StreamReset {
  scope: string;
  /** What it collects; null for a cursor the config no longer names. */
  label: string | null;
  /** What the cursor holds now, for people; null when there is none. */
  cursor: string | null;
  cursorUpdatedAt: string | null;
  /** The next run of the stream without its cursor; null when the config no longer names it. */
  nextRun: {
    reads: string;
    requests: number;
    computeUnits: number;
    /** A stream that reads its whole history again (rewards): the pages, units and time in all. */
    history?: { pages: number; computeUnits: number; seconds: number } | undefined;
  } | null;
}

export interface ResetPlan {
  job: string;
  /** True once the cursors were removed (`--yes`). */
  applied: boolean;
  streams: StreamReset[];
  /** Compute units of the next run of the streams reset. */
  nextRunComputeUnits: number;
}

const iso = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ')}Z`;

/**
 * What a stored cursor says, for people: the newest item reached (newest-first streams), the newest
 * bucket (usage metrics), an open segment, a first backfill's progress. Anything else: stored.
 */
export function describeCursor(text: string): string {
  let c: Record<string, unknown>;
  try {
    c = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return 'unreadable';
  }
  if (c === null || typeof c !== 'object') return 'stored';
  const parts: string[] = [];
  const mark = c.highWater as { ts?: unknown } | undefined;
  if (typeof mark?.ts === 'number') parts.push(`newest ${iso(mark.ts)}`);
  if (typeof c.lastBucket === 'number') parts.push(`newest bucket ${iso(c.lastBucket)}`);
  if (c.pending) parts.push('a segment open');
  const backfill = c.backfill as { pages?: unknown; items?: unknown } | undefined;
  if (typeof backfill?.pages === 'number') {
    const state = mark ? 'history read' : 'history being read';
    parts.push(`${state}: ${backfill.pages} page(s), ${String(backfill.items ?? 0)} item(s)`);
  }
  return parts.length > 0 ? parts.join('; ') : 'stored';
}

/** Pages the cursor's first backfill read, when it says (the best guess of the history's length). */
function pagesRead(text: string | undefined): number | undefined {
  try {
    const pages = (JSON.parse(text ?? 'null') as { backfill?: { pages?: unknown } } | null)?.backfill?.pages;
    return typeof pages === 'number' && pages > 0 ? pages : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The next run of a configured stream without its cursor. A history stream (rewards) reads its whole
 * history again: as many pages as its first backfill read (else the assumed rate over the network's
 * life), `maxPages` a run: its next run, and the whole of it.
 */
function nextRunOf(
  stream: Stream,
  cursor: StoredCursor | undefined,
  config: Config,
  job: Job,
  nowMs: number,
): StreamReset['nextRun'] {
  const first = tally(stream.firstRun);
  const h = stream.history;
  if (!h) return { reads: stream.reads, ...first };
  const pages =
    pagesRead(cursor?.cursor) ?? assumedPages(h.kind, h.ids, (nowMs - NETWORK_LAUNCH_MS) / 1000, h.pageSize);
  const runPages = Math.min(pages, h.maxPages);
  const next = tally(Object.fromEntries(Object.keys(stream.firstRun).map((k) => [k, runPages])) as Calls);
  const budget = planBudget(config);
  const when = job.schedule(config);
  const estimate = estimateBackfill([{ pagesLeft: pages }], {
    perMinute: budget.perMinute,
    perDay: budget.perDay,
    spentToday: 0,
    nowMs,
    maxPages: h.maxPages,
    runsPerDay: when ? readCron(when.schedule, config.service.timezone).runsPerDay() : 0,
  });
  return {
    reads: stream.reads,
    ...next,
    history: { pages, computeUnits: estimate.computeUnitsLeft, seconds: estimate.seconds },
  };
}

/** The streams `--scope` names (each a configured or stored scope), or every one. */
function select(job: Job, configured: readonly Stream[], stored: readonly StoredCursor[], scopes: string[]) {
  const known = [...new Set([...configured.map((s) => s.scope), ...stored.map((c) => c.scope)])];
  if (scopes.length === 0) return known;
  for (const scope of scopes) {
    if (known.includes(scope)) continue;
    const near = closest(scope, known);
    throw new UsageError(
      `${job.name} has no stream "${scope}"${near ? ` (did you mean "${near}"?)` : ''}; its streams: ${known.join(', ') || 'none'}`,
    );
  }
  return [...new Set(scopes)];
}

export async function planReset(
  config: Config,
  jobs: JobList,
  name: string,
  flags: ResetFlags,
  store: Store | undefined,
  nowMs = Date.now(),
): Promise<ResetPlan> {
  const job = runnableJob(jobs, name);
  if (!job) throw new UsageError(unknownJobMessage(jobs, name));
  if (!job.hasCursors) {
    const withCursors = jobs.filter((j) => j.scheduled && j.hasCursors).map((j) => j.name);
    throw new UsageError(
      `${job.name} keeps no cursor to reset (jobs that do: ${withCursors.join(', ')}); see docs/cli.md, "reset"`,
    );
  }
  const configured = job.streams(config) ?? [];
  const stored = store ? await listCursors(store, job.name) : [];
  const scopes = select(job, configured, stored, flags.scope);
  const streams = scopes.map((scope): StreamReset => {
    const stream = configured.find((s) => s.scope === scope);
    const cursor = stored.find((c) => c.scope === scope);
    return {
      scope,
      label: stream?.label ?? null,
      cursor: cursor ? describeCursor(cursor.cursor) : null,
      cursorUpdatedAt: cursor?.updatedAt ?? null,
      nextRun: stream ? nextRunOf(stream, cursor, config, job, nowMs) : null,
    };
  });
  return {
    job: job.name,
    applied: false,
    streams,
    nextRunComputeUnits: streams.reduce((n, s) => n + (s.cursor ? (s.nextRun?.computeUnits ?? 0) : 0), 0),
  };
}

/** Removes the cursors of the plan's streams, each under its stream's lock. */
async function applyReset(store: Store, plan: ResetPlan): Promise<void> {
  for (const s of plan.streams) {
    if (s.cursor === null) continue;
    await store.transaction((tx) => deleteCursor(tx, plan.job, s.scope), {
      lock: cursorLock(plan.job, s.scope),
    });
  }
}

export function formatReset(
  plan: ResetPlan,
  cli: string,
  flags: Pick<ResetFlags, 'scope'> = { scope: [] },
): string {
  const n = formatCount;
  const withCursor = plan.streams.filter((s) => s.cursor !== null);
  const lines = [`${plan.job}: ${plan.streams.length} stream(s), ${withCursor.length} with a cursor`];
  for (const s of plan.streams) {
    const r = s.nextRun;
    lines.push(
      `  ${s.scope}${s.label ? `  (${s.label})` : '  (not in the config any more)'}`,
      `    cursor now: ${s.cursor ?? 'none (the next run starts afresh anyway)'}`,
      `    next run:   ${
        r
          ? `${n(r.requests)} request(s), ${n(r.computeUnits)} CU: ${r.reads}${
              r.history
                ? `; in all ~${n(r.history.pages)} page(s), ${n(r.history.computeUnits)} CU, about ${span(r.history.seconds)} at the budget and schedule`
                : ''
            }`
          : 'none: nothing reads this cursor'
      }`,
    );
  }
  lines.push('');
  if (withCursor.length === 0) {
    lines.push(
      `Nothing to reset: ${plan.job} has no stored cursor there; its next run starts afresh as it is.`,
    );
  } else if (plan.applied) {
    lines.push(
      `Reset ${withCursor.length} cursor(s) of ${plan.job}: its next run fetches as above (${n(plan.nextRunComputeUnits)} CU). The rows stored stay; what is read again is written only where it changed.`,
    );
  } else {
    // The same streams as asked for: the scopes given (those with a cursor), or the whole job.
    const scopes = flags.scope.length ? withCursor.map((s) => ` --scope ${shellWord(s.scope)}`).join('') : '';
    lines.push(
      `Dry run: nothing changed. Resetting ${withCursor.length} cursor(s) makes the next run of ${plan.job} fetch as above (${n(plan.nextRunComputeUnits)} CU); the rows stored stay, and what is read again is written only where it changed.`,
      `To reset: ${cli} reset ${plan.job}${scopes} --yes`,
    );
  }
  return lines.join('\n');
}

/** `reset <job>`: the dry run, or with `--yes` the reset. */
export async function reset(
  config: Config,
  jobs: JobList,
  name: string,
  flags: ResetFlags & { cli: string },
): Promise<void> {
  const store = await openExistingStore(config);
  try {
    const plan = await planReset(config, jobs, name, flags, store);
    if (flags.yes && store) {
      await applyReset(store, plan);
      plan.applied = plan.streams.some((s) => s.cursor !== null);
    }
    console.log(flags.json ? JSON.stringify(plan, null, 2) : formatReset(plan, flags.cli, flags));
  } finally {
    await store?.close();
  }
}
