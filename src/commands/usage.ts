import { existsSync } from 'node:fs';
import type { Command } from 'commander';

/** Bad arguments exit 2, as invalid configuration does (see src/cli.ts). */
export const EXIT_USAGE = 2;

/**
 * Commander's own errors of this command (a missing required option, a value outside its choices)
 * exit 2 like the command's other argument checks, instead of commander's 1. Help and version
 * output (commander's "errors" with code 0) still exit 0.
 */
export function exitTwoOnUsageErrors(command: Command): Command {
  return command.exitOverride((err) => {
    process.exit(err.exitCode === 0 ? 0 : EXIT_USAGE);
  });
}

/** Prints an argument error and sets exit code 2 (the action then returns normally). */
export function failUsage(message: string): void {
  console.error(message);
  process.exitCode = EXIT_USAGE;
}

/** Read-only commands report on an existing database rather than create an empty one. */
export function databaseExists(path: string): boolean {
  return path === ':memory:' || existsSync(path);
}
