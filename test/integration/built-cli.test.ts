/**
 * The built CLI (dist/, an esbuild bundle: scripts/build.mjs) runs every command once from a folder
 * that is not the repository, as an installed package or the container image runs it. A chunk that
 * cannot be loaded, or a file read at run time (drizzle's migrations, the example config, spec/,
 * package.json, dist/build-info.json) that the bundle no longer finds, fails here, named by command.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoFileConfig } from '../../src/commands/demo-config.js';
import { ensureBuilt } from '../support/built.js';
import { type CliResult, collect } from '../support/cli.js';
import { freePort } from '../support/redis-server.js';
import { deletePrefix } from '../support/service.js';
import { tempDir } from '../support/tmp.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'dist', 'src', 'cli.js');
const cleanups: (() => void | Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

let dir = '';
let env: Record<string, string> = {};

function spawnBuilt(
  args: string[],
  extra: Record<string, string> = {},
): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(process.execPath, [cli, ...args], {
    cwd: dir,
    env: { ...env, ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function built(args: string[], extra: Record<string, string> = {}): Promise<CliResult> {
  const r = await collect(spawnBuilt(args, extra), 120_000);
  expect(r.code, `${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r;
}

/** Starts a long-running command and resolves once it printed `ready`; `stop()` sends SIGTERM. */
async function running(args: string[], ready: RegExp, extra: Record<string, string> = {}) {
  const child = spawnBuilt(args, extra);
  let out = '';
  const onData = (b: Buffer) => {
    out += b.toString();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  cleanups.push(async () => {
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  for (let i = 0; i < 600 && !ready.test(out) && child.exitCode === null; i++)
    await new Promise((r) => setTimeout(r, 100));
  expect(out, `${args.join(' ')} did not get ready`).toMatch(ready);
  return {
    output: () => out,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('the built CLI, from a folder outside the repository', () => {
  beforeAll(() => {
    ensureBuilt();
    const t = tempDir('glacier-built-');
    cleanups.push(t.cleanup);
    dir = t.dir;
    env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn' };
  }, 300_000);

  it('--version names the commit it was built from; --help and completion print', async () => {
    const version = await built(['--version']);
    expect(version.stdout).toMatch(/^glacier-collector \d+\.\d+\.\d+/);
    expect(version.stdout).toMatch(/^commit [0-9a-f]{7,}/m);
    expect((await built(['--help'])).stdout).toContain('Commands:');
    expect((await built(['completion', 'bash'])).stdout).toContain('glacier-collector');
  });

  it('config init writes the example; demo runs every job in-process and leaves its database', async () => {
    await built(['config', 'init', './glacier-collector.yaml']);
    expect(existsSync(join(dir, 'glacier-collector.yaml'))).toBe(true);
    // No Redis where REDIS_URL points: the demo runs each job's handler twice, in-process.
    const demo = await built(['demo', '--database', './demo.db', '--duration', '5'], {
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      METRICS_PORT: String(await freePort()),
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
    });
    expect(demo.stdout).toContain('The demo is over');
    const outcomes = [...demo.stdout.matchAll(/"job":"([a-z-]+)".*"status":"([a-z-]+)".*"msg":"job run"/g)];
    expect(new Set(outcomes.map((m) => m[1])).size, demo.stdout).toBeGreaterThanOrEqual(7);
    expect(new Set(outcomes.map((m) => m[2])), demo.stdout).toEqual(new Set(['succeeded']));
  }, 180_000);

  it('simulator, run, config check, plan, migrate, status, reset, report, backup, migrate-store', async () => {
    const port = await freePort();
    const sim = await running(['simulator', '--port', String(port)], /listening on http/);
    cleanups.push(() => void sim.stop());
    writeFileSync(join(dir, 'glacier.json'), JSON.stringify(demoFileConfig()));
    const db = { GLACIER_CONFIG: './glacier.json', DATABASE_PATH: './demo.db' };
    await built(['config', 'check'], db);
    await built(['plan', '--tier', 'Free'], db);
    await built(['migrate'], db);
    await built(['run', 'supply'], { ...db, GLACIER_BASE_URL: `http://127.0.0.1:${port}` });
    expect((await built(['status'], db)).stdout).toContain('supply');
    await built(['status', '--json'], db);
    await built(['reset', 'transactions'], db);
    await built(['report', 'rewards', '--from', '2020-09-21', '--to', '2030-12-31'], db);
    await built(['backup', './backup.db'], db);
    await built(['migrate-store', '--from', './demo.db', '--to', './copy.db'], db);
    expect(await sim.stop()).toBe(0);
  }, 180_000);

  it('start serves until SIGTERM, then exits 0', async () => {
    const prefix = `t${randomBytes(4).toString('hex')}`;
    cleanups.push(() => deletePrefix('redis://127.0.0.1:6379', prefix));
    writeFileSync(
      join(dir, 'service.json'),
      JSON.stringify({ jobs: {}, service: { queuePrefix: prefix, shutdownGrace: '5s' } }),
    );
    const service = await running(['start'], /glacier-collector started/, {
      GLACIER_CONFIG: './service.json',
      DATABASE_PATH: './service.db',
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(await freePort()),
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
    });
    expect(await service.stop(), service.output()).toBe(0);
  }, 120_000);
});
