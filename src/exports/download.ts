/**
 * Downloads of finished export files: streamed to disk through a `.part` file and a rename, with the
 * size and sha256 computed on the way, within time limits, retried on faults that may pass.
 * No credential is ever sent: the download host is not the API (its URL carries its own token).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, type Dispatcher, request } from 'undici';
import { excerpt } from '../escape/excerpt.js';
import { describe, header } from '../upstream/http.js';
import { defaultRetryPolicy, type RetryPolicy, retryDelayMs } from '../upstream/retry.js';
import { type DownloadGuard, DownloadRefusedError, guardedConnector } from './address-guard.js';

export interface DownloadedFile {
  path: string;
  sizeBytes: number;
  sha256: string;
}

export class DownloadError extends Error {
  override readonly name: string = 'DownloadError';
  /** The HTTP status of the last attempt, when it got one. */
  readonly status?: number;
  constructor(message: string, options: { status?: number | undefined; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    if (options.status !== undefined) this.status = options.status;
  }
}

/** The body passed `maxFileSize`: never retried (the same file would be as large again). */
export class FileTooLargeError extends DownloadError {
  override readonly name = 'FileTooLargeError';
}

export interface DownloadOptions {
  signal?: AbortSignal | undefined;
  /** Longest wait for the response headers, and between two chunks of the body. @defaultValue 30 s */
  idleTimeoutMs?: number;
  /** Longest time for the whole download, retries and waits included. @defaultValue 1 h */
  timeoutMs?: number;
  /** Attempts, the first included. @defaultValue 5 */
  maxAttempts?: number;
  /** Backoff between attempts: the upstream client's policy and function (retry.ts). */
  retry?: Partial<RetryPolicy>;
  /**
   * Checks the address of every connection (first request and every redirect hop) before it is
   * opened; a refusal fails the download at once, never retried. Ignored with `dispatcher`.
   * @defaultValue none: any address
   */
  guard?: DownloadGuard;
  /** Largest file accepted, in bytes: past it the download stops and its partial file is removed. @defaultValue 10 GiB */
  maxFileSize?: number;
  /** @defaultValue a fresh undici Agent (with the guard's connector), closed when the download ends */
  dispatcher?: Dispatcher;
  /** Bytes written so far, after each chunk. */
  onProgress?: (bytes: number) => void;
  random?: () => number;
}

const MiB = 1024 * 1024;
/** 1 MiB stream buffers: measured 25-30 % faster than the 16-64 KiB defaults on a 1 GiB file. */
const BUFFER_BYTES = MiB;
const MAX_REDIRECTS = 5;
export const DEFAULT_MAX_FILE_SIZE = 10 * 1024 * MiB;

/**
 * Streams `url` to `path` through `<path>.<random>.part` and a rename, so a crash never leaves a
 * partial file under the final name. Stale `.part` files of the same path (a killed download) are
 * deleted first. 5xx, 408, 429 and network faults (including an idle or cut body) are retried with
 * capped jittered backoff; other statuses fail at once. Redirects are followed (http(s) only).
 */
export async function downloadToFile(
  url: string,
  path: string,
  options: DownloadOptions = {},
): Promise<DownloadedFile> {
  let target = parseUrl(url);
  const idleTimeoutMs = options.idleTimeoutMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 3_600_000;
  const maxAttempts = options.maxAttempts ?? 5;
  const policy = { ...defaultRetryPolicy, ...options.retry };
  const random = options.random ?? Math.random;
  const overall = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, overall]) : overall;
  const started = Date.now();
  const maxFileSize = options.maxFileSize ?? DEFAULT_MAX_FILE_SIZE;
  const dispatcher =
    options.dispatcher ??
    new Agent({
      keepAliveTimeout: 1_000,
      ...(options.guard && { connect: guardedConnector(options.guard) }),
    });
  // The URL is upstream text: only a short, control-character-free excerpt of it is ever quoted.
  const where = () => excerpt(`${target.origin}${target.pathname}`);
  /** The caller's abort wins; then our overall limit; else the error as it is. */
  const stopIfOver = (err: unknown) => {
    if (options.signal?.aborted) throw options.signal.reason;
    if (overall.aborted) {
      throw new DownloadError(`download from ${where()} took longer than ${timeoutMs} ms`, { cause: err });
    }
  };

  await mkdir(dirname(path), { recursive: true });
  await removePartFiles(path);
  try {
    let redirects = 0;
    for (let attempt = 1; ; attempt++) {
      let failure: DownloadError;
      let retryAfter: string | undefined;
      const temp = `${path}.${randomBytes(6).toString('hex')}.part`;
      try {
        const res = await request(target, {
          method: 'GET',
          signal,
          dispatcher,
          headersTimeout: idleTimeoutMs,
          bodyTimeout: idleTimeoutMs,
          highWaterMark: BUFFER_BYTES,
        });
        const location = header(res.headers, 'location');
        if (res.statusCode >= 300 && res.statusCode < 400 && location && redirects < MAX_REDIRECTS) {
          await res.body.dump();
          target = parseUrl(location, target);
          redirects++;
          attempt--;
          continue;
        }
        if (res.statusCode < 200 || res.statusCode > 299) {
          await res.body.dump().catch(() => undefined);
          retryAfter = header(res.headers, 'retry-after');
          failure = new DownloadError(`download from ${where()}: ${res.statusCode}`, {
            status: res.statusCode,
          });
          if (!policy.retryableStatuses.has(res.statusCode)) throw failure;
        } else {
          const declared = Number(header(res.headers, 'content-length'));
          if (declared > maxFileSize) {
            res.body.destroy();
            throw tooLarge(where(), maxFileSize, `it declares ${declared} bytes`);
          }
          const file = await streamToFile(res.body, temp, signal, maxFileSize, where(), options.onProgress);
          await rename(temp, path);
          return { path, ...file };
        }
      } catch (err) {
        await rm(temp, { force: true });
        const refused = refusal(err);
        if (refused) throw refused;
        stopIfOver(err);
        if (err instanceof DownloadError) throw err;
        failure = new DownloadError(`download from ${where()} failed: ${excerpt(describe(err))}`, {
          cause: err,
        });
      }
      if (attempt >= maxAttempts) {
        throw new DownloadError(`${failure.message} (after ${attempt} attempt(s))`, {
          status: failure.status,
          cause: failure.cause ?? failure,
        });
      }
      const delay = retryDelayMs(attempt, policy, { retryAfter, nowMs: Date.now() }, random);
      if (!Number.isFinite(delay) || Date.now() + delay - started >= timeoutMs) {
        throw new DownloadError(`${failure.message} (gave up after ${attempt} attempt(s): no time left)`, {
          status: failure.status,
          cause: failure.cause ?? failure,
        });
      }
      try {
        await sleep(delay, undefined, { signal });
      } catch (err) {
        stopIfOver(err);
        throw err;
      }
    }
  } finally {
    if (!options.dispatcher) await dispatcher.close();
  }
}

