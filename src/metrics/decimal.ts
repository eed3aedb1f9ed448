/**
 * Exact decimal text → gauge value. A gauge is a float64: `Number(text)` is the closest double to
 * the exact decimal (correct rounding), so 15 significant digits always survive and 17 identify
 * the double; beyond that the database keeps the exact value. Text that is no decimal (stored by
 * hand, or by a version that checked less) is NaN, a value a gauge may hold: a scrape never fails
 * on what is stored.
 */
export function decimalToNumber(text: string): number {
  return /^\s*$/.test(String(text)) ? Number.NaN : Number(text);
}

/** An integer amount of smallest units (nAVAX for 9 decimals) as a number of whole tokens. */
export function unitsToNumber(units: bigint, decimals: number): number {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals);
  return decimalToNumber(`${negative ? '-' : ''}${whole}${decimals > 0 ? `.${fraction}` : ''}`);
}

/**
 * A stored sum of smallest units: exact (a bigint) when the text is an integer, a float otherwise
 * (SQLite's reward_summaries.amount becomes REAL past 2^63 - 1, never clamped), NaN for text that is
 * no number at all: a scrape never fails on what is stored.
 */
export function storedUnits(text: string | number): bigint | number {
  const s = String(text);
  return /^-?\d+$/.test(s) ? BigInt(s) : Number(s);
}

/** Two such sums added: exact while both are. */
export function addUnits(a: bigint | number, b: bigint | number): bigint | number {
  return typeof a === 'bigint' && typeof b === 'bigint' ? a + b : Number(a) + Number(b);
}

/** Such a sum as a number of whole tokens. */
export function storedUnitsToNumber(units: bigint | number, decimals: number): number {
  return typeof units === 'bigint' ? unitsToNumber(units, decimals) : units / 10 ** decimals;
}
