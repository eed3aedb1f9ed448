/**
 * `start` under npm (`npx glacier-collector start`) stops when its parent goes away: npx got
 * SIGTERM or SIGKILL and did not pass it on. A parent process spawns `start` as npx does (its
 * `npm_lifecycle_event`), then is killed; `start` must end within its shutdown deadline.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { queueEnv } from '../../support/queue.js';
import { freePort } from '../../support/redis-server.js';
import { type ServiceHarness, serviceHarness, waitFor } from '../../support/service.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
let h: ServiceHarness | undefined;
const leftovers: number[] = [];
afterEach(async () => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
  await h?.close();
  h = undefined;
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A parent (as npx) that spawns `start`, writes its pid, and neither forwards signals nor waits. */
const PARENT = `
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const [cli, config, log, pidFile] = process.argv.slice(1);
const out = fs.openSync(log, 'a');
const child = spawn(process.execPath, ['--import', 'tsx', cli, 'start', '-c', config], { stdio: ['ignore', out, out] });
fs.writeFileSync(pidFile, String(child.pid));
setInterval(() => undefined, 1000);
`;

describe('start under npx', () => {
  it.each(['SIGTERM', 'SIGKILL'] as const)(
    'stops when its parent gets %s and goes away',
    async (signal) => {
      h = await serviceHarness();
      const configPath = join(h.dir, 'glacier-collector.json');
      writeFileSync(
        configPath,
        JSON.stringify({
          jobs: { supply: { schedule: '0 0 1 1 *' } },
          service: { queuePrefix: h.prefix, shutdownGrace: '5s' },
        }),
      );
      const log = join(h.dir, 'start.log');
      const pidFile = join(h.dir, 'start.pid');
      const parent: ChildProcess = spawn(
        process.execPath,
        ['-e', PARENT, join(root, 'src/cli.ts'), configPath, log, pidFile],
        {
          cwd: root,
          stdio: 'ignore',
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '',
            npm_lifecycle_event: 'npx',
            GLACIER_BASE_URL: h.sim.url,
            ...h.dbEnv,
            ...queueEnv(),
            METRICS_HOST: '127.0.0.1',
            METRICS_PORT: String(await freePort()),
            LOG_LEVEL: 'info',
          },
        },
      );
      if (parent.pid) leftovers.push(parent.pid);
      await waitFor(
        () => {
          try {
            return /glacier-collector started/.test(readFileSync(log, 'utf8'));
          } catch {
            return false;
          }
        },
        30_000,
        'start serving',
      );
      const pid = Number(readFileSync(pidFile, 'utf8'));
      leftovers.push(pid);
      parent.kill(signal);
      // Its deadline: the shutdown grace (5 s) and its margin, after the watch's check (1 s).
      await waitFor(() => !alive(pid), 15_000, 'start to exit');
      expect(readFileSync(log, 'utf8')).toMatch(/started by npm, which is gone: stopping/);
    },
    90_000,
  );
});
