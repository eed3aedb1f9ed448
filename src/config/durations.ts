const units = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * Node's timers hold a signed 32-bit number of milliseconds: a longer delay fires after 1 ms
 * instead (with a warning). No duration that ever becomes a timer may pass it.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Parses "30s", "5m", "24h", "7d", "250ms" (or a bare number of milliseconds) into milliseconds. */
export function parseDuration(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) && text >= 0 ? text : undefined;
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/.exec(text.trim());
  if (!m) return /^\d+$/.test(text.trim()) ? Number(text) : undefined;
  return Number(m[1]) * units[m[2] as keyof typeof units];
}

/** Milliseconds as the largest whole unit that fits: 90_000 → "90s", 3_600_000 → "1h". */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    if (ms >= units[unit] && ms % units[unit] === 0) return `${ms / units[unit]}${unit}`;
  }
  return `${ms}ms`;
}

/**
 * `--history <days>` of `plan` and `status`: how far back the rewards history goes, for a first
 * backfill's cost and time. Whole days (`730d`); without it, since the network's launch.
 */
export function historyMs(text: string): number | undefined {
  const ms = /^\s*\d+(\.\d+)?\s*d\s*$/.test(text) ? parseDuration(text.trim()) : undefined;
  return ms !== undefined && ms > 0 ? ms : undefined;
}
