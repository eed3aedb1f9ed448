/**
 * The shapes of the identifiers the API defines narrowly (its OpenAPI descriptions and examples):
 * shared by the response schemas (garbage is refused at the boundary, with the field named) and the
 * config's own checks of what users paste.
 */

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
