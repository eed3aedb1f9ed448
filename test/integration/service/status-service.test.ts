import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { storeLocation } from '../../../src/config/index.js';
import type { Status } from '../../../src/report/status.js';
import { finishJobRun, openStore, startJobRun } from '../../../src/store/index.js';
import { type CliProcess, runCli, spawnCli } from '../../support/cli.js';
import { onPostgresQueue, queueEnv, queueIsEmpty, withSharedState } from '../../support/queue.js';
import { freePort } from '../../support/redis-server.js';
import { type ServiceHarness, serviceHarness } from '../../support/service.js';

/** `status` tells the truth about the service: its heartbeats, the queue, overdue jobs. */

let h: ServiceHarness | undefined;
const procs: CliProcess[] = [];
afterEach(async () => {
  for (const p of procs.splice(0)) {
    if (p.child.exitCode === null) {
      p.child.kill('SIGKILL');
      await p.exited;
    }
  }
  await h?.close();
  h = undefined;
});

const DAY_MS = 86_400_000;

/** A collector whose supply job (daily at midnight UTC) last ran two days ago. */
async function setUp() {
  h = await serviceHarness();
  const configPath = join(h.dir, 'glacier-collector.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      jobs: { supply: { schedule: '0 0 * * *' }, transactions: { schedule: '0 0 1 1 *' } },
      service: { queuePrefix: h.prefix, shutdownGrace: '5s' },
    }),
  );
  const store = await openStore(storeLocation(h.location));
  const startedAt = new Date(Date.now() - 2 * DAY_MS).toISOString();
  try {
    const id = await startJobRun(store, 'supply', 'all', startedAt);
    await finishJobRun(store, id, {
      status: 'succeeded',
      finishedAt: startedAt,
      rowsWritten: 1,
      requests: 1,
      computeUnits: 1,
    });
  } finally {
    await store.close();
  }
  const env: Record<string, string> = {
    GLACIER_BASE_URL: h.sim.url,
    ...h.dbEnv,
    ...(onPostgresQueue && queueEnv()),
    METRICS_HOST: '127.0.0.1',
  };
  return { configPath, env, startedAt };
}

async function status(configPath: string, env: Record<string, string>) {
  const json = await runCli(['status', '--json', '-c', configPath], env);
  expect(json.code, json.stderr).toBe(0);
  const text = await runCli(['status', '-c', configPath], env);
  expect(text.code, text.stderr).toBe(0);
  return { json: JSON.parse(json.stdout) as Status, text: text.stdout };
}

