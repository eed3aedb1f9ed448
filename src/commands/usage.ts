import { existsSync } from 'node:fs';

/** Bad arguments exit 2, as invalid configuration and commander's usage errors do (see src/cli.ts). */
export const EXIT_USAGE = 2;

/** Prints an argument error and sets exit code 2 (the action then returns normally). */
export function failUsage(message: string): void {
  console.error(message);
  process.exitCode = EXIT_USAGE;
}

/** Read-only commands report on an existing database rather than create an empty one. */
export function databaseExists(path: string): boolean {
  return path === ':memory:' || existsSync(path);
}
