/**
 * What the fault tests of the queue's backend share (redis-answers, sentinel-answers, redis-tls):
 * filling a Redis past maxmemory, a process's CPU, /readyz's verdict, and the log lines of a process.
 */
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

/**
 * Writes values (1 MiB, then smaller ones down to 64 B) until Redis refuses even the smallest: its used
 * memory is then past maxmemory, not only a large value's query buffer. The keys written.
 */
export async function fill(redis: Redis): Promise<string[]> {
  const keys: string[] = [];
  // Each step fills what the larger one's refusal left (a refused value's query buffer is freed).
  for (const size of [1024 * 1024, 64 * 1024, 4 * 1024, 256, 64]) {
    for (let i = 0; ; i++) {
      if (i > 4_000) throw new Error('Redis never refused a write: is maxmemory set?');
      const key = `glc-fill-${size}-${i}`;
      try {
        await redis.set(key, Buffer.alloc(size, 1));
        keys.push(key);
      } catch (err) {
        if (/OOM/.test((err as Error).message)) break;
        throw err;
      }
    }
  }
  return keys;
}

/** Redis's `used_memory` (INFO memory), in bytes. */
export async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  const used = /^used_memory:(\d+)/m.exec(info)?.[1];
  if (!used) throw new Error(`no used_memory in INFO memory: ${info.slice(0, 200)}`);
  return Number(used);
}

/** User and system CPU seconds of a process so far (Linux's /proc, in clock ticks of 1/100 s). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** /readyz's verdict and its checks. */
export async function readyz(port: number): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { status: res.status, body };
}

/** The JSON log lines of `output` whose message matches `msg`. */
export function linesMatching(output: string, msg: RegExp): Record<string, unknown>[] {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => msg.test(String(l.msg)));
}
