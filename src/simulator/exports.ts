/**
 * Transaction export operations. The outcome is settled when the operation is created (dates,
 * range, failure markers) and revealed after `runningMs` of clock time; until then it is RUNNING
 * and its updatedAtTimestamp advances once a second. Timestamps are milliseconds.
 *
 * Outcomes:
 * - a date that is not a real `YYYY-MM-DD`, or firstDate after lastDate → FAILED, ErrInvalidRequest
 *   (the request itself is well formed, so creation answers 201, as the real API does);
 * - an address containing INTERNAL_ERROR_MARKER (`simfail`, or `deadfa11` in a valid EVM address) →
 *   FAILED, ErrInternal (a deterministic way to test it);
 * - more than `maxRangeDays` days → COMPLETED_WITH_WARNING, WarnTruncatedExport, nextDate = the first
 *   day not exported; the file holds the first maxRangeDays days;
 * - otherwise COMPLETED. Both completed states carry metadata.downloadUrl.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../runtime/clock.js';
import type { ExportRequest } from './export-request.js';
import type { OperationStatusCode, OperationStatusResponse } from './types.js';

export const INTERNAL_ERROR_MARKER = 'simfail';
/** The same marker in hex digits, so a valid EVM address can carry it (a config accepts only those). */
export const INTERNAL_ERROR_HEX_MARKER = 'deadfa11';
const DAY_MS = 86_400_000;
const PROGRESS_TICK_MS = 1_000;

import type { CsvColumnSpec, CsvDefect } from './csv.js';

/** Range when firstDate is omitted: the week ending on lastDate. */
const DEFAULT_RANGE_DAYS = 7;
/**
 * An operation is forgotten this long after its creation (clock time), and at most MAX_OPERATIONS
 * are kept, oldest forgotten first: a simulator that runs for weeks holds a bounded number. A
 * forgotten operation answers 404, like an unknown one; its download too.
 */
export const OPERATION_KEEP_MS = 7 * DAY_MS;
export const MAX_OPERATIONS = 10_000;

export interface ExportSettings {
  /** How long an operation stays RUNNING, ms of clock time. @defaultValue 5000 */
  runningMs: number;
  /** Longest range exported by one operation, days. @defaultValue 31 */
  maxRangeDays: number;
  /** CSV rows per exported day. @defaultValue 500 */
  rowsPerDay: number;
  /** A download's pace, bytes a second (a slow link: the window a fault test kills in); unlimited when absent. */
  bytesPerSecond?: number | undefined;
  /** The files' columns, when not the simulator's own (csv.ts). */
  fileColumns?: readonly CsvColumnSpec[] | undefined;
  /** A defect in every file (csv.ts). */
  fileDefect?: CsvDefect | undefined;
}

type Outcome =
  | { status: 'COMPLETED'; firstDay: number; lastDay: number }
  | { status: 'COMPLETED_WITH_WARNING'; firstDay: number; lastDay: number; nextDate: string }
  | {
      status: 'FAILED';
      code: Extract<OperationStatusCode, 'ErrInvalidRequest' | 'ErrInternal'>;
      message: string;
    };

export interface OperationRecord {
  id: string;
  request: ExportRequest;
  createdAt: number;
  outcome: Outcome;
  downloadToken: string;
}

export interface ExportedRange {
  record: OperationRecord;
  /** Days since the epoch, inclusive. */
  firstDay: number;
  lastDay: number;
}

export interface OperationStore {
  create(request: ExportRequest): OperationRecord;
  get(id: string): OperationRecord | undefined;
  view(record: OperationRecord, downloadBase: string): OperationStatusResponse;
  /** The range of a finished, downloadable export whose token matches; undefined otherwise. */
  downloadable(id: string, token: string): ExportedRange | undefined;
  /** Operations held now. */
  size(): number;
}

export function formatDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** Days since the epoch of a `YYYY-MM-DD` that names a real date; undefined otherwise. */
export function parseDay(text: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const ms = Date.parse(`${text}T00:00:00Z`);
  if (Number.isNaN(ms) || formatDay(ms / DAY_MS) !== text) return undefined;
  return ms / DAY_MS;
}

export function downloadPath(record: OperationRecord): string {
  return `/downloads/${record.id}/${record.downloadToken}.csv`;
}

