/**
 * The steps of one export operation's life, each safe to run again after a crash at any point:
 * create (claim, POST, record), read its status, download its file, load its rows, continue a
 * truncated export, retry a failed one. Each step ends by saying what should run next, as
 * continuations (`export-poll` jobs); the queue delays them, `run exports` sleeps them in-process.
 */

import { excerpt } from '../escape/excerpt.js';
import {
  type Continuation,
  describeError,
  type JobContext,
  JobFailedError,
  scrubSecrets,
} from '../kernel/index.js';
import { JOB_NAMES } from '../kernel/job-names.js';
import {
  claimExportWindow,
  type ExportOperationRow,
  FINAL_LOAD_STATUSES,
  getExportFile,
  getExportOperation,
  giveUpExportOperation,
  recordExportOperation,
  recordExportStatus,
  refuseExportClaim,
  releaseExportClaim,
} from '../store/index.js';
import {
  type CreateExportRequest,
  isUnrecoverable,
  type Operation,
  UpstreamHttpError,
  type WithFindings,
} from '../upstream/index.js';
import { ensureLoaded } from './files.js';
import { describeOperation, type ExportsSettings, iso } from './operation.js';
import { decideClaim, isRetryableFailure, pollDelayMs, retryBackoffMs } from './policy.js';
import { followUpRequest } from './requests.js';

export type { ExportsSettings };

const COMPLETED = new Set(['COMPLETED', 'COMPLETED_WITH_WARNING']);

/** The next `export-poll` of an operation; its id repeats until a status read is recorded, so it dedupes. */
export function pollContinuation(row: ExportOperationRow, s: ExportsSettings): Continuation {
  const running = row.status === 'RUNNING' && !row.gaveUpAt;
  return {
    job: JOB_NAMES.exportPoll,
    args: { operationId: row.operationId, poll: row.statusReads },
    delayMs: running ? pollDelayMs(row.statusReads, s) : 0,
    id: `${JOB_NAMES.exportPoll}|${row.operationId}|${row.statusReads}`,
  };
}

/**
 * The export window a continuation moves forward: in-process (`run exports`), a retry that
 * completes the window clears the failure of its earlier try.
 */
export async function windowOf(c: Continuation, ctx: Pick<JobContext, 'store'>): Promise<string> {
  const operationId = String(c.args['operationId']);
  const row = await getExportOperation(ctx.store, operationId);
  return row ? `${row.exportName}|${row.firstDate}|${row.lastDate}` : operationId;
}

/**
 * A poll for an operation that still has work left (running, or its file not loaded); none
 * otherwise. Found RUNNING by a new run (a `run exports` after one that stopped at `maxWait`, a
 * scheduled pass), its status is read at once rather than after the growing poll interval; in the
 * queue, the delayed poll already waiting has the same id, so this one is deduped away.
 */
async function continuationsFor(
  ctx: JobContext,
  s: ExportsSettings,
  row: ExportOperationRow | undefined,
): Promise<Continuation[]> {
  if (!row) return [];
  if (row.status === 'RUNNING' && !row.gaveUpAt) return [{ ...pollContinuation(row, s), delayMs: 0 }];
  const load = (await getExportFile(ctx.store, row.operationId))?.loadStatus;
  if (COMPLETED.has(row.status) && !(FINAL_LOAD_STATUSES as readonly string[]).includes(load ?? '')) {
    return [pollContinuation(row, s)];
  }
  return [];
}

export interface WindowRequest {
  exportName: string;
  firstDate: string;
  lastDate: string;
  body: CreateExportRequest;
  requestHash: string;
  followUpOf?: string | null | undefined;
}

/**
 * Claims the window, POSTs it and records the operation. Returns the continuations that follow:
 * a poll of the new operation, or of the live operation that already covers the window.
 */
