/**
 * Release steps: each resource, when it is opened, registers how it is released (ponder's shutdown
 * helper, graphile-worker's runner). `release()` runs the steps in reverse order, each awaited, under
 * one overall deadline, so shutdown always ends: a step that outlasts its share (Redis gone while an
 * enqueue waits, a database that does not answer) is logged as abandoned and the next one runs.
 * `start`, `run` and the demo all own their resources this way.
 */
import type { Logger } from '../runtime/logger.js';

export interface ReleaseStep {
  name: string;
  release: () => Promise<void> | void;
  /** The longest this step may take before it is abandoned (the overall deadline caps it too). */
  timeoutMs?: number;
}

export interface ReleaseReport {
  /** Steps that did not finish in time: what they held is left to the process's exit. */
  abandoned: string[];
  /** Steps that threw (logged); their resource is as released as it could be. */
  failed: string[];
}

export interface Lifecycle {
  /** Registers how a resource just opened is released; steps run in reverse order of registration. */
  add(name: string, release: () => Promise<void> | void, options?: { timeoutMs?: number }): void;
  /** Runs every step once (later calls get the same report). */
  release(): Promise<ReleaseReport>;
  /** True once `release` has been called. */
  readonly releasing: boolean;
}

export interface LifecycleOptions {
  log?: Logger;
  /** The whole release ends within this. @defaultValue no limit beyond each step's own */
  deadlineMs?: number;
  /** A step without a timeout of its own gets this. @defaultValue 10 s */
  stepTimeoutMs?: number;
}

const DEFAULT_STEP_TIMEOUT_MS = 10_000;

export function createLifecycle(options: LifecycleOptions = {}): Lifecycle {
  const steps: ReleaseStep[] = [];
  let released: Promise<ReleaseReport> | undefined;

  async function releaseAll(): Promise<ReleaseReport> {
    const report: ReleaseReport = { abandoned: [], failed: [] };
    const deadline = performance.now() + (options.deadlineMs ?? Number.POSITIVE_INFINITY);
    for (const step of steps.splice(0).reverse()) {
      const left = Math.max(0, deadline - performance.now());
      const limit = Math.min(left, step.timeoutMs ?? options.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), limit);
        // A hung step must not keep the process alive once the others are released.
        timer.unref();
      });
      try {
        const outcome = await Promise.race([Promise.resolve().then(step.release), timedOut]);
        if (outcome === 'timeout') {
          report.abandoned.push(step.name);
          options.log?.warn(
            { step: step.name, waitedMs: Math.round(limit) },
            `shutdown: abandoned closing the ${step.name}: it did not finish in time`,
          );
        }
      } catch (err) {
        report.failed.push(step.name);
        options.log?.warn({ err: (err as Error).message }, `closing the ${step.name} failed`);
      } finally {
        clearTimeout(timer);
      }
    }
    return report;
  }

  return {
    add(name, release, stepOptions = {}) {
      steps.push({ name, release, ...stepOptions });
    },
    release() {
      released ??= releaseAll();
      return released;
    },
    get releasing() {
      return released !== undefined;
    },
  };
}