export function createOperationStore(deps: { clock: Clock; settings: ExportSettings }): OperationStore {
  const records = new Map<string, OperationRecord>();
  const { settings } = deps;

  function settle(request: ExportRequest, now: number): Outcome {
    const firstText = request.firstDate;
    const lastText = request.lastDate;
    const lastDay = lastText === undefined ? Math.floor(now / DAY_MS) : parseDay(lastText);
    if (lastDay === undefined) {
      return {
        status: 'FAILED',
        code: 'ErrInvalidRequest',
        message: `Invalid lastDate '${lastText}': expected YYYY-MM-DD`,
      };
    }
    const firstDay = firstText === undefined ? lastDay - (DEFAULT_RANGE_DAYS - 1) : parseDay(firstText);
    if (firstDay === undefined) {
      return {
        status: 'FAILED',
        code: 'ErrInvalidRequest',
        message: `Invalid firstDate '${firstText}': expected YYYY-MM-DD`,
      };
    }
    if (firstDay > lastDay) {
      return { status: 'FAILED', code: 'ErrInvalidRequest', message: 'firstDate must not be after lastDate' };
    }
    const addresses = [...request.addresses, ...(request.cChainEvmAddresses ?? [])];
    const failing = (a: string) =>
      a.toLowerCase().includes(INTERNAL_ERROR_MARKER) || a.toLowerCase().includes(INTERNAL_ERROR_HEX_MARKER);
    if (addresses.some(failing)) {
      return {
        status: 'FAILED',
        code: 'ErrInternal',
        message: 'Internal error while exporting transactions',
      };
    }
    if (lastDay - firstDay + 1 > settings.maxRangeDays) {
      const cut = firstDay + settings.maxRangeDays - 1;
      return { status: 'COMPLETED_WITH_WARNING', firstDay, lastDay: cut, nextDate: formatDay(cut + 1) };
    }
    return { status: 'COMPLETED', firstDay, lastDay };
  }

  /** Forgets old operations: insertion order is creation order, so the loop stops at the first kept one. */
  function forget(now: number): void {
    for (const [id, record] of records) {
      if (records.size <= MAX_OPERATIONS && record.createdAt + OPERATION_KEEP_MS >= now) break;
      records.delete(id);
    }
  }

  /** Forgetting happens on create; between two creates, an old operation already reads as gone. */
  function find(id: string): OperationRecord | undefined {
    const record = records.get(id);
    return record && record.createdAt + OPERATION_KEEP_MS >= deps.clock.now() ? record : undefined;
  }

  return {
    create(request) {
      const now = deps.clock.now();
      forget(now);
      const record: OperationRecord = {
        id: randomUUID(),
        request,
        createdAt: now,
        outcome: settle(request, now),
        downloadToken: randomBytes(24).toString('base64url'),
      };
      records.set(record.id, record);
      if (records.size > MAX_OPERATIONS) forget(now);
      return record;
    },
    get: find,
    view(record, downloadBase) {
      const now = deps.clock.now();
      const base = {
        operationId: record.id,
        operationType: record.request.type,
        createdAtTimestamp: record.createdAt,
      };
      const doneAt = record.createdAt + settings.runningMs;
      if (now < doneAt) {
        const elapsed = Math.max(0, now - record.createdAt);
        const percent = Math.floor((100 * elapsed) / Math.max(1, settings.runningMs));
        return {
          ...base,
          operationStatus: 'RUNNING',
          message: `Transaction export in progress (${percent}%)`,
          updatedAtTimestamp: record.createdAt + Math.floor(elapsed / PROGRESS_TICK_MS) * PROGRESS_TICK_MS,
        };
      }
      const { outcome } = record;
      const downloadUrl = `${downloadBase}${downloadPath(record)}`;
      switch (outcome.status) {
        case 'COMPLETED':
          return {
            ...base,
            operationStatus: 'COMPLETED',
            message: 'Transaction export completed',
            metadata: { downloadUrl },
            updatedAtTimestamp: doneAt,
          };
        case 'COMPLETED_WITH_WARNING':
          return {
            ...base,
            operationStatus: 'COMPLETED_WITH_WARNING',
            message: `The range exceeds ${settings.maxRangeDays} days: exported up to ${formatDay(outcome.lastDay)}; continue from nextDate`,
            metadata: { code: 'WarnTruncatedExport', downloadUrl, nextDate: outcome.nextDate },
            updatedAtTimestamp: doneAt,
          };
        case 'FAILED':
          return {
            ...base,
            operationStatus: 'FAILED',
            message: outcome.message,
            metadata: { code: outcome.code },
            updatedAtTimestamp: doneAt,
          };
        default: {
          const never: never = outcome;
          throw new Error(`unknown outcome ${JSON.stringify(never)}`);
        }
      }
    },
    downloadable(id, token) {
      const record = find(id);
      if (!record || record.downloadToken !== token) return undefined;
      if (deps.clock.now() < record.createdAt + settings.runningMs) return undefined;
      const { outcome } = record;
      if (outcome.status === 'FAILED') return undefined;
      return { record, firstDay: outcome.firstDay, lastDay: outcome.lastDay };
    },
    size: () => records.size,
  };
}
