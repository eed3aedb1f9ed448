/**
 * The request loop: one call = up to `maxAttempts` HTTP attempts against the base URL, each bounded by
 * the attempt timeout (headers and body), all bounded by the call timeout and the caller's signals.
 */
import { channel } from 'node:diagnostics_channel';

import { type Dispatcher, request } from 'undici';
import type * as z from 'zod';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';
import { scrubSecrets } from '../runtime/secrets.js';
import { type EndpointName, endpoints, pathOf } from './endpoints.js';
import { UpstreamHttpError, UpstreamNetworkError, UpstreamResponseError } from './errors.js';
import { summarizeIssues } from './records.js';
import { hintedDelayMs, type RetryPolicy, retryDelayMs } from './retry.js';
import { errorBodySchema } from './schemas.js';

/** One HTTP attempt, reported to `onAttempt` (logs, metrics). Holds no API key and no secret query value. */
export interface AttemptEvent {
  endpoint: EndpointName;
  method: string;
  /** Path and query; the value of `rlBypassApiToken` is redacted. */
  path: string;
  /** The status, if the attempt got one. */
  status?: number;
  /** What went wrong, if anything. */
  error?: string;
  /** 1 for the first request of the call. */
  attempt: number;
  durationMs: number;
  willRetry: boolean;
  /** The wait before the next attempt, when there is one. */
  delayMs?: number;
}

export interface RequestSpec<T> {
  endpoint: EndpointName;
  /** The values of the endpoint's `{parameters}` in its path (endpoints.ts), encoded here. */
  params?: Readonly<Record<string, string>>;
  query?: Record<string, QueryValue>;
  /** Sent as JSON. */
  body?: unknown;
  /** Body text → JSON value; `JSON.parse` unless the body holds amounts typed as numbers. */
  parseJson?: (text: string) => unknown;
  schema: z.ZodType<T>;
}

/** Per call: the signals that abort it and the meters that count its attempts. */
export interface CallContext {
  signals: readonly AbortSignal[];
  meters: readonly Meter[];
}

export interface TransportOptions {
  baseUrl: string;
  apiKey?: string | undefined;
  userAgent: string;
  attemptTimeoutMs: number;
  callTimeoutMs: number;
  maxBodyBytes: number;
  retry: RetryPolicy;
  clock: Clock;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  dispatcher: Dispatcher;
  /** Each attempt is logged here: a retried failure as a warning, any other at debug. */
  log?: Pick<Logger, 'warn' | 'debug'> | undefined;
  onAttempt?: ((e: AttemptEvent) => void) | undefined;
  budget?: ComputeUnitBudget | undefined;
}

/**
 * A compute-unit budget shared by every process that calls the API with one key (src/queue/budget.ts
 * keeps it in Redis). Every attempt takes its endpoint's units before it is sent; a 429 pauses every
 * holder of the budget, not only the call that got it.
 */
export interface ComputeUnitBudget {
  /** Resolves when `computeUnits` may be spent now; rejects with `signal.reason` on abort. */
  acquire(endpoint: EndpointName, computeUnits: number, signal: AbortSignal): Promise<void>;
  /** The upstream answered 429: nobody sends anything for `delayMs`. Must not throw. */
  pause(delayMs: number): void;
}

export type Send = <T>(spec: RequestSpec<T>, ctx: CallContext) => Promise<T>;

/** Error bodies are only read this far: enough for `{message, statusCode, error}`. */
const ERROR_BODY_CAP = 64 * 1024;
const SNIPPET_LENGTH = 300;

type AttemptOutcome<T> =
  | { ok: true; value: T; status: number }
  | {
      ok: false;
      error: Error;
      retryable: boolean;
      status?: number;
      retryAfter?: string;
      rateLimitReset?: string;
    };

/** 90_000 → "90 s", 1_500 → "1.5 s". */
function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

