import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/**
 * The folder holding the package's package.json (and drizzle/, spec/): the first one above this
 * file, whether it runs from src/ (tsx, vitest) or from dist/src/ (built).
 */
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'package.json'))) {
      root = dir;
      return dir;
    }
    dir = dirname(dir);
  }
  throw new Error('glacier-collector: package.json not found above the installed files');
}
