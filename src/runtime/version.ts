import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from './package-root.js';

/** The package version, read on first use. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}

/** A dependency's installed version, or "not installed". */
function installedVersion(name: string): string {
  try {
    const path = createRequire(import.meta.url).resolve(`${name}/package.json`);
    return (JSON.parse(readFileSync(path, 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'not installed';
  }
}

/** The commit the running build was made from (dist/build-info.json, see scripts/build-info.mjs). */
function buildCommit(): string | undefined {
  try {
    // In the dist/ folder this file was bundled into (dist/src/cli.js, dist/src/chunks/…); from the
    // sources (tsx) there is no dist/ above and so no commit.
    let dir = dirname(fileURLToPath(import.meta.url));
    while (basename(dir) !== 'dist' && dir !== dirname(dir)) dir = dirname(dir);
    if (basename(dir) !== 'dist') return undefined;
    const info = JSON.parse(readFileSync(join(dir, 'build-info.json'), 'utf8')) as {
      commit?: string;
      builtAt?: string;
    };
    return info.commit ? `${info.commit}${info.builtAt ? ` (built ${info.builtAt})` : ''}` : undefined;
  } catch {
    return undefined;
  }
}

/** `--version`: the package, Node, the store drivers and the build's commit when known. */
export function versionReport(): string {
  return [
    `glacier-collector ${packageVersion()}`,
    `node ${process.version}`,
    `store drivers: better-sqlite3 ${installedVersion('better-sqlite3')} (SQLite), pg ${installedVersion('pg')} (PostgreSQL)`,
    `commit ${buildCommit() ?? 'unknown (running from the sources, or built outside a git checkout without GIT_COMMIT)'}`,
  ].join('\n');
}
