/** Resolves on the first SIGINT/SIGTERM; a second one calls `onSecond` (exit at once). */
export function untilSignal(onSecond: () => void): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const first = (signal: NodeJS.Signals) => {
      process.off('SIGINT', first).off('SIGTERM', first);
      process.once('SIGINT', onSecond).once('SIGTERM', onSecond);
      resolve(signal);
    };
    process.on('SIGINT', first).on('SIGTERM', first);
  });
}

/** An AbortSignal that aborts on SIGINT/SIGTERM while `fn` runs (the handlers are removed after). */
export async function withSignalAbort<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const onSignal = () => abort.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  try {
    return await fn(abort.signal);
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  }
}
