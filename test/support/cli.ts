import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  /**
   * Run it in a pseudo-terminal (util-linux `script`), as a person at a terminal would: stdout and
   * stderr are TTYs, and both arrive merged in `stdout`.
   */
  terminal?: boolean;
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs the CLI from source (tsx) as a separate process, as a user would. */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  options: RunCliOptions = {},
): Promise<CliResult> {
  const argv = [process.execPath, '--import', 'tsx', 'src/cli.ts', ...args];
  const childEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'info', ...env };
  const child = options.terminal
    ? spawn('script', ['-qfec', argv.map(shellQuote).join(' '), '/dev/null'], {
        cwd: root,
        env: { TERM: 'xterm', ...childEnv },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(argv[0]!, argv.slice(1), { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  return collect(child);
}

function collect(child: ChildProcessByStdio<null, Readable, Readable>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
