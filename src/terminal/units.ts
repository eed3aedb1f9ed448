/** Quantities for people: a duration, a size. */

/** "3d 4h", "2h 5m", "40s": a duration for people. */
export function span(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86_400)}d ${Math.floor((s % 86_400) / 3600)}h`;
}

/**
 * 1234567 → "1,234,567", as `toLocaleString('en')` writes it: that loads ICU's number formats on first
 * use, about 10 ms of a command's start (`config check` is a benchmark figure). A number that is not
 * a safe whole number is left to toLocaleString.
 */
export function formatCount(n: number): string {
  return Number.isSafeInteger(n) ? String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : n.toLocaleString('en');
}

/** 1536 → "1.5 KiB" */
export function formatBytes(n: number | undefined): string {
  if (n === undefined) return '-';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(1)} ${units[u]}`;
}
