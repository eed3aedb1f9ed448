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

/**
 * A terminal's Ctrl-C reaches every process of its foreground group. Under `npm start` or `npm run
 * <script>`, npm is one of them, and it forwards the SIGINT (and a SIGTERM it gets) to its script:
 * the process receives one keypress twice, a few milliseconds apart. The same signal again this
 * soon after the first is that echo, not a second keypress: it neither ends the graceful stop nor
 * kills a one-shot command.
 */
export const ECHO_WINDOW_MS = 1_000;

interface FirstSignal {
  signal: NodeJS.Signals;
  at: number;
}

function isEcho(first: FirstSignal, signal: NodeJS.Signals): boolean {
  return signal === first.signal && Date.now() - first.at < ECHO_WINDOW_MS;
}

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
  let first: FirstSignal | undefined;
  const onStop = (signal: NodeJS.Signals) => {
    if (first) {
      if (!isEcho(first, signal)) handlers.onSecond(signal);
      return;
    }
    first = { signal, at: Date.now() };
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
 * nothing to reload, and a closed terminal should end it cleanly. A second signal (Ctrl-C again,
 * not the first one's echo) ends the process at once, as Node's default would.
 */
export async function withSignalAbort<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const signals = [...STOP_SIGNALS, RELOAD_SIGNAL];
  let first: FirstSignal | undefined;
  const remove = () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (first) {
      if (isEcho(first, signal)) return;
      remove();
      process.kill(process.pid, signal);
      return;
    }
    first = { signal, at: Date.now() };
    abort.abort(new Error(`interrupted (${signal})`));
  };
  for (const signal of signals) process.on(signal, onSignal);
  try {
    return await fn(abort.signal);
  } finally {
    remove();
  }
}
