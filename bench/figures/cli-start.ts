/**
 * Figure 6 (CLI part), CLI start time: `node dist/src/cli.js --help` and `config check` against a bare
 * `node -e 0`, median of several launches each. Builds dist/ first (`npm run build`) so the figure
 * measures the code of this checkout. Goal ≤ 2 ×.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { benchOptions, type Figure, figure, median } from '../lib.js';
import { scratch } from '../support.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function launch(args: string[], env: NodeJS.ProcessEnv): number {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: root, env, stdio: 'ignore' });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${r.status}`);
  return ms;
}

export async function run(): Promise<Figure[]> {
  // The smoke test (a tiny scale) measures dist/ as `npm ci` built it: a build takes most of a minute.
  if (benchOptions().scale >= 0.1 || !existsSync(new URL('../../dist/src/cli.js', import.meta.url))) {
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  }
  const dirs = scratch('cli');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATABASE_PATH: dirs.path('cli.db'),
    GLACIER_CONFIG: fileURLToPath(new URL('../../glacier-collector.example.yaml', import.meta.url)),
  };
  const n = benchOptions().scale < 0.1 ? 1 : Math.max(5, benchOptions().runs * 3);
  const commands = {
    '--help': ['dist/src/cli.js', '--help'],
    'config check': ['dist/src/cli.js', 'config', 'check'],
  };
  try {
    launch(['-e', '0'], env); // warm the file cache
    const bare: number[] = [];
    const times: Record<string, number[]> = { '--help': [], 'config check': [] };
    for (let i = 0; i < n; i++) {
      bare.push(launch(['-e', '0'], env));
      for (const [name, args] of Object.entries(commands)) times[name]!.push(launch(args, env));
    }
    return Object.entries(times).map(([name, ms]) =>
      figure({
        id: `cli-start.${name.replace(/[^a-z]+/g, '-').replace(/^-|-$/g, '')}`,
        title: `CLI start: glacier-collector ${name}`,
        unit: 'ms',
        value: median(ms),
        baseline: median(bare),
        baselineLabel: 'node -e 0',
        goal: { max: 2 },
      }),
    );
  } finally {
    dirs.cleanup();
  }
}
