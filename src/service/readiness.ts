/**
 * `/readyz`'s checks as a list: each a name (the key of its verdict in the report) and a function
 * that throws why it is not ready. The service composes the list from what it opened (the store, the
 * queue's backend, the worker, the disk watch); a backend or a part adds a check by adding an entry,
 * not by editing the others. Checks run one after the other, each bounded by its own timeout.
 */
import type { ReadyReport } from '../metrics/index.js';

export interface ReadinessCheck {
  /** The key of its verdict in `/readyz`'s details: `database`, `redis`, `worker`. */
  name: string;
  /** Resolves when ready; throws (or rejects) with why not. */
  check(): Promise<void> | void;
}

/** Runs every check; ready when each passed. */
export async function runReadiness(checks: readonly ReadinessCheck[]): Promise<ReadyReport> {
  const verdicts: ReadyReport['checks'] = {};
  for (const c of checks) {
    try {
      await c.check();
      verdicts[c.name] = { ok: true };
    } catch (err) {
      verdicts[c.name] = { ok: false, error: (err as Error).message };
    }
  }
  return { ready: Object.values(verdicts).every((v) => v.ok), checks: verdicts };
}
