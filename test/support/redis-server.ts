import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { EPHEMERAL_REDIS_ARGS } from './redis-process.js';

/** A free TCP port on loopback (closed again before it is returned). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface PrivateRedis {
  port: number;
  url: string;
  /** Stops the server (SIGKILL: as a crash would). */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty: it keeps nothing on disk). */
  start(): Promise<void>;
}

/**
 * A redis-server of the test's own on a free port, for tests that stop or restart Redis (the shared
 * one on 6379 is never stopped). Nothing is kept on disk.
 */
export async function startPrivateRedis(
  options: { port?: number; start?: boolean } = {},
): Promise<PrivateRedis> {
  const port = options.port ?? (await freePort());
  let child: ChildProcess | undefined;
  const url = `redis://127.0.0.1:${port}`;
  const handle: PrivateRedis = {
    port,
    url,
    async start() {
      child = spawn('redis-server', ['--port', String(port), ...EPHEMERAL_REDIS_ARGS], { stdio: 'ignore' });
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      for (let i = 0; i < 100; i++) {
        try {
          await probe.connect();
          await probe.ping();
          probe.disconnect();
          return;
        } catch {
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      probe.disconnect();
      throw new Error(`redis-server did not start on port ${port}`);
    },
    async stop() {
      const c = child;
      child = undefined;
      if (!c || c.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        c.once('exit', () => resolve());
        c.kill('SIGKILL');
      });
    },
  };
  if (options.start ?? true) await handle.start();
  return handle;
}
