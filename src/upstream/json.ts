/**
 * JSON parsing for upstream bodies. Most bodies go through `JSON.parse`: their numbers are counts,
 * timestamps and metrics, and their amounts are strings already. The rewards body carries one amount
 * typed `number` in the OpenAPI (`reward.historicalPrice.value`), so it is parsed with lossless-json:
 * safe integers become numbers, every other number stays a `LosslessNumber` holding its source text,
 * which the schema turns into an exact decimal string (`toPlainDecimal`).
 */
import { isInteger, isSafeNumber, LosslessNumber, parse } from 'lossless-json';

function parseNumber(text: string): number | LosslessNumber {
  return isInteger(text) && isSafeNumber(text) ? Number(text) : new LosslessNumber(text);
}

/** Parses JSON keeping every non-integer (or unsafe integer) number as a `LosslessNumber`. Throws SyntaxError. */
export function parseJsonLossless(text: string): unknown {
  return parse(text, undefined, parseNumber);
}

const JSON_NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
/** An exponent beyond this is no price; refusing it keeps a hostile `1e999999999` from allocating a huge string. */
const MAX_EXPONENT = 400;

/**
 * The exact plain-decimal spelling of a JSON number's source text: `4.242e1` → `42.42`,
 * `1E-3` → `0.001`; digits (trailing zeros included) are never rounded. Undefined if `text` is no
 * JSON number or its exponent is absurd.
 */
export function toPlainDecimal(text: string): string | undefined {
  const m = JSON_NUMBER.exec(text);
  if (!m) return undefined;
  const [, sign = '', intPart = '', fracPart = '', expPart] = m;
  if (expPart === undefined) return text;
  const exp = Number(expPart);
  if (Math.abs(exp) > MAX_EXPONENT) return undefined;
  let digits = intPart + fracPart;
  let point = intPart.length + exp;
  if (point <= 0) {
    digits = '0'.repeat(1 - point) + digits;
    point = 1;
  }
  if (point > digits.length) digits += '0'.repeat(point - digits.length);
  const whole = digits.slice(0, point).replace(/^0+(?=\d)/, '');
  const fraction = digits.slice(point);
  return sign + whole + (fraction ? '.' + fraction : '');
}
