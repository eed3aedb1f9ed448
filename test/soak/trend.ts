/**
 * Does a series keep growing? Two robust tests over (x, y) points, neither thrown by outliers such
 * as a GC's sawtooth or one slow scrape:
 * - Theil–Sen: the median of the slopes between every pair of points, so "how much per unit of x";
 * - Mann–Kendall: whether y rises with x more often than chance allows (one-sided, p < 0.01).
 * A series "keeps growing" when the rise is significant AND the Theil–Sen growth over the points'
 * span exceeds a tolerance: noise passes (not significant), a small steady drift below the
 * tolerance passes (reported, not failed), and growth that levels off passes (its later points
 * are flat, so the second half's slope is near zero).
 */

export interface Point {
  x: number;
  y: number;
}

/** Median of the pairwise slopes (pairs with equal x are skipped); 0 with fewer than two x values. */
export function theilSenSlope(points: readonly Point[]): number {
  const slopes: number[] = [];
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) {
      const a = points[i] as Point;
      const b = points[j] as Point;
      if (b.x !== a.x) slopes.push((b.y - a.y) / (b.x - a.x));
    }
  }
  if (slopes.length === 0) return 0;
  slopes.sort((p, q) => p - q);
  const mid = slopes.length >> 1;
  return slopes.length % 2
    ? (slopes[mid] as number)
    : ((slopes[mid - 1] as number) + (slopes[mid] as number)) / 2;
}

/**
 * Mann–Kendall's Z for an upward trend of y in the order of x (ties in y count as neither way, with
 * the variance corrected for them). Z > 2.326 is a rise at p < 0.01, one-sided.
 */
export function mannKendallZ(points: readonly Point[]): number {
  const ys = [...points].sort((a, b) => a.x - b.x).map((p) => p.y);
  const n = ys.length;
  if (n < 3) return 0;
  let s = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) s += Math.sign((ys[j] as number) - (ys[i] as number));
  }
  const ties = new Map<number, number>();
  for (const y of ys) ties.set(y, (ties.get(y) ?? 0) + 1);
  let tieTerm = 0;
  for (const t of ties.values()) tieTerm += t * (t - 1) * (2 * t + 5);
  const variance = (n * (n - 1) * (2 * n + 5) - tieTerm) / 18;
  if (variance <= 0 || s === 0) return 0;
  return (s - Math.sign(s)) / Math.sqrt(variance);
}

export const SIGNIFICANT_Z = 2.326;

export interface Trend {
  /** Theil–Sen slope, y per unit of x. */
  slope: number;
  /** The slope times the span of x: how much the series grew over these points. */
  growth: number;
  z: number;
  /** Significant rise and growth above the tolerance. */
  growing: boolean;
}

/** Judges `points` against `tolerance` (the growth, in y's unit, that is accepted over their span). */
export function judgeTrend(points: readonly Point[], tolerance: number): Trend {
  const slope = theilSenSlope(points);
  const xs = points.map((p) => p.x);
  const growth = points.length > 1 ? slope * (Math.max(...xs) - Math.min(...xs)) : 0;
  const z = mannKendallZ(points);
  return { slope, growth, z, growing: z > SIGNIFICANT_Z && growth > tolerance };
}
