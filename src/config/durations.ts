const units = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Parses "30s", "5m", "24h", "7d", "250ms" (or a bare number of milliseconds) into milliseconds. */
export function parseDuration(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) && text >= 0 ? text : undefined;
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/.exec(text.trim());
  if (!m) return /^\d+$/.test(text.trim()) ? Number(text) : undefined;
  return Number(m[1]) * units[m[2] as keyof typeof units];
}
