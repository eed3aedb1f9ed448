import { join } from 'node:path';
import { openStore, type Store } from '../../src/store/index.js';
import { tempDir } from './tmp.js';

/** A real SQLite file with migrations applied, removed on cleanup. */
export function testStore(): { store: Store; path: string; cleanup: () => void } {
  const { dir, cleanup } = tempDir('glacier-db-');
  const path = join(dir, 'test.db');
  const store = openStore(path);
  return {
    store,
    path,
    cleanup: () => {
      store.close();
      cleanup();
    },
  };
}
