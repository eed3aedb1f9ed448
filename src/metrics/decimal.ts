/**
 * Exact decimal text → gauge value. A gauge is a float64: `Number(text)` is the closest double to
 * the exact decimal (correct rounding), so 15 significant digits always survive and 17 identify
 * the double; beyond that the database keeps the exact value.
 */
export function decimalToNumber(text: string): number {
  const value = Number(text);
  if (Number.isNaN(value)) throw new Error(`not a decimal number: ${JSON.stringify(text)}`);
  return value;
}

/** An integer amount of smallest units (nAVAX for 9 decimals) as a number of whole tokens. */
export function unitsToNumber(units: bigint, decimals: number): number {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals);
  return decimalToNumber(`${negative ? '-' : ''}${whole}${decimals > 0 ? `.${fraction}` : ''}`);
}
