import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

const require = createRequire(import.meta.url);
const installed = (name: string) =>
  (JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version: string }).version;
const root = fileURLToPath(new URL('../..', import.meta.url));

describe('--version', () => {
  it('names the package, Node, the store drivers and the build commit', async () => {
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(r.stdout.trim().split('\n')).toEqual([
      `glacier-collector ${pkg.version}`,
      `node ${process.version}`,
      `store drivers: better-sqlite3 ${installed('better-sqlite3')} (SQLite), pg ${installed('pg')} (PostgreSQL)`,
      // From the sources (tsx) there is no build: the commit is unknown, and said so.
      expect.stringMatching(/^commit unknown \(/),
    ]);
  });

  it('the build records the commit it was made from, GIT_COMMIT first', () => {
    const { dir, cleanup } = tempDir('glacier-build-info-');
    try {
      const r = spawnSync(process.execPath, [join(root, 'scripts/build-info.mjs')], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', GIT_COMMIT: 'abc123def456' },
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(0);
      const info = JSON.parse(readFileSync(join(dir, 'dist/build-info.json'), 'utf8')) as { commit: string };
      expect(info.commit).toBe('abc123def456');
    } finally {
      cleanup();
    }
  });
});
