import type { JobContext } from '../kernel/index.js';
import { refreshExportSummaries } from '../store/index.js';

/**
 * Brings the export summaries that /metrics reads up to date after an export step, whether it
 * succeeded or not (a failure changes statuses too). A summary that cannot be written is logged:
 * the step's own outcome stands, and the next step refreshes again.
 */
export async function refreshSummaries(ctx: Pick<JobContext, 'store' | 'log'>): Promise<void> {
  try {
    await refreshExportSummaries(ctx.store);
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message }, 'could not refresh the export summaries');
  }
}