export function createTransport(options: TransportOptions): Send {
  // Credentials in the base URL (a proxy in front of the API) go as Basic auth, not in the URL, so
  // no request URL and no error ever holds them.
  const baseUrl = new URL(options.baseUrl);
  const basicAuth = baseUrl.username
    ? `Basic ${Buffer.from(`${decodeURIComponent(baseUrl.username)}:${decodeURIComponent(baseUrl.password)}`).toString('base64')}`
    : undefined;
  baseUrl.username = '';
  baseUrl.password = '';
  const base = baseUrl.toString().replace(/\/+$/, '');
  const baseOrigin = baseUrl.origin;
  const { apiKey, retry: policy, clock } = options;
  /** Removes the API key from text the client did not write itself (upstream bodies, library errors). */
  const redact = (text: string): string => scrubSecrets(text, apiKey ? [apiKey] : []);

  return async function send<T>(spec: RequestSpec<T>, ctx: CallContext): Promise<T> {
    const { method, computeUnits } = endpoints[spec.endpoint];
    const path = pathOf(spec.endpoint, spec.params);
    const url = new URL(base + path + buildQuery(spec.query, false));
    // Defence in depth: the key goes to the API's origin only (paths are built from encoded segments).
    if (url.origin !== baseOrigin) throw new Error(`refusing to request another origin than ${baseOrigin}`);
    const displayPath = path + buildQuery(spec.query, true);
    const where = { method, path };

    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': options.userAgent };
    if (apiKey) headers['x-glacier-api-key'] = apiKey;
    if (basicAuth) headers.authorization = basicAuth;
    let body: string | undefined;
    if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      headers['content-type'] = 'application/json';
    }

    const outer = ctx.signals.length > 0 ? AbortSignal.any([...ctx.signals]) : undefined;
    const callTimeout = AbortSignal.timeout(options.callTimeoutMs);
    const callSignal = outer ? AbortSignal.any([outer, callTimeout]) : callTimeout;
    const deadline = clock.now() + options.callTimeoutMs;
    let lastError: Error | undefined;

    /** Throws if the call must end now: the caller's abort reason, or the call timeout. */
    const checkCallAborted = (cause: unknown, attempts: number): void => {
      if (outer?.aborted) throw outer.reason;
      if (callTimeout.aborted) {
        throw new UpstreamNetworkError(
          { ...where, attempts, detail: `call timed out after ${options.callTimeoutMs} ms` },
          { cause: lastError ?? cause },
        );
      }
    };

    const attemptOnce = async (attempt: number): Promise<AttemptOutcome<T>> => {
      try {
        await options.budget?.acquire(spec.endpoint, computeUnits, callSignal);
      } catch (err) {
        checkCallAborted(err, attempt - 1);
        throw err;
      }
      // The attempt's time starts once the budget lets it go: a wait for the next minute's compute
      // units (up to 60 s) is no slow network, and timing it out would spend the units it took on
      // a request never sent (only the call's own deadline bounds the wait).
      const attemptTimeout = AbortSignal.timeout(options.attemptTimeoutMs);
      const signal = AbortSignal.any([callSignal, attemptTimeout]);
      const networkFault = (err: unknown): AttemptOutcome<T> => {
        checkCallAborted(err, attempt);
        const detail = attemptTimeout.aborted
          ? `attempt timed out after ${options.attemptTimeoutMs} ms`
          : redact(describe(err));
        return { ok: false, error: new Error(detail, { cause: err }), retryable: true };
      };

      let res: Dispatcher.ResponseData;
      try {
        res = await request(url, { method, headers, body, signal, dispatcher: options.dispatcher });
      } catch (err) {
        return networkFault(err);
      }
      const status = res.statusCode;
      for (const meter of ctx.meters) meter.record(spec.endpoint, computeUnits);

      if (status < 200 || status > 299) {
        const text = await readBody(res.body, ERROR_BODY_CAP, true).catch(() => '');
        const safe = redact(text);
        let parsedBody: ReturnType<typeof errorBodySchema.parse> | string = safe.slice(0, SNIPPET_LENGTH);
        try {
          const parsed = errorBodySchema.safeParse(JSON.parse(safe));
          if (parsed.success) parsedBody = parsed.data;
        } catch {
          // Not JSON (a gateway's HTML page): the snippet stays.
        }
        const retryAfter = header(res.headers, 'retry-after');
        const rateLimitReset = header(res.headers, 'ratelimit-reset');
        const hinted = hintedDelayMs({ retryAfter, rateLimitReset, nowMs: clock.now() });
        if (status === 429) options.budget?.pause(hinted ?? policy.baseDelayMs);
        const retryable = policy.retryableStatuses.has(status);
        const error = new UpstreamHttpError({
          ...where,
          status,
          body: parsedBody,
          retryable,
          retryAfterMs: hinted,
          note: authNote(status, apiKey !== undefined),
        });
        return {
          ok: false,
          error,
          retryable,
          status,
          ...(retryAfter !== undefined && { retryAfter }),
          ...(rateLimitReset !== undefined && { rateLimitReset }),
        };
      }

      const malformed = (kind: UpstreamResponseError['kind'], issues?: string, cause?: unknown) =>
        new UpstreamResponseError(
          { ...where, status, kind, issues },
          cause === undefined ? undefined : { cause },
        );
      const declared = Number(header(res.headers, 'content-length'));
      let text: string;
      try {
        if (declared > options.maxBodyBytes) throw new BodyTooLargeError();
        text = await readBody(res.body, options.maxBodyBytes, false);
      } catch (err) {
        if (err instanceof BodyTooLargeError) {
          res.body.destroy();
          throw malformed('too-large', `over ${options.maxBodyBytes} bytes`);
        }
        checkCallAborted(err, attempt);
        // A slow body is a slow network: retry like a timeout before the headers.
        if (attemptTimeout.aborted) return { ...networkFault(err), status };
        throw malformed('truncated', redact(describe(err)), err);
      }
      let json: unknown;
      try {
        json = (spec.parseJson ?? JSON.parse)(text);
      } catch (err) {
        // JSON.parse quotes the body in its message: keep the key out of the cause too.
        throw malformed('invalid-json', undefined, new SyntaxError(redact(describe(err))));
      }
      const parsed = spec.schema.safeParse(json);
      if (!parsed.success) throw malformed('shape', summarizeIssues(parsed.error.issues));
      return { ok: true, value: parsed.data, status };
    };

    for (let attempt = 1; ; attempt++) {
      checkCallAborted(undefined, attempt - 1);
      const started = clock.now();
      const report = (e: Omit<AttemptEvent, 'endpoint' | 'method' | 'path' | 'attempt' | 'durationMs'>) => {
        const event: AttemptEvent = {
          endpoint: spec.endpoint,
          method,
          path: displayPath,
          attempt,
          durationMs: clock.now() - started,
          ...e,
        };
        if (event.willRetry) options.log?.warn({ ...event }, 'upstream attempt failed, retrying');
        else options.log?.debug({ ...event }, 'upstream attempt');
        options.onAttempt?.(event);
      };

      let outcome: AttemptOutcome<T>;
      try {
        outcome = await attemptOnce(attempt);
      } catch (err) {
        const status = err instanceof UpstreamResponseError ? { status: err.status } : {};
        report({ ...status, error: err instanceof Error ? err.message : 'aborted', willRetry: false });
        throw err;
      }
      if (outcome.ok) {
        report({ status: outcome.status, willRetry: false });
        return outcome.value;
      }

      const failure = outcome;
      lastError = failure.error;
      let delayMs: number | undefined;
      /** Why a retryable failure is not retried although attempts remain. */
      let gaveUp: string | undefined;
      if (failure.retryable && attempt < policy.maxAttempts) {
        const hints = {
          retryAfter: failure.retryAfter,
          rateLimitReset: failure.rateLimitReset,
          nowMs: clock.now(),
        };
        delayMs = retryDelayMs(attempt, policy, hints, options.random);
        // Give up now rather than sleep past the call's deadline (or longer than maxRetryAfterMs),
        // and say so: "429" alone would hide that the wait asked for was the problem.
        const hinted = hintedDelayMs(hints);
        const asked =
          hinted === undefined ? 'the next attempt' : `the upstream's retry-after of ${seconds(hinted)}`;
        if (!Number.isFinite(delayMs)) {
          gaveUp = `${asked} is longer than the client waits (${seconds(policy.maxRetryAfterMs)})`;
          delayMs = undefined;
        } else if (clock.now() + delayMs >= deadline) {
          gaveUp = `${asked} would pass the call's time limit (client.callTimeout, ${seconds(options.callTimeoutMs)})`;
          delayMs = undefined;
        }
      }
      const status = failure.status === undefined ? {} : { status: failure.status };
      const final = () => {
        if (failure.error instanceof UpstreamHttpError) {
          return gaveUp ? failure.error.withNote(`not retried: ${gaveUp}`) : failure.error;
        }
        const detail = gaveUp ? `${failure.error.message}; not retried: ${gaveUp}` : failure.error.message;
        return new UpstreamNetworkError({ ...where, attempts: attempt, detail }, { cause: failure.error });
      };
      if (delayMs === undefined) {
        const error = final();
        report({ ...status, error: error.message, willRetry: false });
        throw error;
      }
      report({ ...status, error: failure.error.message, willRetry: true, delayMs });
      try {
        await options.sleep(delayMs, callSignal);
      } catch (err) {
        checkCallAborted(err, attempt);
        throw err;
      }
    }
  };
}

