/**
 * The cardinality cap: at most `cap` series per metric family. Addresses, node ids, chains, usage
 * groups and export names become label values only because the user configured them (or the API
 * returned them), so a long list must not grow Prometheus without bound.
 */
export const DEFAULT_SERIES_CAP = 500;

/** The label value of the series that sums what went over the cap. */
export const OTHER = 'other';

export interface CapOptions<T> {
  cap: number;
  /** Rows of one unit (e.g. every reward type of one address) are kept or folded together. */
  unitOf(row: T): string;
  /** The "other" series a folded row goes to (e.g. per reward type): its key. */
  foldKeyOf(row: T): string;
  /** Adds `row` into the "other" row of its fold key (`into` undefined: the first one). */
  fold(into: T | undefined, row: T): T;
}

export interface Capped<T> {
  rows: T[];
  /** Units summed into "other" series; 0 when everything fits. */
  foldedUnits: number;
}

/**
 * Keeps whole units, in the order given (the priority), while they fit in the cap minus the room the
 * "other" series need, and folds every later unit into "other" series. The result has at most `cap`
 * rows as long as the fold keys alone fit.
 */
export function capRows<T>(rows: readonly T[], options: CapOptions<T>): Capped<T> {
  if (rows.length <= options.cap) return { rows: [...rows], foldedUnits: 0 };
  const room = options.cap - new Set(rows.map(options.foldKeyOf)).size;
  const units = new Map<string, T[]>();
  for (const row of rows) {
    const unit = options.unitOf(row);
    const list = units.get(unit);
    if (list) list.push(row);
    else units.set(unit, [row]);
  }
  const kept: T[] = [];
  const others = new Map<string, T>();
  let folding = false;
  let foldedUnits = 0;
  for (const list of units.values()) {
    if (!folding && kept.length + list.length <= room) {
      kept.push(...list);
      continue;
    }
    folding = true;
    foldedUnits++;
    for (const row of list) {
      const key = options.foldKeyOf(row);
      others.set(key, options.fold(others.get(key), row));
    }
  }
  return { rows: [...kept, ...others.values()], foldedUnits };
}

/**
 * Rows whose labels became the same (several failing upstream values all counted as `invalid`)
 * merged into one, in the order they first appear: `combine` adds a row into the one before it.
 */
export function mergeSameLabels<T>(
  rows: readonly T[],
  keyOf: (row: T) => string,
  combine: (into: T | undefined, row: T) => T,
): T[] {
  const merged = new Map<string, T>();
  for (const row of rows) {
    const key = keyOf(row);
    const into = merged.get(key);
    merged.set(key, into === undefined ? row : combine(into, row));
  }
  return [...merged.values()];
}