describe('status and the service', () => {
  it('lists the running processes and the queue, then says since when no service runs; marks overdue jobs', async () => {
    const { configPath, env, startedAt } = await setUp();
    const port = await freePort();
    const proc = spawnCli(['start', '-c', configPath], { ...env, METRICS_PORT: String(port) });
    procs.push(proc);
    await proc.waitForOutput(/glacier-collector started/);

    const running = await status(configPath, env);
    expect(running.json.service).toMatchObject({ reachable: true, error: null, prefix: h!.prefix });
    expect(running.json.service!.processes).toEqual([
      expect.objectContaining({ role: 'all', host: hostname(), pid: proc.child.pid }),
    ]);
    expect(running.json.service!.queue).toEqual({
      waiting: expect.any(Number),
      active: expect.any(Number),
      delayed: expect.any(Number),
      failed: expect.any(Number),
    });
    // Under the queue prefix, with a TTL: a process that dies without a word drops out by itself.
    const ttl = await withSharedState(h!.prefix, (shared) =>
      shared.ttlMs(`heartbeat:${hostname()}:${proc.child.pid}`),
    );
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30_000);
    expect(running.text).toContain('service: 1 process running');
    expect(running.text).toMatch(new RegExp(`^  all\\s+${hostname()}:${proc.child.pid}  started `, 'm'));
    expect(running.text).toMatch(/^queue: waiting \d+, active \d+, delayed \d+, failed \d+$/m);

    // The supply job's next midnight after its last run passed long ago: overdue, whatever runs.
    const supply = running.json.jobs.find((j) => j.job === 'supply')!;
    const due = new Date(Date.parse(startedAt) + DAY_MS);
    due.setUTCHours(0, 0, 0, 0);
    expect(supply.overdueSince).toBe(due.toISOString());
    expect(running.json.jobs.find((j) => j.job === 'transactions')!.overdueSince).toBeNull();
    expect(running.text).toMatch(/^supply\s.*OVERDUE since \S+ \S+Z \(\d+[hd] ago\)$/m);
    expect(running.text).toContain('overdue: supply');

    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    const stopped = await status(configPath, env);
    expect(stopped.json.service!.processes).toEqual([]);
    expect(stopped.json.service!.lastSeenAt).not.toBeNull();
    expect(stopped.text).toMatch(/^service: NOT RUNNING: no service seen since \S+ \S+Z \(\d+s ago\)/m);
    expect(stopped.text).toContain(`start it with \`node --import tsx src/cli.ts -c ${configPath} start\``);
    // No service: a next-run time is only the schedule's next slot, not a promise.
    expect(stopped.json.schedulerRunning).toBe(false);
    expect(running.json.schedulerRunning).toBe(true);
    expect(stopped.text).toMatch(/^transactions\s.*not scheduled \(slot \S+ \S+Z\)$/m);
    expect(stopped.text).not.toMatch(/^transactions\s.*\(in \d+\w\)$/m);
    expect(running.text).toMatch(/^transactions\s.*\(in \d+\w\)$/m);
  }, 90_000);

  it('reads the queue backend and writes nothing there: no key (no schema) under a prefix no collector used', async () => {
    const { configPath, env } = await setUp();
    const r = await status(configPath, env);
    expect(r.json.service).toMatchObject({ reachable: true, processes: [], lastSeenAt: null });
    expect(await queueIsEmpty(h!.prefix)).toBe(true);
  });

  const ESC = '\u001b';
  const setBeats = async (beats: Record<string, string>) => {
    await withSharedState(h!.prefix, (shared) =>
      shared.put(
        Object.entries(beats).map(([key, value]) => ({ key: `heartbeat:${key}`, value, ttlMs: 60_000 })),
      ),
    );
  };
  const beat = (role: unknown, host: unknown) => {
    const now = new Date().toISOString();
    return JSON.stringify({ role, host, pid: 4242, startedAt: now, beatAt: now });
  };

  it('escapes every string status prints from the database and from the queue backend', async () => {
    const { configPath, env } = await setUp();
    const now = new Date().toISOString();
    // An export in flight whose stored name and dates hold escape sequences (a screen clear, a title).
    const store = await openStore(storeLocation(h!.location));
    const sqlite = store.dialect === 'sqlite';
    try {
      await store.run(
        `INSERT INTO export_operations (operation_id, export_name, first_date, last_date, operation_type, request,
           status, created_at_ms, updated_at_ms, status_history, recorded_at, polled_at)
         VALUES (?, ?, ?, ?, 'TRANSACTION_EXPORT_EVM', '{}', 'RUNNING', 0, 0, '[]', ?, ?)`,
        [
          'op-1',
          `evil${ESC}[2J${ESC}[H`,
          `2025-01-01${ESC}]0;pwned\u0007`,
          '2025-01-02',
          now,
          // polled_at is text on SQLite (any value), a timestamp on PostgreSQL.
          sqlite ? `soon${ESC}[31m` : now,
        ],
      );
    } finally {
      await store.close();
    }
    // A heartbeat whose host holds an escape sequence.
    await setBeats({ 'a:1': beat('all', `host${ESC}[2J`) });

    const seen = await status(configPath, env);
    expect(seen.text).not.toContain(ESC);
    expect(seen.text).not.toContain('\u0007');
    expect(seen.text).toContain('evil\\x1b[2J\\x1b[H 2025-01-01\\x1b]0;pwned\\x07..2025-01-02 RUNNING');
    if (sqlite) expect(seen.text).toContain('"soon\\u001b[31m" (not a time)');
    expect(seen.text).toMatch(/^ {2}all\s+host\\x1b\[2J:4242 {2}started /m);
  });

  it('shows a heartbeat that is not a beat as malformed, instead of failing', async () => {
    const { configPath, env } = await setUp();
    await setBeats({
      'a:1': beat('all', 'host-a'),
      'b:2': beat(7, 'host-b'),
      'c:3': `not json${ESC}[2J`,
      'd:4': JSON.stringify({ role: 'worker' }),
    });
    // Before: `p.role.padEnd is not a function`, exit 1.
    const seen = await status(configPath, env);
    for (const key of ['b:2', 'c:3', 'd:4']) {
      expect(seen.text).toContain(`malformed heartbeat ${h!.prefix}:heartbeat:${key}: `);
    }
    expect(seen.text).toContain('"not json\\u001b[2J" (not a beat this version writes; ignored)');
    expect(seen.text).toContain('service: 1 process running');
    expect(seen.json.service!.processes).toHaveLength(1);
    expect(seen.json.service!.malformed.map((m) => m.key).sort()).toEqual(
      ['b:2', 'c:3', 'd:4'].map((k) => `${h!.prefix}:heartbeat:${k}`),
    );
  });

  it('says the queue backend does not answer, and still reports from the database', async () => {
    const { configPath, env } = await setUp();
    const nobody = await freePort();
    const r = await status(
      configPath,
      onPostgresQueue
        ? { ...env, QUEUE_URL: `postgres://postgres:hunter2@127.0.0.1:${nobody}/test` }
        : { ...env, REDIS_URL: `redis://:hunter2@127.0.0.1:${nobody}` },
    );
    expect(r.json.service).toMatchObject({ reachable: false, processes: [], queue: null });
    expect(r.json.service!.error).toContain('ECONNREFUSED');
    expect(r.text).toContain(
      onPostgresQueue
        ? `service: unknown: PostgreSQL postgres://postgres:***@127.0.0.1:${nobody}/test (QUEUE_URL), schema ${h!.prefix}_queue does not answer`
        : `service: unknown: Redis at redis://:***@127.0.0.1:${nobody} (REDIS_URL) does not answer`,
    );
    expect(r.text).not.toContain('hunter2');
    expect(r.text).toMatch(/^supply\s/m);
  });

  it('a second start on the same port says another collector holds METRICS_HOST:METRICS_PORT and how to choose another', async () => {
    const { configPath, env } = await setUp();
    const port = await freePort();
    const first = spawnCli(['start', '-c', configPath], { ...env, METRICS_PORT: String(port) });
    procs.push(first);
    await first.waitForOutput(/glacier-collector started/);
    const second = await runCli(['start', '-c', configPath], { ...env, METRICS_PORT: String(port) });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(
      `METRICS_HOST:METRICS_PORT = 127.0.0.1:${port} is taken: another collector (or another program) already listens there.`,
    );
    // The fix is a command line this user can run: the CLI the way they started it.
    expect(second.stderr).toContain(
      `METRICS_PORT=${port + 1} node --import tsx src/cli.ts -c ${configPath} start`,
    );
    // The first one was left alone.
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });
});
