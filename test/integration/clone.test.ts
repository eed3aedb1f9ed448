import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/built.js';
import { freePort } from '../support/redis-server.js';
import { deletePrefix } from '../support/service.js';
import { shell } from '../support/shell.js';
import { tempDir } from '../support/tmp.js';

/**
 * From a clone, as the README says: `npx glacier-collector …` and `npm start`. Both run the build
 * (dist/), made fresh first if a source is newer.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

beforeAll(() => ensureBuilt(), 300_000);

function dir(): string {
  const t = tempDir('glacier-clone-');
  cleanups.push(t.cleanup);
  return t.dir;
}

describe('npx glacier-collector', () => {
  it('config init names the next command as npx runs it, and that command runs', async () => {
    const d = dir();
    const path = join(d, 'glacier-collector.yaml');
    const init = await shell(`npx glacier-collector config init ${path}`);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout.trim()).toBe(
      `wrote ${path}: a commented example of every key. Edit it, then check it with \`npx glacier-collector -c ${path} config check\`.`,
    );
    expect(readFileSync(path, 'utf8')).toMatch(/^# Written by `npx glacier-collector config init`/m);
    const check = await shell(`npx glacier-collector -c ${path} config check`, {
      DATABASE_PATH: join(d, 'glacier.db'),
    });
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toContain(`config OK: ${path}`);
    expect(check.stdout).toContain(`npx glacier-collector -c ${path} config check --print`);
  }, 120_000);
});

interface NpmStart {
  npm: ChildProcessByStdio<null, Readable, Readable>;
  /** The collector: the process npm runs (its script `exec`s node). */
  collectorPid: number;
  output(): string;
  exited: Promise<number | null>;
}

/** The pids of a process's children (Linux /proc). */
function childrenOf(pid: number): number[] {
  try {
    const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return text ? text.split(/\s+/).map(Number) : [];
  } catch {
    return [];
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `npm start` in the clone, in a process group of its own (a terminal's foreground job). */
async function npmStart(): Promise<NpmStart> {
  const d = dir();
  const prefix = `t${randomBytes(4).toString('hex')}`;
  cleanups.push(() => deletePrefix('redis://127.0.0.1:6379', prefix));
  const config = join(d, 'glacier-collector.json');
  writeFileSync(config, JSON.stringify({ jobs: {}, service: { queuePrefix: prefix, shutdownGrace: '5s' } }));
  const npm = spawn('npm', ['start'], {
    cwd: root,
    detached: true,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      GLACIER_CONFIG: config,
      DATABASE_PATH: join(d, 'glacier.db'),
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(await freePort()),
      LOG_FORMAT: 'json',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  npm.stdout.on('data', (b: Buffer) => {
    out += b.toString();
  });
  npm.stderr.on('data', (b: Buffer) => {
    out += b.toString();
  });
  const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
  cleanups.push(async () => {
    if (npm.exitCode === null) {
      process.kill(-npm.pid!, 'SIGKILL');
      await exited;
    }
  });
  for (let i = 0; i < 600 && !out.includes('glacier-collector started'); i++) {
    if (npm.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(out, 'the service did not start').toContain('glacier-collector started');
  const children = childrenOf(npm.pid!);
  expect(children).toHaveLength(1);
  return { npm, collectorPid: children[0]!, output: () => out, exited };
}

describe('npm start and signals', () => {
  it('npm runs the collector itself, not a shell around it', async () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    for (const script of ['start', 'demo', 'cli']) expect(pkg.scripts[script]).toMatch(/^exec /);
    const s = await npmStart();
    const cmdline = readFileSync(`/proc/${s.collectorPid}/cmdline`, 'utf8').split('\0');
    expect(cmdline.slice(1, 3)).toEqual(['dist/src/cli.js', 'start']);
    process.kill(s.npm.pid!, 'SIGTERM');
    await s.exited;
  }, 120_000);

  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s to the pid of `npm start` stops the collector gracefully: exit 0, nothing left running',
    async (signal) => {
      const s = await npmStart();
      process.kill(s.npm.pid!, signal);
      expect(await s.exited, s.output()).toBe(0);
      expect(alive(s.collectorPid)).toBe(false);
      expect(s.output()).toContain('"msg":"signal received"');
      expect(s.output()).not.toContain('second signal');
    },
    120_000,
  );

  it("Ctrl-C (SIGINT to the terminal's foreground group: npm forwards it too) stops it gracefully, exit 0", async () => {
    const s = await npmStart();
    process.kill(-s.npm.pid!, 'SIGINT');
    expect(await s.exited, s.output()).toBe(0);
    expect(alive(s.collectorPid)).toBe(false);
    // The collector saw the keypress twice (the terminal's and npm's): one graceful stop.
    expect(s.output().match(/"msg":"signal received"/g)).toHaveLength(1);
    expect(s.output()).not.toContain('second signal');
  }, 120_000);
});

afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