/**
 * What a 401 or 403 means for the one who set the key: where the key comes from (the variables the
 * config loader reads), and whether one was sent at all.
 */
export function authNote(status: number, keySent: boolean): string | undefined {
  if (status === 401) {
    return keySent
      ? 'the API refused the key: check GLACIER_API_KEY (or the file GLACIER_API_KEY_FILE names)'
      : 'no API key was sent: set GLACIER_API_KEY (or GLACIER_API_KEY_FILE, a file holding it)';
  }
  if (status === 403) {
    return keySent
      ? 'the key may not read this: check that GLACIER_API_KEY (or the file GLACIER_API_KEY_FILE names) is the key of the organisation asked for'
      : 'without an API key this is refused: set GLACIER_API_KEY (or GLACIER_API_KEY_FILE, a file holding it)';
  }
  return undefined;
}

/**
 * Requests and compute units spent, per endpoint.
 *
 * The client records every attempt that got an HTTP status back (success, 4xx, 429 and 5xx alike),
 * each at its endpoint's full CU cost from endpoints.ts: the API charges retried requests too, and
 * counting a rejected one is the safe side of a budget. Attempts that never got a status (connection
 * refused or reset, attempt timeout) are not counted: whether the server saw them is unknown.
 */
export interface Meter {
  record(endpoint: EndpointName, computeUnits: number): void;
  snapshot(): MeterSnapshot;
}

export interface MeterSnapshot {
  requests: number;
  computeUnits: number;
  byEndpoint: Partial<Record<EndpointName, { requests: number; computeUnits: number }>>;
}

export function createMeter(): Meter {
  let requests = 0;
  let computeUnits = 0;
  const byEndpoint = new Map<EndpointName, { requests: number; computeUnits: number }>();
  return {
    record(endpoint, cu) {
      requests += 1;
      computeUnits += cu;
      const entry = byEndpoint.get(endpoint) ?? { requests: 0, computeUnits: 0 };
      entry.requests += 1;
      entry.computeUnits += cu;
      byEndpoint.set(endpoint, entry);
    },
    snapshot() {
      const copy: MeterSnapshot['byEndpoint'] = {};
      for (const [name, entry] of byEndpoint) copy[name] = { ...entry };
      return { requests, computeUnits, byEndpoint: copy };
    },
  };
}

// The wire-level pieces: query strings, bounded body reads, short descriptions of
// errors, and the moment a request is written to its socket.

export type QueryValue = string | number | readonly string[] | undefined;

/** Query parameters whose values are credentials of a kind and stay out of events. */
const SECRET_QUERY_PARAMS = new Set(['rlBypassApiToken']);

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
