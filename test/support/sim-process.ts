import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SIMULATOR_NODE_OPTIONS, type SimulatorOptions } from '../../src/simulator/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface SimulatorProcess {
  url: string;
  pid: number;
  /** User + system CPU the process has used so far, ms (Linux /proc), or NaN. */
  cpuMs(): number;
  close(): Promise<void>;
}

/** Starts the simulator in a child process (see sim-main.ts), with the options compose gives it, and waits until it listens. */
export async function startSimulatorProcess(
  options: Omit<SimulatorOptions, 'clock' | 'port' | 'onError'> = {},
  clockMs?: number,
): Promise<SimulatorProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      SIMULATOR_NODE_OPTIONS,
      '--import',
      'tsx',
      'test/support/sim-main.ts',
      JSON.stringify({ options, clockMs }),
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /READY (\S+)\n/.exec(out);
      if (m) {
        child.stdout?.off('data', onData);
        resolve(m[1]!);
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`simulator process exited with ${code} before listening`)));
    child.once('error', reject);
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    url,
    pid: child.pid!,
    cpuMs: () => processCpuMs(child.pid!),
    close: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** utime + stime of a process from /proc/<pid>/stat, in ms (clock ticks are 10 ms on Linux). */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}
