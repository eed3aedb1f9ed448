/**
 * `config check` and `--help` load only what they print: the queue, Redis, the database drivers and
 * the HTTP client are the service's (a benchmark figure: `config check` ≤ 2 × `node -e 0`). Any of
 * them imported at the top of a module `config check` reaches fails here, named.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/built.js';
import { tempDir } from '../support/tmp.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
/**
 * Never loaded by `config check` or `--help`: the store, the HTTP client, the queue, the metrics,
 * the CSV writer (`--help` lists the report formats from report/rewards-format-names.ts).
 * The job list is definitions only (jobs/<job>.definition.ts); each handler is imported on run.
 */
const HEAVY = [
  'better-sqlite3',
  'bullmq',
  'cli-progress',
  'csv-parse',
  'csv-stringify',
  'drizzle-orm',
  'ioredis',
  'lossless-json',
  'pg',
  'pg-pool',
  'pino',
  'pino-pretty',
  'prom-client',
  'undici',
];

function packagesLoaded(args: string[]): string[] {
  const { dir, cleanup } = tempDir('glacier-imports-');
  try {
    const trace = join(dir, 'trace');
    const r = spawnSync(
      process.execPath,
      ['--import', './test/support/import-trace.mjs', 'dist/src/cli.js', ...args],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          IMPORT_TRACE_FILE: trace,
          GLACIER_CONFIG: join(root, 'glacier-collector.example.yaml'),
          DATABASE_PATH: join(dir, 'never-opened.db'),
        },
        encoding: 'utf8',
      },
    );
    expect(r.status, r.stderr).toBe(0);
    const urls = readFileSync(trace, 'utf8').split('\n');
    // A package left outside the bundle is loaded from node_modules/; one bundled into a chunk of
    // dist/ is named in that chunk by esbuild's `// node_modules/<package>/<file>` line above its code.
    const paths = urls.flatMap((u) => {
      if (!u.startsWith('file:')) return [];
      const path = fileURLToPath(u);
      if (!path.startsWith(join(root, 'dist'))) return [path];
      return [...readFileSync(path, 'utf8').matchAll(/^\/\/ (node_modules\/\S+)$/gm)].map((m) => `/${m[1]}`);
    });
    const names = paths.flatMap((u) => {
      const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u);
      return m ? [m[1]!] : [];
    });
    return [...new Set(names)].sort();
  } finally {
    cleanup();
  }
}

describe('what the quick commands load', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  it.each([[['config', 'check']], [['--help']]])('%j loads none of the service packages', (args) => {
    const loaded = packagesLoaded(args);
    expect(loaded).toContain('commander'); // the trace works, and sees into the bundle
    expect(loaded.filter((p) => HEAVY.includes(p))).toEqual([]);
  });

  it('status with the queue on Redis loads neither pg, BullMQ nor the HTTP client', () => {
    const loaded = packagesLoaded(['status']);
    expect(loaded).toContain('ioredis'); // it did look at Redis
    const service = ['pg', 'pg-pool', 'bullmq', 'rate-limiter-flexible', 'undici', 'prom-client'];
    expect(loaded.filter((p) => service.includes(p))).toEqual([]);
  });
});
