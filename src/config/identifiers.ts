import { addressHrp, bareAddress, type Network } from '../upstream/endpoints.js';
import {
  type Cb58Reading,
  cb58Decode,
  NODE_ID_BYTES,
  NODE_ID_PREFIX,
  TX_ID_BYTES,
} from '../upstream/identifiers.js';

/**
 * Checks for the identifiers users paste into the config: Primary Network addresses (bech32, with
 * the network's human-readable part), node ids and transaction hashes (cb58), each with its
 * checksum. A typo caught here is a clear start-up error instead of a run that silently collects
 * nothing (or, against the simulator, invented data).
 */

const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATORS = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= GENERATORS[i]!;
  }
  return chk;
}

function hrpExpand(hrp: string): number[] {
  const out: number[] = [];
  for (const c of hrp) out.push(c.charCodeAt(0) >>> 5);
  out.push(0);
  for (const c of hrp) out.push(c.charCodeAt(0) & 31);
  return out;
}

/** Encodes 5-bit words as bech32 (BIP-173); used by tests and the demo to make valid addresses. */
export function bech32Encode(hrp: string, words: number[]): string {
  const values = [...hrpExpand(hrp), ...words, 0, 0, 0, 0, 0, 0];
  const mod = polymod(values) ^ 1;
  const checksum = Array.from({ length: 6 }, (_, i) => (mod >>> (5 * (5 - i))) & 31);
  return `${hrp}1${[...words, ...checksum].map((w) => BECH32_CHARSET[w]).join('')}`;
}

/** 20 bytes → 32 five-bit words, the payload of an Avalanche address. */
export function toWords(bytes: Uint8Array): number[] {
  const words: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      words.push((acc >>> bits) & 31);
    }
  }
  if (bits > 0) words.push((acc << (5 - bits)) & 31);
  return words;
}

/** Why an address is not valid on `network`, or undefined when it is. */
export function addressProblem(address: string, network: Network): string | undefined {
  const hrp = addressHrp(network);
  const bare = bareAddress(address);
  if (!bare.startsWith(`${hrp}1`)) {
    return `must start with "${hrp}1" (optionally "P-" or "X-") on ${network}`;
  }
  const data = bare.slice(hrp.length + 1);
  if (data.length !== 38) return `must have 38 characters after "${hrp}1", has ${data.length}`;
  const words: number[] = [];
  for (const c of data) {
    const w = BECH32_CHARSET.indexOf(c);
    if (w < 0) return `contains "${c}", which is not a bech32 character`;
    words.push(w);
  }
  if (polymod([...hrpExpand(hrp), ...words]) !== 1) return 'has an invalid bech32 checksum (a typo?)';
  return undefined;
}

/** What is wrong with cb58 text read as an id of `bytes` bytes (`what`: "a node id"), or undefined. */
function cb58Problem(reading: Cb58Reading, what: string, bytes: number): string | undefined {
  if (reading.ok) return undefined;
  switch (reading.problem) {
    case 'character':
      return `contains "${reading.character}", which is not a cb58 character (cb58 has no 0, O, I or l)`;
    case 'length':
      return `is not ${what}: its cb58 holds ${reading.bytes} bytes where ${what} has ${bytes} (a character missing or added?)`;
    case 'checksum':
      return 'has an invalid cb58 checksum (a typo?)';
    default: {
      const never: never = reading;
      throw new Error(`unknown cb58 reading ${JSON.stringify(never)}`);
    }
  }
}

/**
 * The example ids of 0.1.0's starter config (`config init`, glacier-collector.example.yaml): made up,
 * they fail the cb58 checksum checked since 0.2.0. A config written by that release still holds
 * them: the message says what they are, not "a typo?".
 */
export const STARTER_PLACEHOLDERS_0_1_0 = {
  nodeIds: ['NodeID-mWG9ZZ15qHfyv9Y872qp2ND2kSHYe5A6m', 'NodeID-Y8xRNxybkaqkxaGbS2YN6GLWDWU7sjzqY'],
  txHashes: ['2oxtFTU5N5o6vQXihy727Bx8CVPAiC1A2oxtFTU5N5o6vQXih'],
} as const;

function placeholderProblem(what: string): string {
  return `a placeholder of 0.1.0's starter config, not a real ${what}; replace it with yours`;
}

/** Why a node id is not valid, or undefined when it is: "NodeID-" and the cb58 of 20 bytes. */
export function nodeIdProblem(nodeId: string): string | undefined {
  if ((STARTER_PLACEHOLDERS_0_1_0.nodeIds as readonly string[]).includes(nodeId)) {
    return placeholderProblem('node id');
  }
  if (!nodeId.startsWith(NODE_ID_PREFIX)) return `must be "${NODE_ID_PREFIX}" followed by a cb58 id`;
  const id = nodeId.slice(NODE_ID_PREFIX.length);
  return cb58Problem(cb58Decode(id, NODE_ID_BYTES), 'a node id', NODE_ID_BYTES);
}

/** Why a P-Chain or X-Chain transaction id is not valid, or undefined: the cb58 of 32 bytes. */
export function txHashProblem(txHash: string): string | undefined {
  if ((STARTER_PLACEHOLDERS_0_1_0.txHashes as readonly string[]).includes(txHash)) {
    return placeholderProblem('transaction id');
  }
  if (/^0x/i.test(txHash)) {
    return 'is an EVM hash (0x…): the signature aggregator takes a P-Chain or X-Chain transaction id (cb58)';
  }
  return cb58Problem(cb58Decode(txHash, TX_ID_BYTES), 'a P-Chain or X-Chain transaction id', TX_ID_BYTES);
}
