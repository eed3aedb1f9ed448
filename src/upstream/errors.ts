/**
 * The upstream client's typed errors. None of them ever holds the API key: messages are built from the
 * method, the path (never the query), the status and the upstream's own error text, and the transport
 * redacts the key from any text it did not write itself before it gets here.
 */
import { STATUS_CODES } from 'node:http';
import { excerpt } from '../escape/excerpt.js';
import type { Findings } from './records.js';
import type { ErrorBody } from './schemas.js';

export interface UpstreamErrorContext {
  method: string;
  /** Request path without the query, e.g. `/v1/networks/mainnet/rewards`. */
  path: string;
}

/** What the upstream said, as an error may quote it: a short excerpt, its control characters shown. */
export function upstreamMessage(body: ErrorBody | string | undefined): string | undefined {
  if (body === undefined) return undefined;
  const text =
    typeof body === 'string' ? body : Array.isArray(body.message) ? body.message.join('; ') : body.message;
  return text ? excerpt(text) : undefined;
}

interface UpstreamHttpErrorInit extends UpstreamErrorContext {
  status: number;
  body?: ErrorBody | string | undefined;
  retryable: boolean;
  retryAfterMs?: number | undefined;
  /** Appended to the message in parentheses. */
  note?: string | undefined;
}

/** The upstream answered with a status that is not a success (after retries, when retryable). */
export class UpstreamHttpError extends Error {
  override readonly name = 'UpstreamHttpError';
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** The error body when it matched `{message, statusCode, error}`, else a short text snippet. */
  readonly body?: ErrorBody | string;
  /** Whether the retry policy retries this status (429, 5xx...): true even when retries ran out. */
  readonly retryable: boolean;
  /** The wait the upstream asked for (`retry-after` / `ratelimit-reset`), when it gave one. */
  readonly retryAfterMs?: number;

  private readonly init: UpstreamHttpErrorInit;

  constructor(init: UpstreamHttpErrorInit, options?: ErrorOptions) {
    const reason = STATUS_CODES[init.status] ?? 'Unknown Status';
    const detail = upstreamMessage(init.body);
    super(
      `[${init.method}] ${init.path}: ${init.status} ${reason}${detail ? `: ${detail}` : ''}${init.note ? ` (${init.note})` : ''}`,
      options,
    );
    this.init = init;
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
    if (init.body !== undefined) this.body = init.body;
    this.retryable = init.retryable;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
  }

  /** The same error with a note appended to its message (why it was not retried). */
  withNote(note: string): UpstreamHttpError {
    return new UpstreamHttpError(
      { ...this.init, note },
      this.cause === undefined ? undefined : { cause: this.cause },
    );
  }
}

/**
 * What was malformed in a success response:
 * - `invalid-json`: not JSON, or JSON cut short (a proxy page, a truncated body that still ended cleanly);
 * - `truncated`: the connection failed while the body was being read;
 * - `too-large`: the body passed the client's size cap;
 * - `shape`: valid JSON that does not match the schema.
 */
export type MalformedKind = 'invalid-json' | 'truncated' | 'too-large' | 'shape';

/** A success status with a body the client cannot use. Never retried within the call: the job fails loudly. */
export class UpstreamResponseError extends Error {
  override readonly name: string = 'UpstreamResponseError';
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly kind: MalformedKind;
  /** For `shape`: the schema issues, summarized as `path: message; ...` and capped in length. */
  readonly issues?: string;

  constructor(
    init: UpstreamErrorContext & { status: number; kind: MalformedKind; issues?: string | undefined },
    options?: ErrorOptions,
  ) {
    const what: Record<MalformedKind, string> = {
      'invalid-json': 'response is not valid JSON',
      truncated: 'response body was cut short',
      'too-large': 'response body is larger than the client accepts',
      shape: 'response does not match the schema',
    };
    super(
      `[${init.method}] ${init.path}: ${init.status} ${what[init.kind]}${init.issues ? `: ${init.issues}` : ''}`,
      options,
    );
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
    this.kind = init.kind;
    if (init.issues !== undefined) this.issues = init.issues;
  }
}

/**
 * An answer that is one record (a signature) failed its schema or bounds: the caller sets it aside
 * (`findings`) and goes on; uncaught, it is a malformed response like any other.
 */
export class RecordRejectedError extends UpstreamResponseError {
  override readonly name = 'RecordRejectedError';
  readonly findings: Findings;

  constructor(init: UpstreamErrorContext & { status: number; findings: Findings }) {
    super({ ...init, kind: 'shape', issues: init.findings.rejected[0]?.problems });
    this.findings = init.findings;
  }
}

/** Connection faults or attempt timeouts that outlasted the retries, or a call that ran out of time. */
export class UpstreamNetworkError extends Error {
  override readonly name = 'UpstreamNetworkError';
  readonly method: string;
  readonly path: string;
  /** Attempts made before giving up. */
  readonly attempts: number;

  constructor(init: UpstreamErrorContext & { attempts: number; detail: string }, options?: ErrorOptions) {
    super(`[${init.method}] ${init.path}: ${init.detail} (after ${init.attempts} attempt(s))`, options);
    this.method = init.method;
    this.path = init.path;
    this.attempts = init.attempts;
  }
}

/** The upstream handed out a page token it had handed out before: following it would loop forever. */
export class PageTokenRepeatedError extends Error {
  override readonly name = 'PageTokenRepeatedError';
  /** Pages fetched before the repeat was seen. */
  readonly pages: number;

  constructor(pages: number) {
    super(
      `pagination: the upstream repeated a page token after ${pages} page(s); stopping instead of looping`,
    );
    this.pages = pages;
  }
}

/** The day's compute units are spent: nothing more is sent until the UTC day turns. */
export class BudgetExhaustedError extends Error {
  override readonly name = 'BudgetExhaustedError';
  constructor(
    readonly perDay: number,
    /** Until the next UTC day. */
    readonly retryAfterMs: number,
  ) {
    super(
      `the compute-unit budget of ${perDay} CU per day is spent; requests resume in ${Math.ceil(retryAfterMs / 60_000)} min (budget.computeUnitsPerDay)`,
    );
  }
}

/**
 * True when retrying the same request cannot succeed, so the queue should not retry the job:
 * a 3xx (the client follows no redirects) or 4xx other than 408 and 429 (bad parameters, bad or
 * missing key, no such operation...); a response of the wrong shape or over the size cap (the same
 * request returns the same body); a repeated page token (a server bug). Network faults, 5xx, 408,
 * 429, invalid JSON and truncated bodies may pass on a later run.
 */
export function isUnrecoverable(err: unknown): boolean {
  if (err instanceof UpstreamHttpError) {
    return err.status < 500 && err.status !== 408 && err.status !== 429;
  }
  if (err instanceof UpstreamResponseError) return err.kind === 'shape' || err.kind === 'too-large';
  return err instanceof PageTokenRepeatedError;
}
