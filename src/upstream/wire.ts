/**
 * The wire-level pieces of the request loop: the sleep, query strings, bounded body reads, short
 * descriptions of errors and schema issues, and the moment a request is written to its socket.
 */
import { channel } from 'node:diagnostics_channel';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import type { z } from 'zod';

export type QueryValue = string | number | readonly string[] | undefined;

const MAX_ISSUES = 5;
const ISSUES_LENGTH = 600;
/** Query parameters whose values are credentials of a kind and stay out of events. */
const SECRET_QUERY_PARAMS = new Set(['rlBypassApiToken']);

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

export function buildQuery(query: Record<string, QueryValue> | undefined, forDisplay: boolean): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    const encoded =
      forDisplay && SECRET_QUERY_PARAMS.has(name)
        ? 'REDACTED'
        : typeof value === 'object'
          ? value.map((v) => encodeURIComponent(v)).join(',')
          : encodeURIComponent(String(value));
    parts.push(`${encodeURIComponent(name)}=${encoded}`);
  }
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

export class BodyTooLargeError extends Error {}

export async function readBody(
  body: Dispatcher.ResponseData['body'],
  cap: number,
  truncate: boolean,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size + chunk.length > cap) {
      body.destroy();
      if (!truncate) throw new BodyTooLargeError();
      chunks.push(chunk.subarray(0, cap - size));
      break;
    }
    size += chunk.length;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function summarizeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const shown = issues
    .slice(0, MAX_ISSUES)
    .map((i) => `${i.path.length > 0 ? i.path.map(String).join('.') : '(root)'}: ${i.message}`);
  if (issues.length > MAX_ISSUES) shown.push(`(+${issues.length - MAX_ISSUES} more)`);
  const text = shown.join('; ');
  return text.length > ISSUES_LENGTH ? `${text.slice(0, ISSUES_LENGTH)}…` : text;
}

export function header(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  const own =
    typeof code === 'string' && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  // undici wraps socket errors; the root cause (ECONNRESET...) is the useful part.
  return err.cause instanceof Error && err.cause.message !== err.message
    ? `${own} (${describe(err.cause)})`
    : own;
}

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
