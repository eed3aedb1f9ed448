import { type ChildProcess, spawn } from 'node:child_process';
import { Redis, type RedisOptions } from 'ioredis';
import { tempDir } from './tmp.js';

/**
 * A test's Redis: loopback only, no snapshot and no append-only file, and the eviction policy BullMQ
 * needs. A replica is fed over the socket (diskless sync and load), so replication writes no RDB
 * either; whatever a server would still write lands in its own temporary directory (spawnRedis).
 */
export const EPHEMERAL_REDIS_ARGS = [
  '--bind',
  '127.0.0.1',
  '--save',
  '',
  '--appendonly',
  'no',
  '--repl-diskless-sync',
  'yes',
  '--repl-diskless-sync-delay',
  '0',
  '--repl-diskless-load',
  'on-empty-db',
  '--maxmemory-policy',
  'noeviction',
];

/** A client to a test's Redis on `port` that connects when asked, tries once and never reconnects. */
export function oneShotClient(port: number, options: RedisOptions = {}): Redis {
  const client = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    ...options,
  });
  client.on('error', () => undefined);
  return client;
}

export interface RedisProcess {
  port: number;
  /** Its process id (a test stops it with SIGSTOP, as a frozen host would). */
  pid: number;
  kill(): Promise<void>;
}

/**
 * A redis-server or redis-sentinel of the test's own, started with `args` (its port among them) and
 * waited for until it answers PING on `port` (over TLS with `probe.tls`). It runs in a temporary
 * directory of its own (its working directory, and a redis-server's `--dir`), removed once it is
 * killed: nothing lands in the checkout. `kill` is a SIGKILL: as a crash would.
 */
export async function spawnRedis(
  command: 'redis-server' | 'redis-sentinel',
  args: string[],
  port: number,
  probe: RedisOptions = {},
): Promise<RedisProcess> {
  let stderr = '';
  const { dir, cleanup } = tempDir(`glacier-${command}-`);
  const child: ChildProcess = spawn(command, command === 'redis-server' ? [...args, '--dir', dir] : args, {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4_000);
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4_000);
  });
  const handle: RedisProcess = {
    port,
    pid: child.pid ?? -1,
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }).finally(cleanup),
  };
  const client = oneShotClient(port, probe);
  try {
    for (let i = 0; i < 200; i++) {
      if (child.exitCode !== null) break;
      try {
        await client.connect();
        await client.ping();
        return handle;
      } catch {
        client.disconnect();
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  } finally {
    client.disconnect();
  }
  await handle.kill();
  throw new Error(`${command} did not answer on port ${port}: ${stderr}`);
}
