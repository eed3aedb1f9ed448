/**
 * A file an operator names (the config file, the metrics web config, its TLS files, the API key
 * file) read whole, but only when it is a small regular file. A config file is text a person
 * writes: reading an arbitrary file whole (measured: a 100 MB file took 3.8 GB, `/dev/zero` as a
 * certificate reached 3 GB in 9 s) is a way to stop the collector before it says anything useful,
 * and a FIFO opened for reading waits for a writer for ever.
 *
 * So the file is opened with O_NONBLOCK (a FIFO or a device answers the open at once instead of
 * waiting), what was opened is checked to be a regular file (by its descriptor, not by a path that
 * could change in between), and at most `maxBytes` are read, whatever size the file claims.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { ConfigError } from './errors.js';

/** The largest config file read (the config file, the metrics web config). */
export const MAX_CONFIG_FILE_BYTES = 1024 * 1024;

export interface BoundedFileOptions {
  /** @defaultValue MAX_CONFIG_FILE_BYTES */
  maxBytes?: number;
  /** What the bound is for, in the refusal: `a config file` (the default), `a certificate file`… */
  kind?: string;
}

// Windows has no O_NONBLOCK (nor FIFOs that block an open): 0 leaves the flag out.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** The bytes of `path`, refused (a ConfigError naming `what` and the path) when not a small regular file. */
export function readBoundedBytes(path: string, what: string, options: BoundedFileOptions = {}): Buffer {
  const maxBytes = options.maxBytes ?? MAX_CONFIG_FILE_BYTES;
  const tooLarge = (size: number) =>
    new ConfigError(
      `${what} ${path} is ${size} bytes: larger than the ${maxBytes} bytes (${humanBytes(maxBytes)}) ${
        options.kind ?? 'a config file'
      } may have; is it the right file?`,
    );
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (cause) {
    throw new ConfigError(`Cannot read ${what} ${path}: ${(cause as Error).message}`, undefined, { cause });
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      throw new ConfigError(`Cannot read ${what} ${path}: not a regular file (${fileType(stat)})`);
    }
    if (stat.size > maxBytes) throw tooLarge(stat.size);
    // Read to the end, but never past the bound: the size stat gave may have changed since.
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length > maxBytes) throw tooLarge(length);
    }
    return buffer.subarray(0, length);
  } catch (cause) {
    if (cause instanceof ConfigError) throw cause;
    throw new ConfigError(`Cannot read ${what} ${path}: ${(cause as Error).message}`, undefined, { cause });
  } finally {
    closeSync(fd);
  }
}

/** The text (UTF-8) of `path`, refused as readBoundedBytes refuses. */
export function readBoundedFile(path: string, what: string, options: BoundedFileOptions = {}): string {
  return readBoundedBytes(path, what, options).toString('utf8');
}

function humanBytes(n: number): string {
  if (n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} B`;
}

/** What a path that is not a regular file is, in the refusal. */
export function fileType(stat: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
}): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a file';
}
