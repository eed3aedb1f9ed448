/** What an export definition asks for: its window's dates, the POST body, and the body's hash. */
import { createHash } from 'node:crypto';
import type { ExportDefinition, ExportWindow } from '../config/index.js';
import type { CreateExportRequest } from '../upstream/index.js';

const DAY_MS = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The dates a definition's window covers, relative to `nowMs` (UTC days). */
export function windowDates(window: ExportWindow, nowMs: number): { firstDate: string; lastDate: string } {
  const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
  if (window === 'previous-day')
    return { firstDate: isoDay(today - DAY_MS), lastDate: isoDay(today - DAY_MS) };
  if ('lastDays' in window)
    return { firstDate: isoDay(today - window.lastDays * DAY_MS), lastDate: isoDay(today - DAY_MS) };
  return { firstDate: window.firstDate, lastDate: window.lastDate };
}

export function exportRequest(
  def: ExportDefinition,
  firstDate: string,
  lastDate: string,
): CreateExportRequest {
  if (def.type === 'TRANSACTION_EXPORT_EVM') {
    return {
      type: def.type,
      firstDate,
      lastDate,
      options: { addresses: def.addresses, includeChains: def.includeChains },
    };
  }
  return {
    type: def.type,
    firstDate,
    lastDate,
    options: {
      addresses: def.addresses,
      cChainEvmAddresses: def.cChainEvmAddresses,
      includeChains: def.includeChains,
    },
  };
}

/**
 * sha256 of what the request asks for besides its dates (type and options, keys sorted): the same
 * definition gives the same hash run after run; editing its addresses or chains changes it.
 */
export function requestHash(body: CreateExportRequest): string {
  const {
    firstDate: _first,
    lastDate: _last,
    ...rest
  } = body as CreateExportRequest & {
    firstDate?: string;
    lastDate?: string;
  };
  return createHash('sha256').update(canonicalJson(rest)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The request of a truncated export's remainder: the parent's own body from `nextDate` on. */
export function followUpRequest(parentRequestJson: string, nextDate: string): CreateExportRequest {
  const parent = JSON.parse(parentRequestJson) as CreateExportRequest;
  return { ...parent, firstDate: nextDate };
}
