import type { Operation } from '../upstream/index.js';
import { failRunIfRunning } from './runs.js';
import { exportClaims, exportFiles, exportOperations } from './schema.js';
import type { Sql } from './sql.js';
import { selectList } from './tables.js';

export type ExportOperationRow = typeof exportOperations.$inferSelect;
export type ExportFileRow = typeof exportFiles.$inferSelect;
export type ExportClaimRow = typeof exportClaims.$inferSelect;

/** A window of a definition as asked for: the claim's key without the attempt. */
export interface ExportWindowKey {
  exportName: string;
  firstDate: string;
  lastDate: string;
  requestHash: string;
}

/** The newest claim of a window, with the operation it led to (if the POST answered). */
export interface LatestClaim {
  claim: ExportClaimRow;
  operation: ExportOperationRow | undefined;
}

/** What the caller decided from the latest claim: take attempt `attempt`, or leave the window alone. */
export type ClaimDecision = { claim: number; takeOver?: boolean } | { skip: string };

const OPERATION = selectList(exportOperations);
const FILE = selectList(exportFiles);
const WINDOW = 'export_name = ? AND first_date = ? AND last_date = ? AND request_hash = ?';
const windowParams = (key: ExportWindowKey) => [key.exportName, key.firstDate, key.lastDate, key.requestHash];

/**
 * Claims a window in one transaction that holds the window's lock: reads its newest claim, lets
 * `decide` judge it, and writes the new claim. Two processes (or hosts) claiming at once take turns,
 * so only one of them ever POSTs a given window and attempt.
 */
export async function claimExportWindow(
  sql: Sql,
  key: ExportWindowKey,
  followUpOf: string | undefined,
  at: string,
  decide: (latest: LatestClaim | undefined) => ClaimDecision,
): Promise<ClaimDecision & { latest: LatestClaim | undefined }> {
  return sql.transaction(
    async (tx) => {
      const claim = await tx.get<ExportClaimRow>(
        `SELECT ${selectList(exportClaims)} FROM export_claims WHERE ${WINDOW} ORDER BY attempt DESC LIMIT 1`,
        windowParams(key),
      );
      const operation = claim?.operationId ? await getExportOperation(tx, claim.operationId) : undefined;
      const latest = claim ? { claim, operation } : undefined;
      const decision = decide(latest);
      if ('claim' in decision) {
        if (decision.takeOver) {
          await tx.run(`UPDATE export_claims SET claimed_at = ? WHERE ${WINDOW} AND attempt = ?`, [
            at,
            ...windowParams(key),
            decision.claim,
          ]);
        } else {
          await tx.run(
            `INSERT INTO export_claims (export_name, first_date, last_date, request_hash, attempt, follow_up_of, claimed_at)
             VALUES (?, ?, ?, ?, ?, ?, ?)`,
            [...windowParams(key), decision.claim, followUpOf ?? null, at],
          );
        }
      }
      return { ...decision, latest };
    },
    { lock: `export-window:${windowParams(key).join('/')}` },
  );
}

/** The POST failed in a way that may pass later (5xx, network): the claim is dropped, the window open again. */
export async function releaseExportClaim(sql: Sql, key: ExportWindowKey, attempt: number): Promise<void> {
  await sql.run(`DELETE FROM export_claims WHERE ${WINDOW} AND attempt = ? AND operation_id IS NULL`, [
    ...windowParams(key),
    attempt,
  ]);
}

/** The POST was refused (4xx): the claim keeps the error and the window stays closed. */
export async function refuseExportClaim(
  sql: Sql,
  key: ExportWindowKey,
  attempt: number,
  error: string,
): Promise<void> {
  await sql.run(`UPDATE export_claims SET error = ? WHERE ${WINDOW} AND attempt = ?`, [
    error,
    ...windowParams(key),
    attempt,
  ]);
}

export interface ExportRequestRecord extends ExportWindowKey {
  attempt: number;
  request: unknown;
  followUpOf?: string | undefined;
}

interface HistoryEntry {
  status: string;
  code?: string | undefined;
  at: string;
}

/** The columns an operation's every answer (creation or status read) sets, with their values. */
function statusFields(op: Operation): [string, unknown][] {
  return [
    ['status', op.operationStatus],
    ['code', op.metadata?.code ?? null],
    ['message', op.message ?? null],
    ['download_url', op.metadata?.downloadUrl ?? null],
    ['next_date', op.metadata?.nextDate ?? null],
    ['updated_at_ms', op.updatedAtTimestamp],
  ];
}

