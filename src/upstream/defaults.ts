/**
 * The client's defaults, read by the client and by the config schema alike, so a default is written
 * once (the retry attempts are in `defaultRetryPolicy`). No imports: the config reads it at start-up.
 */
export const clientDefaults = {
  /** Per attempt, headers and body. */
  attemptTimeoutMs: 30_000,
  /** Whole call including retries and waits. */
  callTimeoutMs: 120_000,
  /** Largest success body accepted. */
  maxBodyBytes: 32 * 1024 * 1024,
} as const;

/**
 * Whether `value` can be sent as an HTTP header value (the API key): visible ASCII only. Checked at
 * start-up and by the client up front, so no library error ever quotes the key.
 */
export function isHeaderSafe(value: string): boolean {
  return /^[\x21-\x7e]+$/.test(value);
}
