/** Waiting, as the transport's retries and the queue's budget do it. */
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Node's sleep (node:timers/promises), ending early when the signal aborts; it rejects with the
 * signal's own reason (as `signal.throwIfAborted()` does) rather than Node's generic AbortError.
 */
export async function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, signal ? { signal } : undefined);
  } catch (err) {
    throw signal?.aborted ? signal.reason : err;
  }
}
