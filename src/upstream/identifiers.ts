/**
 * The shapes of the identifiers the API defines narrowly (its OpenAPI descriptions and examples):
 * shared by the response schemas (garbage is refused at the boundary, with the field named) and the
 * config's own checks of what users paste. cb58, Avalanche's encoding of ids, carries a checksum:
 * `cb58Decode` verifies it (the config's node ids and transaction ids, the simulator's queries).
 */
import { createHash } from 'node:crypto';

/** Base58 with Avalanche's cb58 alphabet (no 0, O, I, l). */
export const CB58 = '[1-9A-HJ-NP-Za-km-z]';
/** `NodeID-` and a cb58 id. */
export const NODE_ID = new RegExp(`^NodeID-${CB58}{20,60}$`);
/** A P-Chain or X-Chain transaction id, an asset id, a UTXO id: cb58, about 50 characters. */
export const CB58_ID = new RegExp(`^${CB58}{40,60}$`);
/** An EVM chain id ("43114"): digits, a uint256 at most. */
export const EVM_CHAIN_ID = /^\d{1,78}$/;
/** An EVM transaction or block hash: 0x and 32 bytes in hex. */
export const EVM_HASH = /^0x[0-9a-fA-F]{64}$/;
/** An EVM address: 0x and at most 20 bytes in hex (checksum case accepted; "0x0" is seen for no one). */
export const EVM_ADDRESS = /^0x[0-9a-fA-F]{0,40}$/;

/** Base58 with the Bitcoin alphabet, which cb58 uses. */
export const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE58_INDEX = new Map([...BASE58_ALPHABET].map((c, i) => [c, i]));

/** Base58 of the bytes, by repeated division of the byte string: no BigInt, a few µs for 36 bytes. */
export function base58Encode(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  const digits: number[] = [];
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i] as number;
    for (let j = 0; j < digits.length; j++) {
      carry += (digits[j] as number) << 8;
      digits[j] = carry % 58;
      carry = Math.floor(carry / 58);
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = Math.floor(carry / 58);
    }
  }
  let out = '1'.repeat(zeros);
  for (let k = digits.length - 1; k >= 0; k--) out += BASE58_ALPHABET[digits[k] as number];
  return out;
}

/** The bytes of base58 text, or undefined when a character is not of the alphabet. */
export function base58Decode(text: string): Uint8Array | undefined {
  let zeros = 0;
  while (zeros < text.length && text[zeros] === '1') zeros++;
  // Little-endian base-256 digits of the number.
  const bytes: number[] = [];
  for (const c of text.slice(zeros)) {
    let carry = BASE58_INDEX.get(c);
    if (carry === undefined) return undefined;
    for (let j = 0; j < bytes.length; j++) {
      carry += (bytes[j] as number) * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  return Uint8Array.from([...new Array<number>(zeros).fill(0), ...bytes.reverse()]);
}

const CHECKSUM_BYTES = 4;

function checksum(payload: Uint8Array): Buffer {
  return createHash('sha256')
    .update(payload)
    .digest()
    .subarray(32 - CHECKSUM_BYTES);
}

/** cb58: base58 of the bytes followed by the last 4 bytes of their sha256. */
export function cb58Encode(payload: Uint8Array): string {
  return base58Encode(Buffer.concat([payload, checksum(payload)]));
}

/** Why cb58 text is not an id of `bytes` bytes, or its payload when it is. */
export type Cb58Reading =
  | { ok: true; payload: Uint8Array }
  | { ok: false; problem: 'character'; character: string }
  | { ok: false; problem: 'length'; bytes: number }
  | { ok: false; problem: 'checksum' };

/**
 * Reads cb58 text as an id of `bytes` bytes (a node id 20, a transaction id 32): every character of
 * the alphabet, the payload that long, and the checksum that of the payload.
 */
export function cb58Decode(text: string, bytes: number): Cb58Reading {
  for (const c of text) if (!BASE58_INDEX.has(c)) return { ok: false, problem: 'character', character: c };
  const decoded = base58Decode(text) ?? new Uint8Array();
  if (decoded.length !== bytes + CHECKSUM_BYTES) {
    return { ok: false, problem: 'length', bytes: Math.max(0, decoded.length - CHECKSUM_BYTES) };
  }
  const payload = decoded.subarray(0, bytes);
  if (!checksum(payload).equals(decoded.subarray(bytes))) return { ok: false, problem: 'checksum' };
  return { ok: true, payload };
}

/** Bytes of a node id (`NodeID-` + cb58) and of a P-/X-Chain transaction id (cb58). */
export const NODE_ID_BYTES = 20;
export const TX_ID_BYTES = 32;
export const NODE_ID_PREFIX = 'NodeID-';

/** True when text is `NodeID-` and the cb58 of 20 bytes with a valid checksum. */
export function isNodeId(text: string): boolean {
  return text.startsWith(NODE_ID_PREFIX) && cb58Decode(text.slice(NODE_ID_PREFIX.length), NODE_ID_BYTES).ok;
}

/** True when text is the cb58 of a 32-byte id (a P-/X-Chain transaction id) with a valid checksum. */
export function isTxId(text: string): boolean {
  return cb58Decode(text, TX_ID_BYTES).ok;
}
