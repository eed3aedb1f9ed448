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
  /**
   * Kill it (SIGKILL) if it has not exited after this long, and reject with what it printed: a hung
   * process then fails its test with its output rather than with a bare test timeout.
   */
  timeoutMs?: number;
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
  return collect(child, options.timeoutMs);
}

export function collect(
  child: ChildProcessByStdio<null, Readable, Readable>,
  timeoutMs?: number,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    let timedOut = false;
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
          }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (!timedOut) return resolve({ code, stdout, stderr });
      const output = (stdout + stderr).slice(-6000);
      reject(new Error(`the CLI had not exited after ${timeoutMs} ms (killed); its output:\n${output}`));
    });
  });
}

export interface CliProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** Settles when it exits: code, stdout and stderr apart. */
  done: Promise<CliResult>;
  /** Everything printed so far, stdout and stderr interleaved. */
  output(): string;
  /** Resolves when the output matches `pattern` (rejects after `timeoutMs`). */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
  exited: Promise<number | null>;
}

/** Starts the CLI as a long-running process (`start`, `simulator`), as a user would. */
export function spawnCli(args: string[], env: Record<string, string> = {}): CliProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    done: collect(child),
    output: () => out,
    exited,
    waitForOutput(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(out)) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(
            new Error(`no output matching ${pattern} within ${timeoutMs} ms; output:\n${out.slice(-3000)}`),
          );
        }, timeoutMs);
        listeners.add(check);
        void exited.then(() => {
          if (listeners.has(check)) {
            listeners.delete(check);
            clearTimeout(timer);
            reject(
              new Error(`process exited before output matching ${pattern}; output:\n${out.slice(-3000)}`),
            );
          }
        });
        check();
      });
    },
  };
}

/** Stops a CLI process still running (a test's cleanup): SIGKILL by default, as a crash would. */
export async function stopCli(
  proc: CliProcess | undefined,
  signal: NodeJS.Signals = 'SIGKILL',
): Promise<void> {
  if (!proc || proc.child.exitCode !== null) return;
  proc.child.kill(signal);
  await proc.exited;
}
