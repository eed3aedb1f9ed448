/**
 * What the signals a service manager, a container runtime or a terminal sends do. Every one ends in
 * the graceful path or a reload, never in Node's default (which ends the process at once: SIGHUP
 * exited with 129, leaving a run `running` and the heartbeat in Redis):
 *
 * | signal  | `start`                                              | `run`, `demo`               |
 * | ------- | ---------------------------------------------------- | --------------------------- |
 * | SIGTERM | graceful shutdown (a second stop signal: exit now)   | interrupt the run, cleanly  |
 * | SIGINT  | the same (Ctrl-C)                                    | the same                    |
 * | SIGQUIT | the same                                             | the same                    |
 * | SIGHUP  | re-read METRICS_WEB_CONFIG and its TLS files         | the same as SIGTERM (the terminal closed) |
 */

/** The signals that stop a process gracefully. */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGQUIT'];
/** The signal that reloads `start`'s web config (the usual reload signal of a daemon). */
export const RELOAD_SIGNAL: NodeJS.Signals = 'SIGHUP';

export interface ServiceSignals {
  /** Resolves with the first stop signal. */
  stopped: Promise<NodeJS.Signals>;
  /** Removes every handler. */
  dispose(): void;
}

/**
 * `start`'s handlers, installed before the service opens anything (a signal during start-up must
 * not take Node's default): the first stop signal resolves `stopped`, a second one calls `onSecond`
 * (exit at once); SIGHUP calls `onReload`, at any time, and never stops the process.
 */
export function watchServiceSignals(handlers: {
  onReload: (signal: NodeJS.Signals) => void;
  onSecond: (signal: NodeJS.Signals) => void;
}): ServiceSignals {
  let resolveStopped: (signal: NodeJS.Signals) => void = () => undefined;
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    resolveStopped = resolve;
  });
  let stopping = false;
  const onStop = (signal: NodeJS.Signals) => {
    if (stopping) return handlers.onSecond(signal);
    stopping = true;
    resolveStopped(signal);
  };
  const onReload = (signal: NodeJS.Signals) => handlers.onReload(signal);
  for (const signal of STOP_SIGNALS) process.on(signal, onStop);
  process.on(RELOAD_SIGNAL, onReload);
  return {
    stopped,
    dispose() {
      for (const signal of STOP_SIGNALS) process.off(signal, onStop);
      process.off(RELOAD_SIGNAL, onReload);
    },
  };
}

/**
 * An AbortSignal that aborts on a stop signal or SIGHUP while `fn` runs: a one-shot command has
 * nothing to reload, and a closed terminal should end it cleanly. The handlers go with the first
 * signal, so a second one (Ctrl-C again) ends the process at once.
 */
export async function withSignalAbort<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const signals = [...STOP_SIGNALS, RELOAD_SIGNAL];
  const remove = () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    remove();
    abort.abort(new Error(`interrupted (${signal})`));
  };
  for (const signal of signals) process.on(signal, onSignal);
  try {
    return await fn(abort.signal);
  } finally {
    remove();
  }
}
