// Writes dist/build-info.json after `tsc` (npm run build): the commit the build was made from, for
// `glacier-collector --version`. GIT_COMMIT (a Docker build argument, CI) wins; else `git rev-parse`
// when the sources are a git checkout; else the commit is left out ("unknown").
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';

function commit() {
  if (process.env.GIT_COMMIT) return process.env.GIT_COMMIT.trim();
  try {
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return dirty ? `${head}-dirty` : head;
  } catch {
    return undefined;
  }
}

mkdirSync('dist', { recursive: true });
writeFileSync(
  'dist/build-info.json',
  `${JSON.stringify({ commit: commit(), builtAt: new Date().toISOString() })}\n`,
);