/**
 * Persists a just-created operation and ties its claim to it, in one transaction: the first thing
 * done with its id. Returns the row.
 */
export async function recordExportOperation(
  sql: Sql,
  req: ExportRequestRecord,
  op: Operation,
  at: string,
): Promise<ExportOperationRow> {
  const history: HistoryEntry[] = [{ status: op.operationStatus, code: op.metadata?.code, at }];
  const values: [string, unknown][] = [
    ['operation_id', op.operationId],
    ['export_name', req.exportName],
    ['first_date', req.firstDate],
    ['last_date', req.lastDate],
    ['operation_type', op.operationType],
    ['request', JSON.stringify(req.request)],
    ['request_hash', req.requestHash],
    ['attempt', req.attempt],
    ...statusFields(op),
    ['created_at_ms', op.createdAtTimestamp],
    ['status_history', JSON.stringify(history)],
    ['follow_up_of', req.followUpOf ?? null],
    ['recorded_at', at],
  ];
  return sql.transaction(async (tx) => {
    await tx.run(
      `INSERT INTO export_operations (${values.map(([c]) => c).join(', ')})
       VALUES (${values.map(() => '?').join(', ')}) ON CONFLICT DO NOTHING`,
      values.map(([, v]) => v),
    );
    await tx.run(`UPDATE export_claims SET operation_id = ? WHERE ${WINDOW} AND attempt = ?`, [
      op.operationId,
      ...windowParams(req),
      req.attempt,
    ]);
    return (await getExportOperation(tx, op.operationId)) as ExportOperationRow;
  });
}

/** Records a status read: counts it, appends to the history when the status or code changed. */
export async function recordExportStatus(
  sql: Sql,
  op: Operation,
  at: string,
): Promise<ExportOperationRow | undefined> {
  return sql.transaction(
    async (tx) => {
      const current = await getExportOperation(tx, op.operationId);
      if (!current) return undefined;
      const history = JSON.parse(current.statusHistory) as HistoryEntry[];
      const last = history.at(-1);
      if (!last || last.status !== op.operationStatus || last.code !== op.metadata?.code) {
        history.push({ status: op.operationStatus, code: op.metadata?.code, at });
      }
      const fields = statusFields(op);
      const statusHistory = JSON.stringify(history);
      const statusReads = current.statusReads + 1;
      await tx.run(
        `UPDATE export_operations SET ${fields.map(([c]) => `${c} = ?`).join(', ')},
           status_history = ?, status_reads = ?, polled_at = ?
         WHERE operation_id = ?`,
        [...fields.map(([, v]) => v), statusHistory, statusReads, at, op.operationId],
      );
      return (await getExportOperation(tx, op.operationId)) as ExportOperationRow;
    },
    { lock: `export-operation:${op.operationId}` },
  );
}

/** The collector stops polling an operation (still RUNNING after the timeout, or unknown upstream). */
export async function giveUpExportOperation(
  sql: Sql,
  operationId: string,
  reason: string,
  at: string,
): Promise<ExportOperationRow | undefined> {
  await sql.run('UPDATE export_operations SET gave_up_at = ?, message = ? WHERE operation_id = ?', [
    at,
    reason,
    operationId,
  ]);
  return getExportOperation(sql, operationId);
}

/**
 * A completed operation whose file the collector will not fetch (its host refused, or too large):
 * the reason replaces the upstream's message. It stays unfinished, so the next run checks again.
 */
export async function recordExportDownloadFailure(
  sql: Sql,
  operationId: string,
  reason: string,
): Promise<void> {
  await sql.run('UPDATE export_operations SET message = ? WHERE operation_id = ?', [reason, operationId]);
}

export function getExportOperation(sql: Sql, operationId: string): Promise<ExportOperationRow | undefined> {
  return sql.get<ExportOperationRow>(`SELECT ${OPERATION} FROM export_operations WHERE operation_id = ?`, [
    operationId,
  ]);
}

/** Every load status of an export file (export_files.load_status). */
export const EXPORT_LOAD_STATUSES = ['pending', 'loaded', 'unsupported', 'broken', 'failed'] as const;

/** Load statuses after which a file is not read again (until `run exports --reload`). */
export const FINAL_LOAD_STATUSES = ['loaded', 'unsupported', 'failed'] as const;
const FINAL_LOADS = FINAL_LOAD_STATUSES.map((status) => `'${status}'`).join(', ');

