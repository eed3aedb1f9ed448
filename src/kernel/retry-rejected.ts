/**
 * `run <job> --retry-rejected`: the job's records set aside (rejected_records), checked again by
 * this version's schemas and bounds, without a request to the API (no compute unit). Those that
 * pass are stored through the job's own `restore` and leave the table; those that still fail keep
 * their row with today's verdict; those cut at 16 KiB cannot be checked (their full text is gone)
 * and stay. A batch of records and their rows commit together: a crash loses nothing.
 */
import { deleteRejectedRecords, listRejectedRecords, updateRejectedVerdict } from '../store/index.js';
import type { JobContext, RestoreRecord } from './job.js';

/** Records checked per transaction. */
const BATCH = 100;

export interface RetryRejectedResult {
  /** Stored now, and removed from rejected_records. */
  restored: number;
  /** Still failing: kept, with today's reason. */
  stillFailing: number;
  /** Cut at 16 KiB when set aside: cannot be checked again. */
  cut: number;
}

export async function retryRejectedRecords(
  job: string,
  restore: RestoreRecord,
  ctx: JobContext,
): Promise<RetryRejectedResult> {
  const result: RetryRejectedResult = { restored: 0, stillFailing: 0, cut: 0 };
  let after = '';
  for (;;) {
    ctx.signal.throwIfAborted();
    const rows = await listRejectedRecords(ctx.store, job, after, BATCH);
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.recordId;
    const at = new Date(ctx.clock.now()).toISOString();
    const batch = await ctx.store.transaction(async (tx) => {
      const done = { restored: 0, stillFailing: 0, cut: 0, rows: 0 };
      const stored: string[] = [];
      for (const row of rows) {
        if (row.rawCut) {
          done.cut++;
          continue;
        }
        const outcome = await restore(tx, row, at);
        if ('stored' in outcome) {
          stored.push(row.recordId);
          done.restored++;
          done.rows += outcome.stored;
        } else {
          done.stillFailing++;
          await updateRejectedVerdict(tx, job, row.recordId, {
            reason: outcome.rejected.reason,
            fields: outcome.rejected.fields.join(', '),
            problems: outcome.rejected.problems,
          });
        }
      }
      await deleteRejectedRecords(tx, job, stored);
      return done;
    });
    ctx.countRows(batch.rows);
    result.restored += batch.restored;
    result.stillFailing += batch.stillFailing;
    result.cut += batch.cut;
    ctx.progress.update(
      'records set aside checked again',
      result.restored + result.stillFailing + result.cut,
    );
  }
  ctx.progress.end('records set aside checked again');
  ctx.log.info(
    { ...result },
    result.restored > 0
      ? 'records set aside checked again: those that pass now are stored'
      : 'records set aside checked again: none passes yet',
  );
  return result;
}
