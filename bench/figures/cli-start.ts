/**
 * Figure 6 (CLI part), CLI start time, whole process: `node dist/src/cli.js --help`, `config check`
 * and `status` against a bare `node -e 0` in the same run, median of several launches each. `status`
 * reads the scrape figure's full database (1,000,000 transactions, 100,000 rewards at scale 1) with
 * the queue on the local Redis (the default prefix; no service need run). Builds dist/ (the esbuild bundle,
 * `npm run build`) first so the figure measures the code of this checkout. Goals: `--help` ≤ 1.5 ×,
 * `config check` ≤ 3 ×, `status` ≤ 4 ×.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { storeLocation } from '../../src/config/index.js';
import { openStore } from '../../src/store/index.js';
import { benchOptions, type Figure, figure, median, scaled } from '../lib.js';
import { scratch } from '../support.js';
import { fill } from './scrape.js';

const GOALS: Record<string, number> = { '--help': 1.5, 'config check': 3, status: 4 };

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
  const full = await openStore(storeLocation(dirs.path('full.db')));
  try {
    await fill(full, scaled(1_000_000, 1000), scaled(100_000, 100));
  } finally {
    await full.close();
  }
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
    status: ['dist/src/cli.js', 'status'],
  };
  const envOf: Record<string, NodeJS.ProcessEnv> = {
    status: { ...env, DATABASE_PATH: dirs.path('full.db') },
  };
  try {
    launch(['-e', '0'], env); // warm the file cache
    const bare: number[] = [];
    const times: Record<string, number[]> = { '--help': [], 'config check': [], status: [] };
    for (let i = 0; i < n; i++) {
      bare.push(launch(['-e', '0'], env));
      for (const [name, args] of Object.entries(commands))
        times[name]!.push(launch(args, envOf[name] ?? env));
    }
    return Object.entries(times).map(([name, ms]) =>
      figure({
        id: `cli-start.${name.replace(/[^a-z]+/g, '-').replace(/^-|-$/g, '')}`,
        title: `CLI start: glacier-collector ${name}`,
        unit: 'ms',
        value: median(ms),
        baseline: median(bare),
        baselineLabel: 'node -e 0',
        goal: { max: GOALS[name]! },
      }),
    );
  } finally {
    dirs.cleanup();
  }
}
