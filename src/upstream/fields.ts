/**
 * The shapes and domain bounds of the fields the collector stores and computes with. A record whose
 * field fails one of these is set aside (records.ts), named with the field and the rule, instead of
 * being stored and breaking a reader later (a report, `status`, a scrape) or a write (PostgreSQL
 * refuses a NUL in text, a fraction in a bigint, an int4 past 2^31).
 *
 * Bounds (docs/configuration.md, "Records set aside"):
 * - times: whole numbers from 2009-01-01 (before Bitcoin's genesis block, let alone Avalanche's) to
 *   2100-01-01 exclusive, in each field's own unit (seconds or milliseconds);
 * - amounts: decimal integers of at most 78 digits (a uint256);
 * - positions (`outputIndex`, `blockIndex`...): non-negative safe integers;
 * - `denomination`: an integer 0..30 (AVAX uses 9; nothing sane uses more than 30);
 * - free text: no NUL character, bounded length.
 */
import { isLosslessNumber } from 'lossless-json';
import * as z from 'zod';

/** 2009-01-01T00:00:00Z and 2100-01-01T00:00:00Z, Unix seconds. */
export const MIN_UNIX_SECONDS = 1_230_768_000;
export const MAX_UNIX_SECONDS = 4_102_444_800;
/** A uint256 has 78 decimal digits. */
export const MAX_AMOUNT_DIGITS = 78;
/** Denominations (decimals of an asset) above this are no asset's. */
export const MAX_DENOMINATION = 30;
/** The longest free text stored from a record (names, URIs, method names). */
export const MAX_TEXT_LENGTH = 4096;

/** A message naming a bound, so that a failure is classified as one (records.ts). */
export const BOUND = 'out of bounds:';

/**
 * A JSON number that lossless parsing (the rewards body) may have kept as a LosslessNumber; as a
 * number here (not an amount: a float is fine, the bounds below decide).
 */
export const jsonNumber = z.preprocess((v) => (isLosslessNumber(v) ? Number(v.toString()) : v), z.number());

function unixTime(unit: 'seconds' | 'milliseconds') {
  const scale = unit === 'seconds' ? 1 : 1000;
  return z
    .number()
    .int(`expected whole Unix ${unit}`)
    .min(MIN_UNIX_SECONDS * scale, `${BOUND} expected Unix ${unit} from 2009-01-01`)
    .max(MAX_UNIX_SECONDS * scale - 1, `${BOUND} expected Unix ${unit} before 2100-01-01`);
}

/** Unix seconds, 2009..2100. */
export const unixSeconds = unixTime('seconds');
/** Unix milliseconds, 2009..2100. */
export const unixMilliseconds = unixTime('milliseconds');
/** Unix seconds parsed losslessly (rewards). */
export const jsonUnixSeconds = z.preprocess(
  (v) => (isLosslessNumber(v) ? Number(v.toString()) : v),
  unixSeconds,
);

/** A non-negative safe integer: positions, indexes, counters kept as numbers. */
export const position = z
  .number()
  .int('expected a whole number')
  .min(0, `${BOUND} expected a non-negative number`);
export const jsonPosition = z.preprocess((v) => (isLosslessNumber(v) ? Number(v.toString()) : v), position);

/** An integer of PostgreSQL's `integer` (a type, decimals), non-negative. */
export const smallInteger = (max: number) =>
  z
    .number()
    .int('expected a whole number')
    .min(0, `${BOUND} expected a non-negative number`)
    .max(max, `${BOUND} expected at most ${max}`);

/** An asset's denomination: 0..30. */
export const denomination = z.preprocess(
  (v) => (isLosslessNumber(v) ? Number(v.toString()) : v),
  smallInteger(MAX_DENOMINATION),
);

/** The input of a failed check, when it is a string. */
const inputOf = (issue: { input?: unknown }) => (typeof issue.input === 'string' ? issue.input : '');

/**
 * A decimal integer sent as text: an amount in the smallest unit (wei, nAVAX), a nonce, a block
 * number. One check (on every field of every record): its message tells the shape from the bound.
 */
export const uintString = z.string().regex(new RegExp(`^\\d{1,${MAX_AMOUNT_DIGITS}}$`), {
  error: (issue) =>
    /^\d+$/.test(inputOf(issue))
      ? `${BOUND} expected at most ${MAX_AMOUNT_DIGITS} digits (a uint256)`
      : 'expected an unsigned integer string',
});

/** Free text stored as sent: no NUL (PostgreSQL refuses it in text), at most `max` characters. */
export const text = (max = MAX_TEXT_LENGTH) =>
  z.string().regex(new RegExp(`^[^\\u0000]{0,${max}}$`), {
    error: (issue) =>
      inputOf(issue).includes('\u0000')
        ? 'expected text without NUL characters'
        : `${BOUND} expected at most ${max} characters`,
  });

/** A string of a narrowly defined shape (an id, a hash), named in the message. */
export const shaped = (pattern: RegExp, what: string) => z.string().regex(pattern, `expected ${what}`);
