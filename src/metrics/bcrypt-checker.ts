/**
 * bcrypt checks off the event loop. bcrypt is slow on purpose (a cost-10 hash takes about 75 ms of
 * CPU in bcryptjs): run on the service's only thread, about 15 wrong passwords a second stalled
 * every job and every probe. Here the checks run one at a time in one worker thread, and the checks
 * waiting or running are bounded per lane, so a flood costs the service at most that one thread:
 *
 * - `renewal`: a credential that was verified before and whose cache entry expired (only a holder
 *   of a valid password gets here, so a flood of wrong ones cannot crowd out the scraper);
 * - `untrusted`: anything else.
 *
 * Past its lane's bound a check is refused at once (`compare` returns undefined): no work is queued
 * beyond the bound, the caller answers 429. The renewal lane goes first when the thread is free.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export type BcryptLane = 'renewal' | 'untrusted';

export interface BcryptCheckerOptions {
  /** Checks of each lane waiting or running, past which a new one is refused. @defaultValue 2 each */
  bounds?: Partial<Record<BcryptLane, number>>;
}

export interface BcryptChecker {
  /**
   * Whether `password` matches `hash`, computed in the worker thread; undefined (refused at once)
   * when `lane` already holds its bound of checks. A check still waiting when `signal` aborts (the
   * client left) is dropped and answers false.
   */
  compare(
    password: string,
    hash: string,
    lane: BcryptLane,
    signal?: AbortSignal,
  ): Promise<boolean> | undefined;
  /** Checks waiting or running, per lane. */
  pending(): Record<BcryptLane, number>;
  /** Stops the thread; checks waiting or running answer false. */
  close(): Promise<void>;
}

export const DEFAULT_LANE_BOUND = 2;

interface Task {
  password: string;
  hash: string;
  lane: BcryptLane;
  resolve(ok: boolean): void;
  reject(error: Error): void;
}

// The worker runs plain JavaScript (bcryptjs, loaded by its resolved path): it needs no build step
// and runs the same from the sources (tests) and from dist/.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const bcrypt = require(workerData.bcryptjs);
parentPort.on('message', ({ password, hash }) => {
  let ok = false;
  try { ok = bcrypt.compareSync(password, hash); } catch { ok = false; }
  parentPort.postMessage(ok);
});
`;

export function createBcryptChecker(options: BcryptCheckerOptions = {}): BcryptChecker {
  const bounds: Record<BcryptLane, number> = {
    renewal: options.bounds?.renewal ?? DEFAULT_LANE_BOUND,
    untrusted: options.bounds?.untrusted ?? DEFAULT_LANE_BOUND,
  };
  const waiting: Record<BcryptLane, Task[]> = { renewal: [], untrusted: [] };
  let running: Task | undefined;
  let worker: Worker | undefined;
  let closed = false;

  const count = (lane: BcryptLane) => waiting[lane].length + (running?.lane === lane ? 1 : 0);

  /** The thread, started on the first check (a server without users never starts one). */
  const thread = (): Worker => {
    if (worker) return worker;
    const w = new Worker(WORKER_SOURCE, {
      eval: true,
      name: 'bcrypt',
      workerData: { bcryptjs: createRequire(import.meta.url).resolve('bcryptjs') },
    });
    // Idle between checks: it must not keep a process alive that has nothing else to do.
    w.unref();
    w.on('message', (ok: boolean) => settle((task) => task.resolve(ok === true)));
    // A thread that dies fails the check it ran; the next check starts a new one.
    const lost = (error: Error) => {
      if (worker !== w) return;
      worker = undefined;
      settle((task) => task.reject(error));
    };
    w.on('error', lost);
    w.on('exit', (code) => lost(new Error(`the bcrypt thread exited (code ${code})`)));
    worker = w;
    return w;
  };

  const settle = (answer: (task: Task) => void) => {
    const task = running;
    running = undefined;
    if (task) answer(task);
    pump();
  };

  const pump = () => {
    if (running || closed) return;
    const next = waiting.renewal.shift() ?? waiting.untrusted.shift();
    if (!next) return;
    running = next;
    thread().postMessage({ password: next.password, hash: next.hash });
  };

  return {
    compare(password, hash, lane, signal) {
      if (closed || count(lane) >= bounds[lane]) return undefined;
      return new Promise<boolean>((resolve, reject) => {
        const task: Task = { password, hash, lane, resolve, reject };
        waiting[lane].push(task);
        signal?.addEventListener(
          'abort',
          () => {
            const queue = waiting[lane];
            const at = queue.indexOf(task);
            if (at < 0) return; // running already: its answer comes soon
            queue.splice(at, 1);
            resolve(false);
          },
          { once: true },
        );
        pump();
      });
    },
    pending: () => ({ renewal: count('renewal'), untrusted: count('untrusted') }),
    async close() {
      closed = true;
      for (const task of [...waiting.renewal.splice(0), ...waiting.untrusted.splice(0)]) task.resolve(false);
      running?.resolve(false);
      running = undefined;
      const w = worker;
      worker = undefined;
      await w?.terminate();
    },
  };
}
