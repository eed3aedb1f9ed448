/**
 * `DATABASE_URL_FILE` and `QUEUE_URL_FILE`: the URL (with its password) read from a file, as a
 * container secret is mounted, instead of an environment variable every process listing shows.
 * The file holds the URL on one line; surrounding white space (a trailing newline) is dropped.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { readBoundedFile } from './bounded-file.js';
import { ConfigError } from './errors.js';

/** Each `_FILE` variable and the variable it stands for. */
export const URL_FILE_VARIABLES = { DATABASE_URL_FILE: 'DATABASE_URL', QUEUE_URL_FILE: 'QUEUE_URL' } as const;

/** The variables, spread into the loader's environment schema (read by `withUrlFiles` before it). */
export const urlFileEnvShape = {
  /** A file holding DATABASE_URL (a mounted Secret); setting DATABASE_URL too is an error. */
  DATABASE_URL_FILE: z.string().min(1).optional(),
  /** A file holding QUEUE_URL; setting QUEUE_URL too is an error. */
  QUEUE_URL_FILE: z.string().min(1).optional(),
};

/** A URL is a few hundred bytes: 64 KiB is far above any, and far below what would hurt. */
const MAX_URL_FILE_BYTES = 64 * 1024;

/**
 * The environment with each `_FILE` variable's URL in its variable's place (what everything else
 * reads). A variable set both ways is refused: one would be ignored without a word. The file's
 * content is never shown (it holds a password), only its path.
 */
export function withUrlFiles(
  present: Record<string, string | undefined>,
  cwd: string,
): Record<string, string | undefined> {
  let out = present;
  for (const [fileVariable, variable] of Object.entries(URL_FILE_VARIABLES)) {
    const file = present[fileVariable];
    if (file === undefined) continue;
    if (present[variable] !== undefined) {
      throw new ConfigError(`Set ${variable} or ${fileVariable}, not both (${fileVariable} = "${file}")`);
    }
    const text = readBoundedFile(resolve(cwd, file), fileVariable, {
      maxBytes: MAX_URL_FILE_BYTES,
      kind: 'a URL file',
    }).trim();
    if (!text)
      throw new ConfigError(`${fileVariable} = "${file}": the file is empty; it should hold ${variable}`);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    if (/[\u0000-\u001f\u007f]/.test(text)) {
      throw new ConfigError(
        `${fileVariable} = "${file}": the file holds more than one line (or a control character); it should hold ${variable} alone, on one line (content not shown)`,
      );
    }
    out = { ...out, [variable]: text };
  }
  return out;
}
