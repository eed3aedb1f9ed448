import { and, desc, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import type { Operation } from '../upstream/index.js';
import type { Store } from './open.js';
import { exportClaims, exportFiles, exportOperations } from './schema.js';

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

/**
 * Claims a window in one IMMEDIATE transaction: reads its newest claim, lets `decide` judge it, and
 * writes the new claim. Two processes claiming at once are serialized by SQLite's write lock, so
 * only one of them ever POSTs a given window and attempt.
 */
export function claimExportWindow(
  store: Store,
  key: ExportWindowKey,
  followUpOf: string | undefined,
  at: string,
  decide: (latest: LatestClaim | undefined) => ClaimDecision,
): ClaimDecision & { latest: LatestClaim | undefined } {
  return store.transaction(() => {
    const found = store.db
      .select({ claim: exportClaims, operation: exportOperations })
      .from(exportClaims)
      .leftJoin(exportOperations, eq(exportOperations.operationId, exportClaims.operationId))
      .where(windowWhere(key))
      .orderBy(desc(exportClaims.attempt))
      .limit(1)
      .get();
    const latest = found ? { claim: found.claim, operation: found.operation ?? undefined } : undefined;
    const decision = decide(latest);
    if ('claim' in decision) {
      if (decision.takeOver) {
        store.db
          .update(exportClaims)
          .set({ claimedAt: at })
          .where(and(windowWhere(key), eq(exportClaims.attempt, decision.claim)))
          .run();
      } else {
        store.db
          .insert(exportClaims)
          .values({ ...key, attempt: decision.claim, followUpOf: followUpOf ?? null, claimedAt: at })
          .run();
      }
    }
    return { ...decision, latest };
  });
}

function windowWhere(key: ExportWindowKey) {
  return and(
    eq(exportClaims.exportName, key.exportName),
    eq(exportClaims.firstDate, key.firstDate),
    eq(exportClaims.lastDate, key.lastDate),
    eq(exportClaims.requestHash, key.requestHash),
  );
}

/** The POST failed in a way that may pass later (5xx, network): the claim is dropped, the window open again. */
export function releaseExportClaim(store: Store, key: ExportWindowKey, attempt: number): void {
  store.db
    .delete(exportClaims)
    .where(and(windowWhere(key), eq(exportClaims.attempt, attempt), isNull(exportClaims.operationId)))
    .run();
}

/** The POST was refused (4xx): the claim keeps the error and the window stays closed. */
export function refuseExportClaim(store: Store, key: ExportWindowKey, attempt: number, error: string): void {
  store.db
    .update(exportClaims)
    .set({ error })
    .where(and(windowWhere(key), eq(exportClaims.attempt, attempt)))
    .run();
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

/** The columns an operation's every answer (creation or status read) sets. */
function statusFields(op: Operation) {
  return {
    status: op.operationStatus,
    code: op.metadata?.code ?? null,
    message: op.message ?? null,
    downloadUrl: op.metadata?.downloadUrl ?? null,
    nextDate: op.metadata?.nextDate ?? null,
    updatedAtMs: op.updatedAtTimestamp,
  };
}

/**
 * Persists a just-created operation and ties its claim to it, in one transaction: the first thing
 * done with its id. Returns the row.
 */
export function recordExportOperation(
  store: Store,
  req: ExportRequestRecord,
  op: Operation,
  at: string,
): ExportOperationRow {
  const history: HistoryEntry[] = [{ status: op.operationStatus, code: op.metadata?.code, at }];
  return store.transaction(() => {
    store.db
      .insert(exportOperations)
      .values({
        operationId: op.operationId,
        exportName: req.exportName,
        firstDate: req.firstDate,
        lastDate: req.lastDate,
        operationType: op.operationType,
        request: JSON.stringify(req.request),
        requestHash: req.requestHash,
        attempt: req.attempt,
        ...statusFields(op),
        createdAtMs: op.createdAtTimestamp,
        statusHistory: JSON.stringify(history),
        followUpOf: req.followUpOf ?? null,
        recordedAt: at,
      })
      .onConflictDoNothing()
      .run();
    store.db
      .update(exportClaims)
      .set({ operationId: op.operationId })
      .where(and(windowWhere(req), eq(exportClaims.attempt, req.attempt)))
      .run();
    return getExportOperation(store, op.operationId) as ExportOperationRow;
  });
}

/** Records a status read: counts it, appends to the history when the status or code changed. */
export function recordExportStatus(store: Store, op: Operation, at: string): ExportOperationRow | undefined {
  return store.transaction(() => {
    const current = getExportOperation(store, op.operationId);
    if (!current) return undefined;
    const history = JSON.parse(current.statusHistory) as HistoryEntry[];
    const last = history.at(-1);
    if (!last || last.status !== op.operationStatus || last.code !== op.metadata?.code) {
      history.push({ status: op.operationStatus, code: op.metadata?.code, at });
    }
    const changes = {
      ...statusFields(op),
      statusHistory: JSON.stringify(history),
      statusReads: current.statusReads + 1,
      polledAt: at,
    };
    store.db
      .update(exportOperations)
      .set(changes)
      .where(eq(exportOperations.operationId, op.operationId))
      .run();
    return { ...current, ...changes };
  });
}

/** The collector stops polling an operation (still RUNNING after the timeout, or unknown upstream). */
export function giveUpExportOperation(
  store: Store,
  operationId: string,
  reason: string,
  at: string,
): ExportOperationRow | undefined {
  store.db
    .update(exportOperations)
    .set({ gaveUpAt: at, message: reason })
    .where(eq(exportOperations.operationId, operationId))
    .run();
  return getExportOperation(store, operationId);
}

export function getExportOperation(store: Store, operationId: string): ExportOperationRow | undefined {
  return store.db.select().from(exportOperations).where(eq(exportOperations.operationId, operationId)).get();
}

const isCompleted = inArray(exportOperations.status, ['COMPLETED', 'COMPLETED_WITH_WARNING']);

/**
 * Operations with work left: RUNNING ones still polled, and completed ones whose file is not
 * downloaded or not loaded yet. After a crash or a Redis loss, the scheduled pass polls them again.
 */
export function listUnfinishedExports(store: Store): ExportOperationRow[] {
  return store.db
    .select({ op: exportOperations })
    .from(exportOperations)
    .leftJoin(exportFiles, eq(exportFiles.operationId, exportOperations.operationId))
    .where(
      or(
        and(eq(exportOperations.status, 'RUNNING'), isNull(exportOperations.gaveUpAt)),
        and(isCompleted, isNull(exportFiles.loadedAt)),
      ),
    )
    .all()
    .map((r) => r.op);
}

/** Truncated operations (WarnTruncatedExport) whose remainder has not been claimed yet. */
export function listTruncatedWithoutFollowUp(store: Store): ExportOperationRow[] {
  return store.db
    .select()
    .from(exportOperations)
    .where(
      and(
        eq(exportOperations.status, 'COMPLETED_WITH_WARNING'),
        eq(exportOperations.code, 'WarnTruncatedExport'),
        sql`${exportOperations.nextDate} IS NOT NULL`,
        sql`NOT EXISTS (SELECT 1 FROM export_claims c WHERE c.follow_up_of = ${exportOperations.operationId})`,
      ),
    )
    .all();
}

/**
 * Failed tries that may be retried: FAILED with any code but ErrInvalidRequest, or given up, with
 * `attempt <= maxRetries`, and no later claim on their window yet.
 */
export function listRetryableExports(store: Store, maxRetries: number): ExportOperationRow[] {
  return store.db
    .select()
    .from(exportOperations)
    .where(
      and(
        or(
          and(
            eq(exportOperations.status, 'FAILED'),
            sql`coalesce(${exportOperations.code}, '') <> 'ErrInvalidRequest'`,
          ),
          sql`${exportOperations.gaveUpAt} IS NOT NULL`,
        ),
        lte(exportOperations.attempt, maxRetries),
        sql`NOT EXISTS (SELECT 1 FROM export_claims c WHERE c.export_name = ${exportOperations.exportName}
          AND c.first_date = ${exportOperations.firstDate} AND c.last_date = ${exportOperations.lastDate}
          AND c.request_hash = ${exportOperations.requestHash} AND c.attempt > ${exportOperations.attempt})`,
      ),
    )
    .all();
}

export interface ExportFileRecord {
  operationId: string;
  path: string;
  sizeBytes: number;
  sha256: string;
  downloadedAt: string;
}

export function recordExportFile(store: Store, file: ExportFileRecord): void {
  store.db
    .insert(exportFiles)
    .values(file)
    .onConflictDoUpdate({
      target: exportFiles.operationId,
      set: { ...file, rowsLoaded: null, loadedAt: null },
    })
    .run();
}

export function getExportFile(store: Store, operationId: string): ExportFileRow | undefined {
  return store.db.select().from(exportFiles).where(eq(exportFiles.operationId, operationId)).get();
}

/** Forgets a downloaded file (it proved unreadable): the next poll downloads it again. */
export function deleteExportFile(store: Store, operationId: string): void {
  store.db.delete(exportFiles).where(eq(exportFiles.operationId, operationId)).run();
}
