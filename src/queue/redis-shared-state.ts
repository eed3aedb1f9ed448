/**
 * The shared state on Redis: plain keys under `<prefix>:`, with Redis's own expiry. Its own module, so
 * `status` (src/queue/probe.ts) reads the heartbeats without loading BullMQ or the budget's limiter.
 */
import type { Redis } from 'ioredis';
import type { SharedState } from './backend.js';

/** Keys under `<prefix>:`, with Redis's own expiry. */
export function redisSharedState(redis: Redis, prefix: string): SharedState {
  const k = (key: string) => `${prefix}:${key}`;
  return {
    async put(entries) {
      const multi = redis.multi();
      for (const e of entries) {
        if (e.ttlMs === undefined) multi.set(k(e.key), e.value);
        else multi.set(k(e.key), e.value, 'PX', Math.max(1, Math.ceil(e.ttlMs)));
      }
      await multi.exec();
    },
    async putIfAbsent(key, value) {
      return (await redis.set(k(key), value, 'NX')) === 'OK';
    },
    async lengthen(key, ttlMs) {
      const ms = Math.max(1, Math.ceil(ttlMs));
      // NX sets a new one, GT extends a shorter one (Redis 7).
      const set = await redis.set(k(key), '1', 'PX', ms, 'NX');
      if (!set) await redis.pexpire(k(key), ms, 'GT');
    },
    async ttlMs(key) {
      return Math.max(0, await redis.pttl(k(key)));
    },
    get: (key) => redis.get(k(key)),
    async list(start) {
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, batch] = await redis.scan(cursor, 'MATCH', `${k(start)}*`, 'COUNT', 100);
        cursor = next;
        keys.push(...batch);
      } while (cursor !== '0');
      const values = keys.length > 0 ? await redis.mget(...keys) : [];
      const found: [string, string][] = [];
      values.forEach((value, i) => {
        // null: expired between SCAN and MGET
        if (value !== null) found.push([(keys[i] as string).slice(prefix.length + 1), value]);
      });
      return found;
    },
    async del(key) {
      await redis.del(k(key));
    },
  };
}