/**
 * Operations with work left: RUNNING ones still polled, and completed ones whose file is not
 * downloaded, not loaded yet, or broken (to be downloaded again). After a crash or a Redis loss,
 * the scheduled pass polls them again. A file judged unsupported or failed is done with.
 */
export function listUnfinishedExports(sql: Sql): Promise<ExportOperationRow[]> {
  return sql.all<ExportOperationRow>(
    `SELECT ${selectList(exportOperations, 'o')} FROM export_operations o
     LEFT JOIN export_files f ON f.operation_id = o.operation_id
     WHERE (o.status = 'RUNNING' AND o.gave_up_at IS NULL)
        OR (o.status IN ('COMPLETED', 'COMPLETED_WITH_WARNING') AND f.loaded_at IS NULL
            AND coalesce(f.load_status, 'pending') NOT IN (${FINAL_LOADS}))`,
  );
}

/**
 * Truncated operations (WarnTruncatedExport) whose remainder has not been claimed yet, and whose
 * file was readable: a remainder of an unsupported or failed file would only be unreadable too.
 */
export function listTruncatedWithoutFollowUp(sql: Sql): Promise<ExportOperationRow[]> {
  return sql.all<ExportOperationRow>(
    `SELECT ${selectList(exportOperations, 'o')} FROM export_operations o
     WHERE o.status = 'COMPLETED_WITH_WARNING' AND o.code = 'WarnTruncatedExport' AND o.next_date IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM export_claims c WHERE c.follow_up_of = o.operation_id)
       AND NOT EXISTS (SELECT 1 FROM export_files f WHERE f.operation_id = o.operation_id
         AND f.load_status IN ('unsupported', 'failed'))`,
  );
}

/**
 * Failed tries that may be retried: FAILED with any code but ErrInvalidRequest, or given up, with
 * `attempt <= maxRetries`, and no later claim on their window yet.
 */
export function listRetryableExports(sql: Sql, maxRetries: number): Promise<ExportOperationRow[]> {
  return sql.all<ExportOperationRow>(
    `SELECT ${selectList(exportOperations, 'o')} FROM export_operations o
     WHERE ((o.status = 'FAILED' AND coalesce(o.code, '') <> 'ErrInvalidRequest') OR o.gave_up_at IS NOT NULL)
       AND o.attempt <= ?
       AND NOT EXISTS (SELECT 1 FROM export_claims c WHERE c.export_name = o.export_name
         AND c.first_date = o.first_date AND c.last_date = o.last_date
         AND c.request_hash = o.request_hash AND c.attempt > o.attempt)`,
    [maxRetries],
  );
}

export interface ExportFileRecord {
  operationId: string;
  path: string;
  sizeBytes: number;
  sha256: string;
  downloadedAt: string;
}

/**
 * Records a complete download: a new file, or a new copy of one (its load starts over; the count
 * of broken copies is kept).
 */
export async function recordExportFile(sql: Sql, file: ExportFileRecord): Promise<void> {
  await sql.run(
    `INSERT INTO export_files (operation_id, path, size_bytes, sha256, downloaded_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (operation_id) DO UPDATE SET path = excluded.path, size_bytes = excluded.size_bytes,
       sha256 = excluded.sha256, downloaded_at = excluded.downloaded_at, rows_loaded = NULL, loaded_at = NULL,
       load_status = 'pending', load_error = NULL`,
    [file.operationId, file.path, file.sizeBytes, file.sha256, file.downloadedAt],
  );
}

export function getExportFile(sql: Sql, operationId: string): Promise<ExportFileRow | undefined> {
  return sql.get<ExportFileRow>(`SELECT ${FILE} FROM export_files WHERE operation_id = ?`, [operationId]);
}

/** The file's header has no usable key: kept and recorded, not read again until a reload. */
export async function markExportFileUnsupported(
  sql: Sql,
  operationId: string,
  reason: string,
): Promise<void> {
  await sql.run(
    `UPDATE export_files SET load_status = 'unsupported', load_error = ?, load_starts = 0, load_run_id = NULL
     WHERE operation_id = ?`,
    [reason, operationId],
  );
}

/** What `startExportLoad` found: the load may go on, or the file was judged failed now. */
export interface LoadStart {
  /** The file is `failed` now: `maxStarts` loads started before this one and none ended. */
  failed: boolean;
  /** The run that started the previous load and never ended it, if any. */
  interruptedRun: number | null;
  /** That run was still `running` and is now failed with the `interrupted` error given. */
  interruptedMarked: boolean;
  /** Loads started without an end before this one. */
  starts: number;
}

