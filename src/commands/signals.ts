/**
 * A terminal's Ctrl-C reaches every process of its foreground group. Under `npm start` or `npm run
 * <script>`, npm is one of them, and it forwards the SIGINT (and a SIGTERM it gets) to its script:
 * the collector receives one keypress twice, a few milliseconds apart. The same signal again this
 * soon after the first is that echo, not a second keypress, so it neither ends the graceful stop
 * nor kills a one-shot command.
 */
export const ECHO_WINDOW_MS = 1_000;

interface FirstSignal {
  signal: NodeJS.Signals;
  at: number;
}

function isEcho(first: FirstSignal, signal: NodeJS.Signals): boolean {
  return signal === first.signal && Date.now() - first.at < ECHO_WINDOW_MS;
}

/** Resolves on the first SIGINT/SIGTERM; a second one (not its echo) calls `onSecond` (exit at once). */
export function untilSignal(onSecond: () => void): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let first: FirstSignal | undefined;
    const handler = (signal: NodeJS.Signals) => {
      if (!first) {
        first = { signal, at: Date.now() };
        resolve(signal);
        return;
      }
      if (isEcho(first, signal)) return;
      process.off('SIGINT', handler).off('SIGTERM', handler);
      onSecond();
    };
    process.on('SIGINT', handler).on('SIGTERM', handler);
  });
}

/**
 * An AbortSignal that aborts on SIGINT/SIGTERM while `fn` runs (the handlers are removed after); a
 * second signal (not the first one's echo) ends the process at once, as Node's default would.
 */
export async function withSignalAbort<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  let first: FirstSignal | undefined;
  const remove = () => process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  const onSignal = (signal: NodeJS.Signals) => {
    if (!first) {
      first = { signal, at: Date.now() };
      abort.abort(new Error('interrupted'));
      return;
    }
    if (isEcho(first, signal)) return;
    remove();
    process.kill(process.pid, signal);
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  try {
    return await fn(abort.signal);
  } finally {
    remove();
  }
}
