/**
 * A file of the configuration read whole, but only when it is small: a config file is text a
 * person writes, and reading an arbitrary file whole (measured: a 100 MB file took 3.8 GB) is a way
 * to stop the collector before it says anything useful.
 */
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { ConfigError } from './errors.js';

/** The largest config file read (the config file, the metrics web config). */
export const MAX_CONFIG_FILE_BYTES = 1024 * 1024;

/** The text of `path`, refused before it is read when it is larger than `maxBytes` or not a file. */
export function readBoundedFile(path: string, what: string, maxBytes = MAX_CONFIG_FILE_BYTES): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (cause) {
    throw new ConfigError(`Cannot read ${what} ${path}: ${(cause as Error).message}`, undefined, { cause });
  }
  try {
    // The size of the file opened (not of a path that could change in between).
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new ConfigError(`Cannot read ${what} ${path}: not a regular file`);
    if (stat.size > maxBytes) {
      throw new ConfigError(
        `${what} ${path} is ${stat.size} bytes: larger than the ${maxBytes} bytes (1 MiB) a config file may have; is it the right file?`,
      );
    }
    return readFileSync(fd, 'utf8');
  } catch (cause) {
    if (cause instanceof ConfigError) throw cause;
    throw new ConfigError(`Cannot read ${what} ${path}: ${(cause as Error).message}`, undefined, { cause });
  } finally {
    closeSync(fd);
  }
}