export async function startExport(
  ctx: JobContext,
  s: ExportsSettings,
  req: WindowRequest,
  options: { ignoreBackoff?: boolean } = {},
): Promise<Continuation[]> {
  const key = {
    exportName: req.exportName,
    firstDate: req.firstDate,
    lastDate: req.lastDate,
    requestHash: req.requestHash,
  };
  const window = `${req.exportName} ${req.firstDate}..${req.lastDate}`;
  const decision = await claimExportWindow(ctx.store, key, req.followUpOf ?? undefined, iso(ctx), (latest) =>
    decideClaim(latest, s, ctx.clock.now(), options),
  );
  if ('skip' in decision) {
    const log = decision.skip.includes('ErrInvalidRequest') ? ctx.log.warn : ctx.log.debug;
    log.call(ctx.log, { window, reason: decision.skip }, 'export window not asked for');
    return continuationsFor(ctx, s, decision.latest?.operation);
  }
  if (decision.takeOver) {
    ctx.log.warn(
      { window, attempt: decision.claim },
      'export claim abandoned by a crashed run: asking again (an orphan export may exist upstream)',
    );
  }
  let created: ExportOperationRow;
  try {
    const op = scrubbed(
      ctx,
      await noteDrift(ctx, await ctx.client.createTransactionExport(req.body, { signal: ctx.signal })),
    );
    created = await recordExportOperation(
      ctx.store,
      { ...key, attempt: decision.claim, request: req.body, followUpOf: req.followUpOf ?? undefined },
      op,
      iso(ctx),
    );
  } catch (err) {
    // Interrupted: the POST may have reached the API, so the claim stays (a crash, in effect).
    if (ctx.signal.aborted) throw err;
    if (isUnrecoverable(err)) {
      const reason = scrubSecrets(describeError(err as Error), ctx.secrets ?? []);
      await refuseExportClaim(ctx.store, key, decision.claim, reason);
    } else {
      await releaseExportClaim(ctx.store, key, decision.claim);
    }
    throw err;
  }
  ctx.countRows(1);
  ctx.log.info(
    { operationId: created.operationId, window, attempt: created.attempt, followUpOf: req.followUpOf },
    'export started',
  );
  if (created.status === 'FAILED') throw failureOf(created, s);
  return [pollContinuation(created, s)];
}

/**
 * The error that fails the run which saw an operation fail: final for ErrInvalidRequest and when
 * no retry is left; otherwise it carries the delayed `export-poll` that makes the retry.
 */
export function failureOf(row: ExportOperationRow, s: ExportsSettings, cause?: unknown): JobFailedError {
  const what = describeOperation(row);
  // The message is the upstream's (scrubbed when recorded): quoted as a short excerpt.
  const message = row.message === null ? 'no message' : excerpt(row.message);
  const reason = row.gaveUpAt ? `given up: ${message}` : `FAILED with ${row.code ?? 'no code'}: ${message}`;
  if (!isRetryableFailure(row)) {
    return new JobFailedError(`${what} ${reason}; not asked for again until the definition changes`, {
      unrecoverable: true,
      cause,
    });
  }
  if (row.attempt > s.maxRetries) {
    return new JobFailedError(`${what} ${reason}; no retry left (maxRetries ${s.maxRetries})`, {
      unrecoverable: true,
      cause,
    });
  }
  const delayMs = retryBackoffMs(row.attempt, s);
  const retry = { ...pollContinuation(row, s), delayMs };
  return new JobFailedError(`${what} ${reason}; retry ${row.attempt} of ${s.maxRetries} in ${delayMs} ms`, {
    unrecoverable: true,
    continuations: [retry],
    cause,
  });
}

/**
 * One step of an operation (the `export-poll` job): read its status once if it runs, then download
 * and load a finished file, continue a truncated export, or retry a failed one. `poll` is the
 * number of status reads the continuation was made after: a stale one (reads were recorded since)
 * only rejoins the current chain.
 */
