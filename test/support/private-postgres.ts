import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redis-server.js';

/**
 * A PostgreSQL cluster of the test's own (initdb in a temporary directory, on a free port), for tests
 * that stop the server: the shared one on 5432 is never stopped. Runs the server binaries as user
 * `postgres` when the tests run as root (initdb refuses root). Undefined when no binaries are found.
 */
export interface PrivatePostgres {
  url: string;
  stop(): void;
  start(): void;
  destroy(): void;
}

function binDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base).sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => join(base, v, 'bin')).find((d) => existsSync(join(d, 'pg_ctl')));
}

export async function startPrivatePostgres(): Promise<PrivatePostgres | undefined> {
  const bin = binDir();
  if (!bin) return undefined;
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'glacier-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const asPostgres = (cmd: string, args: string[]) => {
    const root = process.getuid?.() === 0;
    execFileSync(root ? 'runuser' : cmd, root ? ['-u', 'postgres', '--', cmd, ...args] : args, {
      stdio: 'pipe',
    });
  };
  asPostgres(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  const pg: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start() {
      asPostgres(join(bin, 'pg_ctl'), [
        '-D',
        data,
        '-w',
        '-l',
        join(dir, 'log'),
        '-o',
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
        'start',
      ]);
    },
    /** An immediate stop: as a crash of the server would (open transactions are lost). */
    stop() {
      asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
    },
    destroy() {
      try {
        pg.stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  pg.start();
  return pg;
}
