/** What every export step shares: its settings, its clock reading, how it names an operation. */
import type { ExportsJobConfig } from '../config/index.js';
import type { JobContext } from '../kernel/index.js';
import type { ExportOperationRow } from '../store/index.js';

/** The exports config section as the handlers get it (no schedule). */
export type ExportsSettings = Omit<ExportsJobConfig, 'schedule' | 'enabled' | 'runOnStart'>;

/** The collector's own times are ISO-8601 UTC text, read from the job's clock. */
export const iso = (ctx: JobContext) => new Date(ctx.clock.now()).toISOString();

export function describeOperation(row: ExportOperationRow): string {
  return `export ${row.exportName} ${row.firstDate}..${row.lastDate} (operation ${row.operationId}, try ${row.attempt})`;
}