export async function advanceExport(
  ctx: JobContext,
  s: ExportsSettings,
  operationId: string,
  poll?: number,
): Promise<Continuation[]> {
  let row = await getExportOperation(ctx.store, operationId);
  if (!row) {
    throw new JobFailedError(`export operation ${operationId} is not in the database`, {
      unrecoverable: true,
    });
  }
  if (row.gaveUpAt || row.status === 'FAILED') return retryFailed(ctx, s, row, { ignoreBackoff: true });
  if (row.status === 'RUNNING') {
    if (poll !== undefined && poll < row.statusReads) return [pollContinuation(row, s)];
    if (ctx.clock.now() - Date.parse(row.recordedAt) > s.timeout) {
      const reason = `still RUNNING after ${s.timeout} ms (the timeout setting)`;
      throw failureOf(await giveUp(ctx, row, reason), s);
    }
    let op: Awaited<ReturnType<JobContext['client']['getOperation']>>;
    try {
      op = scrubbed(
        ctx,
        await noteDrift(ctx, await ctx.client.getOperation(operationId, { signal: ctx.signal })),
      );
    } catch (err) {
      if (err instanceof UpstreamHttpError && err.status === 404) {
        throw failureOf(await giveUp(ctx, row, 'unknown to the API (404)'), s, err);
      }
      throw err;
    }
    row = (await recordExportStatus(ctx.store, op, iso(ctx))) ?? row;
    ctx.countRows(1);
    if (row.status === 'RUNNING') return [pollContinuation(row, s)];
    ctx.log.info({ operationId, status: row.status, code: row.code }, 'export finished');
    if (row.status === 'FAILED') throw failureOf(row, s);
  }
  if (!COMPLETED.has(row.status)) {
    throw new JobFailedError(`${describeOperation(row)} has an unknown status ${row.status}`, {
      unrecoverable: true,
    });
  }
  // A file judged unsupported or failed before (a stale poll) leaves its window as it is.
  if ((await ensureLoaded(ctx, s, row)) !== 'loaded') return [];
  if (row.status === 'COMPLETED_WITH_WARNING' && row.code === 'WarnTruncatedExport') {
    return continueTruncated(ctx, s, row);
  }
  return [];
}

/** An operation answer's drift (fields and enum values the OpenAPI does not list), recorded and logged once. */
async function noteDrift(ctx: JobContext, op: WithFindings<Operation>): Promise<Operation> {
  const { findings, ...operation } = op;
  if (findings) {
    const where = { job: JOB_NAMES.exports, scope: 'operations', context: {} };
    await ctx.commit(async () => ({ rows: 0, findings }), { where });
  }
  return operation;
}

/** An operation whose message (upstream text, stored and logged) holds no secret. */
function scrubbed(ctx: JobContext, op: Operation): Operation {
  return op.message === undefined ? op : { ...op, message: scrubSecrets(op.message, ctx.secrets ?? []) };
}

async function giveUp(ctx: JobContext, row: ExportOperationRow, reason: string): Promise<ExportOperationRow> {
  const updated = (await giveUpExportOperation(ctx.store, row.operationId, reason, iso(ctx))) ?? row;
  ctx.countRows(1);
  ctx.log.error({ operationId: row.operationId, reason }, 'export given up');
  return updated;
}

/** A failed (or given up) try: the next try of its window, once, when retries are left. */
export async function retryFailed(
  ctx: JobContext,
  s: ExportsSettings,
  row: ExportOperationRow,
  options: { ignoreBackoff?: boolean } = {},
): Promise<Continuation[]> {
  if (!isRetryableFailure(row) || row.attempt > s.maxRetries) return [];
  return startExport(
    ctx,
    s,
    {
      exportName: row.exportName,
      firstDate: row.firstDate,
      lastDate: row.lastDate,
      body: JSON.parse(row.request) as CreateExportRequest,
      requestHash: row.requestHash,
      followUpOf: row.followUpOf,
    },
    options,
  );
}

/** After WarnTruncatedExport: the same request from `nextDate`, until the range is covered. */
export async function continueTruncated(
  ctx: JobContext,
  s: ExportsSettings,
  row: ExportOperationRow,
): Promise<Continuation[]> {
  if (!row.nextDate || row.nextDate > row.lastDate) return [];
  return startExport(ctx, s, {
    exportName: row.exportName,
    firstDate: row.nextDate,
    lastDate: row.lastDate,
    body: followUpRequest(row.request, row.nextDate),
    requestHash: row.requestHash,
    followUpOf: row.operationId,
  });
}