/**
 * Counts a load's start before it begins, committed on its own: a process that dies in a load (out
 * of memory on a hostile file) leaves it counted, and its run named. After `maxStarts` starts that
 * never ended, the file is `failed` instead of loaded once more (and killed once more, for ever).
 * The run that left the previous start (another run than `runId`, still `running`) is failed with
 * `interrupted.error` in the same transaction: a process that dies right after counting its own
 * start still leaves the previous run marked (two steps, that run stayed `running` for ever).
 */
export async function startExportLoad(
  sql: Sql,
  operationId: string,
  runId: number | undefined,
  maxStarts: number,
  interrupted: { at: string; error: string },
): Promise<LoadStart> {
  return sql.transaction(
    async (tx) => {
      const row = await tx.get<{ starts: number; runId: number | null }>(
        'SELECT load_starts AS starts, load_run_id AS "runId" FROM export_files WHERE operation_id = ?',
        [operationId],
      );
      const starts = Number(row?.starts ?? 0);
      const interruptedRun = row?.runId === null || row?.runId === undefined ? null : Number(row.runId);
      const interruptedMarked =
        interruptedRun !== null &&
        interruptedRun !== runId &&
        (await failRunIfRunning(tx, interruptedRun, interrupted.at, interrupted.error)) > 0;
      if (starts >= maxStarts) {
        await tx.run(
          `UPDATE export_files SET load_status = 'failed', load_run_id = NULL, load_error = ?
           WHERE operation_id = ?`,
          [
            `its load was started ${starts} times and never finished: the process died in it each time (out of memory?); given up (downloadAttempts ${maxStarts})`,
            operationId,
          ],
        );
        return { failed: true, interruptedRun, interruptedMarked, starts };
      }
      await tx.run(
        'UPDATE export_files SET load_starts = load_starts + 1, load_run_id = ? WHERE operation_id = ?',
        [runId ?? null, operationId],
      );
      return { failed: false, interruptedRun, interruptedMarked, starts };
    },
    { lock: `export-load:${operationId}` },
  );
}

/** A load that ended without loading (shut down, broken): its start does not count as a crash. */
export async function endExportLoad(sql: Sql, operationId: string): Promise<void> {
  await sql.run('UPDATE export_files SET load_starts = 0, load_run_id = NULL WHERE operation_id = ?', [
    operationId,
  ]);
}

/**
 * A copy of the file proved broken (it was deleted): counted; `broken` while fewer than
 * `maxCopies` copies were, then `failed`. Returns the row.
 */
export async function markExportFileBroken(
  sql: Sql,
  operationId: string,
  reason: string,
  maxCopies: number,
): Promise<ExportFileRow | undefined> {
  await sql.run(
    `UPDATE export_files SET broken_copies = broken_copies + 1, load_error = ?,
       load_status = CASE WHEN broken_copies + 1 >= ? THEN 'failed' ELSE 'broken' END,
       load_starts = 0, load_run_id = NULL
     WHERE operation_id = ?`,
    [reason, maxCopies, operationId],
  );
  return getExportFile(sql, operationId);
}

/**
 * `run exports --reload <name>`: the definition's files judged unsupported are read again from
 * disk, and those failed are downloaded again (their count of broken copies starts over). Returns
 * how many of each.
 */
export async function reopenExportFiles(
  sql: Sql,
  exportName: string,
): Promise<{ unsupported: number; failed: number }> {
  return sql.transaction(async (tx) => {
    const ofDefinition = 'operation_id IN (SELECT operation_id FROM export_operations WHERE export_name = ?)';
    const unsupported = await tx.run(
      `UPDATE export_files SET load_status = 'pending', load_error = NULL, load_starts = 0
       WHERE load_status = 'unsupported' AND ${ofDefinition}`,
      [exportName],
    );
    const failed = await tx.run(
      `UPDATE export_files SET load_status = 'broken', load_error = NULL, broken_copies = 0, load_starts = 0
       WHERE load_status = 'failed' AND ${ofDefinition}`,
      [exportName],
    );
    return { unsupported, failed };
  });
}

/** Whether any operation was made for the export definition `exportName`. */
export async function hasExportOperations(sql: Sql, exportName: string): Promise<boolean> {
  return (
    (await sql.get('SELECT 1 AS found FROM export_operations WHERE export_name = ? LIMIT 1', [
      exportName,
    ])) !== undefined
  );
}
