import type { Store } from './open.js';

const caches = new WeakMap<Store, Map<string, unknown>>();

/** One prepared writer per store and name, built on first use (nothing happens at import time). */
export function memo<T>(store: Store, name: string, build: () => T): T {
  let cache = caches.get(store);
  if (!cache) {
    cache = new Map();
    caches.set(store, cache);
  }
  if (!cache.has(name)) cache.set(name, build());
  return cache.get(name) as T;
}
