/**
 * When undici next writes a request to a socket, without importing undici (its diagnostics channel
 * is Node's): the rewards walk's prefetch waits on it, and `status` reads that walk's cursors
 * without loading the HTTP client.
 */
import { channel } from 'node:diagnostics_channel';

/** undici publishes here as it writes a request's headers to the socket. */
const sendHeaders = channel('undici:client:sendHeaders');

/**
 * A promise that resolves when undici next writes a request to a socket, or after `maxMs`
 * (a budget wait, a connection being opened) or when `stop` settles, whichever comes first. Listen
 * before starting the request. What it is for: a prefetch waits for its request to be on the
 * wire before the synchronous SQLite write of the current page takes the event loop; one turn of
 * the loop is not always enough, as the request passes through the budget and the retry policy.
 * Another request sent meanwhile (another job's) ends the wait early: the write then starts as
 * it would without it.
 */
export function nextRequestSent(maxMs: number): { sent: Promise<void>; stop: () => void } {
  let done: () => void = () => undefined;
  const sent = new Promise<void>((resolve) => {
    done = resolve;
  });
  const onSend = () => finish();
  const timer = setTimeout(() => finish(), maxMs);
  function finish() {
    clearTimeout(timer);
    sendHeaders.unsubscribe(onSend);
    done();
  }
  sendHeaders.subscribe(onSend);
  return { sent, stop: finish };
}
