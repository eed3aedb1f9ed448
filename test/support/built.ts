/**
 * What `npm start`, `npm run demo` and `npx glacier-collector` run is the build in dist/ (`npm ci`
 * makes it; CI's dist is always fresh). A test that runs those commands calls `ensureBuilt()` first:
 * it builds when a source, the package file or a tsconfig is newer than the last build, so it tests
 * the code of this checkout, not a stale dist/.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const marker = join(root, 'dist', 'build-info.json');

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

/** Builds dist/ unless it is newer than every source (src/, jobs/, package.json, the build script). */
export function ensureBuilt(): void {
  const sources = ['src', 'jobs', 'package.json', 'scripts/build.mjs', 'scripts/build-info.mjs'].map((p) =>
    join(root, p),
  );
  const built = existsSync(marker) ? statSync(marker).mtimeMs : 0;
  if (sources.every((s) => newest(s) <= built)) return;
  execFileSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'ignore' });
}
