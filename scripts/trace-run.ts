/**
 * `npm run trace:run`: the project files one run of `transactions` executes, from its cron slot to
 * the stored row. The service runs in this process (the simulator on port 0, SQLite in a temporary
 * directory, the queue on REDIS_URL, default redis://127.0.0.1:6379); V8's precise coverage counts
 * function calls. The counters are reset when node-cron starts the slot and read when the run's
 * summary is out, so what ran only at import or start-up is not counted; a module's top level is
 * never counted, only its functions. The simulator stands for the Data API and is left out.
 *
 * `--functions`: also prints, per file, the named functions that ran.
 * `--check`: compares the list with the one written in docs/development.md ("The path of one run")
 * and exits 1 when they differ.
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { JOB_NAMES } from '../src/kernel/job-names.js';

const root = fileURLToPath(new URL('..', import.meta.url));

interface FunctionCoverage {
  functionName: string;
  ranges: { startOffset: number; endOffset: number; count: number }[];
}
interface ScriptCoverage {
  url: string;
  functions: FunctionCoverage[];
}

const session = new Session();
function post<T>(method: string, params?: object): T {
  let result: T | undefined;
  let error: Error | null = null;
  // An in-process session answers synchronously: the counters are reset or read on the spot.
  session.post(method, params, (err, res) => {
    error = err;
    result = res as T;
  });
  if (error) throw error;
  if (result === undefined) throw new Error(`${method}: no synchronous answer from the inspector`);
  return result;
}

/** Reads the call counts since the last read (V8 resets them) and keeps the project files whose functions ran. */
function filesRun(print = false): string[] {
  const { result } = post<{ result: ScriptCoverage[] }>('Profiler.takePreciseCoverage');
  const files = new Set<string>();
  for (const script of result) {
    if (!script.url.startsWith('file:')) continue;
    const file = relative(root, fileURLToPath(script.url)).split('\\').join('/');
    if (!/^(src|jobs)\//.test(file) || file.startsWith('src/simulator/')) continue;
    // The module's own top level (offset 0, no name) runs at import: not part of the run.
    const ran = script.functions.some(
      (f) => !(f.functionName === '' && f.ranges[0]?.startOffset === 0) && (f.ranges[0]?.count ?? 0) > 0,
    );
    if (ran) files.add(file);
    if (ran && print) {
      const names = script.functions.filter((f) => f.functionName && (f.ranges[0]?.count ?? 0) > 0);
      console.log(`${file}: ${names.map((f) => f.functionName).join(', ')}`);
    }
  }
  return [...files].sort();
}

async function traceRun(): Promise<string[]> {
  session.connect();
  post('Profiler.enable');
  post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  // Imported once the coverage is on, so every function has its counter.
  const cron = (await import('node-cron')).default;
  const { jobs } = await import('../jobs/index.js');
  const { loadConfig } = await import('../src/config/index.js');
  const { createLogger } = await import('../src/runtime/logger.js');
  const { startService } = await import('../src/service/service.js');
  const { startSimulator } = await import('../src/simulator/index.js');
  const { Redis } = await import('ioredis');

  const dir = mkdtempSync(join(tmpdir(), 'glacier-trace-'));
  const sim = await startSimulator({ port: 0, seed: 7 });
  const prefix = `trace${process.pid}`;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const started = Date.now();
  // One slot a minute, a few seconds after start-up: the first firing is the traced run, and no
  // other slot falls in it.
  const second = new Date(started + 4_000).getUTCSeconds();
  const config = loadConfig({
    env: {
      GLACIER_BASE_URL: sim.url,
      DATABASE_PATH: join(dir, 'collector.db'),
      REDIS_URL: redisUrl,
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: '0',
      LOG_LEVEL: 'silent',
    },
    file: {
      jobs: { transactions: { schedule: `${second} * * * * *` } },
      service: { queuePrefix: prefix, shutdownGrace: '5s' },
    },
  });
  let done: (files: string[]) => void = () => {};
  let fail: (err: Error) => void = () => {};
  const traced = new Promise<string[]>((resolve, reject) => {
    done = resolve;
    fail = reject;
  });
  let slotAt: number | undefined;
  const service = await startService(config, {
    jobs,
    log: createLogger({ level: 'silent' }),
    // The queue's epoch check would otherwise fall in the window on a slow machine.
    redisCheckIntervalMs: 600_000,
    onRun: (summary) => {
      if (summary.job !== JOB_NAMES.transactions || slotAt === undefined) return;
      if (summary.status !== 'succeeded' || summary.rowsWritten === 0) {
        fail(new Error(`the traced run did not store a row: ${JSON.stringify(summary)}`));
        return;
      }
      // The worker hands the outcome back to BullMQ after this call: let it finish.
      setTimeout(() => done(filesRun(process.argv.includes('--functions'))), 200);
    },
  });
  try {
    const task = [...cron.getTasks().values()].find((t) => t.name === 'glacier-transactions');
    if (!task) throw new Error('no node-cron task glacier-transactions');
    task.on('execution:started', () => {
      if (slotAt !== undefined) return;
      slotAt = Date.now();
      filesRun(); // resets the counters
    });
    const files = await Promise.race([
      traced,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('no run of transactions within 70 s')), 70_000).unref(),
      ),
    ]);
    // The heartbeat beats every 10 s from start-up: a window past it could count the beat.
    if (Date.now() - started > 9_500 && files.includes('src/queue/heartbeat.ts')) {
      throw new Error('the heartbeat beat during the traced run (a slow start-up): run again');
    }
    return files;
  } finally {
    await service.close();
    await sim.close();
    const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The files docs/development.md's "The path of one run" names: one numbered item each, the file first. */
export function documentedPath(markdown: string): string[] {
  const section = markdown.split(/^### The path of one run$/m)[1]?.split(/^#{2,3} /m)[0] ?? '';
  return [...section.matchAll(/^\d+\. `((?:src|jobs)\/[^`]+)`/gm)].map((m) => m[1]!);
}

async function main(): Promise<void> {
  const files = await traceRun();
  session.disconnect();
  console.log(`${files.length} files on one run of transactions (cron slot to stored row):`);
  for (const f of files) console.log(f);
  if (process.argv.includes('--check')) {
    const documented = documentedPath(readFileSync(join(root, 'docs/development.md'), 'utf8'));
    const missing = files.filter((f) => !documented.includes(f));
    const extra = documented.filter((f) => !files.includes(f));
    if (missing.length + extra.length > 0) {
      console.error(
        `docs/development.md's path of one run differs from the trace:\n  not in the doc: ${missing.join(', ') || '-'}\n  not on the path: ${extra.join(', ') || '-'}`,
      );
      process.exit(1);
    }
  }
  process.exit(0);
}

// Imported (the docs test reads documentedPath), it traces nothing.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
