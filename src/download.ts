import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

export interface DownloadedFile {
  path: string;
  sizeBytes: number;
  sha256: string;
}

export class DownloadError extends Error {
  override readonly name = 'DownloadError';
}

/**
 * Streams `url` to `path` through a temporary file and a rename, so a crash never leaves a partial
 * file under the final name; the size and sha256 are computed on the way. Only http(s) is fetched,
 * and no credential is sent: an export's download host is not the API (the URL carries its own token).
 */
export async function downloadToFile(
  url: string,
  path: string,
  options: { signal?: AbortSignal; fetch?: typeof fetch } = {},
): Promise<DownloadedFile> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    throw new DownloadError(`download URL is not a URL`, { cause });
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new DownloadError(`refusing to download from a ${parsed.protocol} URL: only http(s) is allowed`);
  }
  const response = await (options.fetch ?? fetch)(parsed, { signal: options.signal, redirect: 'follow' });
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw new DownloadError(
      `[GET] ${parsed.origin}${parsed.pathname}: ${response.status} ${response.statusText}`,
    );
  }
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${randomBytes(6).toString('hex')}.part`;
  const hash = createHash('sha256');
  let sizeBytes = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      sizeBytes += chunk.length;
      done(null, chunk);
    },
  });
  try {
    await pipeline(
      Readable.fromWeb(response.body as WebReadableStream<Uint8Array>),
      meter,
      createWriteStream(temp),
      { signal: options.signal },
    );
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  return { path, sizeBytes, sha256: hash.digest('hex') };
}

/** A file-name-safe rendering of an id: letters, digits, dash and underscore only. */
export function safeFileComponent(text: string): string {
  const safe = text.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 100);
  return safe || '_';
}
