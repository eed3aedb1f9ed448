import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type CliResult, collect } from './cli.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A command line run by a POSIX shell in the clone, as a user types it. */
export function shell(line: string, env: Record<string, string> = {}): Promise<CliResult> {
  const child = spawn('sh', ['-c', line], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return collect(child);
}
