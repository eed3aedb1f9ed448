/**
 * Notices a queue backend that lost its data (Redis flushed, or restarted without persistence; the
 * queue's PostgreSQL schema emptied or restored): a marker written once is found missing. The
 * queue's jobs come back by themselves (BullMQ creates them on the next add, and the slots are fired
 * by node-cron in this process, not kept in the backend); what does not come back is the day's
 * compute-unit spending, which `onEmptied` restores from the database. Checked at start-up, on every
 * reconnection and every `intervalMs`; one log line per loss.
 */
import type { Logger } from '../runtime/logger.js';
import type { QueueBackend } from './backend.js';

export interface EpochOptions {
  backend: Pick<QueueBackend, 'shared' | 'onReconnect' | 'lossMessage'>;
  /** The collector's key prefix (`service.queuePrefix`), for the log line. */
  prefix: string;
  log: Logger;
  /** What to recreate: called at start-up, and once per loss noticed. */
  onEmptied: () => Promise<void>;
  /** @defaultValue 10 s */
  intervalMs?: number;
}

export interface Epoch {
  /** One check now (tests; the timer and reconnections call it too). */
  check(): Promise<void>;
  stop(): void;
}

const EPOCH_KEY = 'epoch';

export function watchEpoch(o: EpochOptions): Epoch {
  let started = false;
  let running: Promise<void> | undefined;

  async function checkOnce(): Promise<void> {
    // Set only if absent: of several processes noticing the loss at once, one recreates and logs.
    const created = await o.backend.shared.putIfAbsent(EPOCH_KEY, new Date().toISOString());
    // The first check only marks the epoch: a marker already there means the backend kept its data.
    const first = !started;
    started = true;
    if (!created) return;
    if (!first) o.log.warn({ key: `${o.prefix}:${EPOCH_KEY}` }, o.backend.lossMessage);
    await o.onEmptied();
  }

  // A failing check is said once at warn (the schema gone, the database read-only…), its end once.
  let failing: string | undefined;
  const check = (): Promise<void> => {
    running ??= checkOnce()
      .then(() => {
        if (failing === undefined) return;
        failing = undefined;
        o.log.info('the queue epoch check works again');
      })
      .catch((err: Error) => {
        if (failing !== undefined) return;
        failing = err.message;
        o.log.warn(
          { err: err.message.slice(0, 500) },
          'the queue epoch check failed: a loss of the queue backend’s data would go unnoticed until it works again',
        );
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const unsubscribe = o.backend.onReconnect(() => void check());
  const timer = setInterval(() => void check(), o.intervalMs ?? 10_000);
  timer.unref();
  return {
    check,
    stop() {
      clearInterval(timer);
      unsubscribe();
    },
  };
}
