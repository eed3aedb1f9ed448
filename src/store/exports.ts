import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Operation } from '../upstream/index.js';
import type { Store } from './open.js';
import { exportFiles, exportOperations } from './schema.js';

export type ExportOperationRow = typeof exportOperations.$inferSelect;

export interface ExportRequestRecord {
  exportName: string;
  firstDate: string;
  lastDate: string;
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

/** Persists a just-created operation: the first thing done with its id. */
export function recordExportOperation(
  store: Store,
  req: ExportRequestRecord,
  op: Operation,
  at: string,
): void {
  const history: HistoryEntry[] = [{ status: op.operationStatus, code: op.metadata?.code, at }];
  store.db
    .insert(exportOperations)
    .values({
      operationId: op.operationId,
      exportName: req.exportName,
      firstDate: req.firstDate,
      lastDate: req.lastDate,
      operationType: op.operationType,
      request: JSON.stringify(req.request),
      ...statusFields(op),
      createdAtMs: op.createdAtTimestamp,
      statusHistory: JSON.stringify(history),
      followUpOf: req.followUpOf ?? null,
      recordedAt: at,
    })
    .onConflictDoNothing()
    .run();
}

/** Records a status read; appends to the history when the status or code changed. Returns the row. */
export function updateExportOperation(
  store: Store,
  op: Operation,
  at: string,
): ExportOperationRow | undefined {
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
    polledAt: at,
  };
  store.db
    .update(exportOperations)
    .set(changes)
    .where(eq(exportOperations.operationId, op.operationId))
    .run();
  return { ...current, ...changes };
}

export function getExportOperation(store: Store, operationId: string): ExportOperationRow | undefined {
  return store.db.select().from(exportOperations).where(eq(exportOperations.operationId, operationId)).get();
}

/** Operations already started for a definition's window (a FAILED one does not block a new try). */
export function findLiveExport(
  store: Store,
  exportName: string,
  firstDate: string,
  lastDate: string,
): ExportOperationRow | undefined {
  return store.db
    .select()
    .from(exportOperations)
    .where(
      and(
        eq(exportOperations.exportName, exportName),
        eq(exportOperations.firstDate, firstDate),
        eq(exportOperations.lastDate, lastDate),
        sql`${exportOperations.status} <> 'FAILED'`,
      ),
    )
    .get();
}

export function listRunningExports(store: Store): ExportOperationRow[] {
  return store.db.select().from(exportOperations).where(eq(exportOperations.status, 'RUNNING')).all();
}

/** Finished operations whose file has not been downloaded yet. */
export function listExportsToDownload(store: Store): ExportOperationRow[] {
  return store.db
    .select({ op: exportOperations })
    .from(exportOperations)
    .leftJoin(exportFiles, eq(exportFiles.operationId, exportOperations.operationId))
    .where(
      and(
        inArray(exportOperations.status, ['COMPLETED', 'COMPLETED_WITH_WARNING']),
        isNull(exportFiles.operationId),
      ),
    )
    .all()
    .map((r) => r.op);
}

/** Truncated operations (WarnTruncatedExport) whose remainder has not been asked for yet. */
export function listTruncatedWithoutFollowUp(store: Store): ExportOperationRow[] {
  return store.db
    .select()
    .from(exportOperations)
    .where(
      and(
        eq(exportOperations.status, 'COMPLETED_WITH_WARNING'),
        eq(exportOperations.code, 'WarnTruncatedExport'),
        sql`${exportOperations.nextDate} IS NOT NULL`,
        sql`NOT EXISTS (SELECT 1 FROM export_operations f WHERE f.follow_up_of = ${exportOperations.operationId} AND f.status <> 'FAILED')`,
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
    .onConflictDoUpdate({ target: exportFiles.operationId, set: file })
    .run();
}