/** A refusal of the address guard, as thrown or as the cause undici wrapped it in. */
function refusal(err: unknown): DownloadRefusedError | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (e instanceof DownloadRefusedError) return e;
  }
  return undefined;
}

function tooLarge(where: string, maxFileSize: number, detail: string): FileTooLargeError {
  return new FileTooLargeError(
    `download from ${where}: the file is larger than jobs.exports.maxFileSize (${maxFileSize} bytes; ${detail}); the partial file was removed`,
  );
}

async function streamToFile(
  body: NodeJS.ReadableStream & { destroy(error?: Error): void },
  temp: string,
  signal: AbortSignal,
  maxFileSize: number,
  where: string,
  onProgress: ((bytes: number) => void) | undefined,
): Promise<{ sizeBytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let sizeBytes = 0;
  // pipeline() pipes synchronously; a 'data' listener added after it sees every chunk without a
  // Transform stream in between (measured: a quarter less CPU than a metering Transform).
  const done = pipeline(body, createWriteStream(temp, { highWaterMark: BUFFER_BYTES }), { signal });
  let over: FileTooLargeError | undefined;
  body.on('data', (chunk: Buffer) => {
    sizeBytes += chunk.length;
    if (sizeBytes > maxFileSize && !over) {
      over = tooLarge(where, maxFileSize, `more than ${maxFileSize} bytes were sent`);
      body.destroy(over);
      return;
    }
    hash.update(chunk);
    onProgress?.(sizeBytes);
  });
  try {
    await done;
  } catch (err) {
    throw over ?? err;
  }
  return { sizeBytes, sha256: hash.digest('hex') };
}

/** Size and sha256 of a file already on disk (a download renamed in place before a crash). */
export async function hashFile(path: string): Promise<{ sizeBytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let sizeBytes = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: BUFFER_BYTES })) {
    hash.update(chunk as Buffer);
    sizeBytes += (chunk as Buffer).length;
  }
  return { sizeBytes, sha256: hash.digest('hex') };
}

/** Deletes `<path>.*.part`: what killed downloads of this path left behind. */
export async function removePartFiles(path: string): Promise<string[]> {
  const prefix = `${basename(path)}.`;
  let names: string[];
  try {
    names = await readdir(dirname(path));
  } catch {
    return [];
  }
  const stale = names.filter((n) => n.startsWith(prefix) && n.endsWith('.part'));
  await Promise.all(stale.map((n) => rm(join(dirname(path), n), { force: true })));
  return stale;
}

function parseUrl(url: string, base?: URL): URL {
  let parsed: URL;
  try {
    parsed = new URL(url, base);
  } catch (cause) {
    const what = base ? `the redirect from ${excerpt(base.origin)} to ${excerpt(url)}` : excerpt(url);
    throw new DownloadError(`download URL is not a URL: ${what}`, { cause });
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new DownloadError(`refusing to download from a ${parsed.protocol} URL: only http(s) is allowed`);
  }
  return parsed;
}

/** A file-name-safe rendering of an id: letters, digits, dash and underscore only. */
export function safeFileComponent(text: string): string {
  const safe = text.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 100);
  return safe || '_';
}
