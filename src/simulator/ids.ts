/**
 * Deterministic identifiers and randomness. Every generated item is a pure function of the seed and
 * its own coordinates (index, subject, day...), so any item can be rebuilt on demand without storing
 * the data set: sha256 for values that must look real (hashes, ids, addresses), a cheap 32-bit mix
 * for decisions taken while scanning (status, partition), mulberry32 for sequences of draws.
 */
import { createHash } from 'node:crypto';
import { cb58Encode } from '../upstream/identifiers.js';

/** sha256 of the parts joined with ':'. 32 bytes. */
export function digest(...parts: ReadonlyArray<string | number>): Buffer {
  return createHash('sha256').update(parts.join(':')).digest();
}

/** A cheap, well-mixed 32-bit hash of integers (murmur3 finaliser per word). */
export function hash32(seed: number, ...ints: readonly number[]): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (const n of ints) {
    const lo = n >>> 0;
    const hi = Math.floor(n / 0x1_0000_0000) >>> 0;
    for (const word of [lo, hi]) {
      h = Math.imul(h ^ word, 0x85ebca6b);
      h ^= h >>> 13;
      h = Math.imul(h, 0xc2b2ae35);
      h ^= h >>> 16;
    }
  }
  return h >>> 0;
}

/** FNV-1a of a string, for turning names into seeds. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A number in [0, 1) from a 32-bit hash. */
export function unit(h: number): number {
  return (h >>> 0) / 0x1_0000_0000;
}

export type Rng = () => number;

/** mulberry32: a small, fast seeded PRNG returning numbers in [0, 1). */
export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  };
}

/** An integer in [min, max] from a draw in [0, 1). */
export function between(draw: number, min: number, max: number): number {
  return min + Math.floor(draw * (max - min + 1));
}

export function pick<T>(draw: number, items: readonly T[]): T {
  const item = items[Math.floor(draw * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

/** `0x` + lower-case hex of the bytes. */
export function hex0x(bytes: Uint8Array): string {
  return '0x' + Buffer.from(bytes).toString('hex');
}

/** cb58, Avalanche's id encoding: base58 of the bytes followed by the last 4 bytes of their sha256. */
export const cb58 = cb58Encode;

const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BECH32_GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3] as const;

function bech32Polymod(values: readonly number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) {
      if ((top >>> i) & 1) chk ^= BECH32_GENERATOR[i as 0 | 1 | 2 | 3 | 4];
    }
  }
  return chk >>> 0;
}

function hrpExpand(hrp: string): number[] {
  const codes = [...hrp].map((c) => c.charCodeAt(0));
  return [...codes.map((c) => c >> 5), 0, ...codes.map((c) => c & 31)];
}

function toFiveBitGroups(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out.push((acc >> bits) & 31);
    }
  }
  if (bits > 0) out.push((acc << (5 - bits)) & 31);
  return out;
}

/** Bech32 (BIP-173) encoding, as Avalanche uses for X/P-Chain addresses: `avax1` + 38 characters for 20 bytes. */
export function bech32(hrp: string, bytes: Uint8Array): string {
  const data = toFiveBitGroups(bytes);
  const mod = bech32Polymod([...hrpExpand(hrp), ...data, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum = [0, 1, 2, 3, 4, 5].map((i) => (mod >>> (5 * (5 - i))) & 31);
  return hrp + '1' + [...data, ...checksum].map((v) => BECH32_CHARSET[v]).join('');
}

/** True when a full bech32 string carries a valid checksum (used by tests and for strictness nowhere else). */
export function bech32Verify(text: string): boolean {
  const sep = text.lastIndexOf('1');
  if (sep < 1) return false;
  const values = [...text.slice(sep + 1)].map((c) => BECH32_CHARSET.indexOf(c));
  if (values.some((v) => v < 0)) return false;
  return bech32Polymod([...hrpExpand(text.slice(0, sep)), ...values]) === 1;
}

export const BECH32_DATA = /^[02-9ac-hj-np-z]+$/;

/** A P/X-Chain address (bare form, e.g. `avax1...`) derived from the parts. */
export function deriveBech32Address(hrp: string, ...parts: ReadonlyArray<string | number>): string {
  return bech32(hrp, digest('addr', ...parts).subarray(0, 20));
}

/** A node id (`NodeID-` + cb58 of 20 bytes) derived from the parts. */
export function deriveNodeId(...parts: ReadonlyArray<string | number>): string {
  return 'NodeID-' + cb58(digest('node', ...parts).subarray(0, 20));
}

/** A 32-byte id in cb58 (transaction ids, utxo ids) derived from the parts. */
export function deriveCb58Id(...parts: ReadonlyArray<string | number>): string {
  return cb58(digest(...parts));
}

/** An EVM address (`0x` + 40 lower-case hex) derived from the parts. */
export function deriveEvmAddress(...parts: ReadonlyArray<string | number>): string {
  return hex0x(digest('evm', ...parts).subarray(0, 20));
}

/** Decimal text of `units` scaled by 10^-decimals, with exactly `fractionDigits` digits after the point. */
export function formatScaled(units: bigint, decimals: number, fractionDigits: number): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const text = abs.toString().padStart(decimals + 1, '0');
  const whole = text.slice(0, text.length - decimals);
  const fraction = text.slice(text.length - decimals).slice(0, fractionDigits);
  return (negative ? '-' : '') + whole + (fraction.length > 0 ? '.' + fraction : '');
}
