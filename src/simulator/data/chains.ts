/**
 * The EVM chains of each network and the known contracts that appear as transaction parties.
 * C-Chain carries most of the traffic, as on the real networks; the other ids are real Avalanche L1s.
 */
import type { NetworkGroup } from '../validation.js';

export interface ChainInfo {
  chainId: string;
  /** Share of the network's transactions (weights sum to 1 per network). */
  weight: number;
  /** Block number at BLOCK_ANCHOR_MS; blocks follow one per BLOCK_MS. */
  anchorBlock: number;
}

export const chainsByNetwork: Readonly<Record<NetworkGroup, readonly ChainInfo[]>> = {
  mainnet: [
    { chainId: '43114', weight: 0.7, anchorBlock: 40_000_000 },
    { chainId: '432204', weight: 0.1, anchorBlock: 18_000_000 },
    { chainId: '53935', weight: 0.08, anchorBlock: 30_000_000 },
    { chainId: '4337', weight: 0.07, anchorBlock: 2_500_000 },
    { chainId: '8021', weight: 0.05, anchorBlock: 9_000_000 },
  ],
  testnet: [
    { chainId: '43113', weight: 0.75, anchorBlock: 28_000_000 },
    { chainId: '432201', weight: 0.1, anchorBlock: 11_000_000 },
    { chainId: '335', weight: 0.08, anchorBlock: 14_000_000 },
    { chainId: '13337', weight: 0.07, anchorBlock: 1_500_000 },
  ],
};

/** Every block lasts this long on every chain here; transactions in the same slot share a block. */
export const BLOCK_MS = 2_000;
/** 2024-01-01T00:00:00Z: the instant each chain's anchorBlock was produced. */
export const BLOCK_ANCHOR_MS = Date.UTC(2024, 0, 1);

export function chainFor(group: NetworkGroup, draw: number): ChainInfo {
  const chains = chainsByNetwork[group];
  let acc = 0;
  for (const chain of chains) {
    acc += chain.weight;
    if (draw < acc) return chain;
  }
  return chains[chains.length - 1] as ChainInfo;
}

export function findChain(chainId: string): ChainInfo | undefined {
  for (const group of ['mainnet', 'testnet'] as const) {
    const chain = chainsByNetwork[group].find((c) => c.chainId === chainId);
    if (chain) return chain;
  }
  return undefined;
}

export function blockNumberAt(chain: ChainInfo, timeMs: number): number {
  return Math.max(1, chain.anchorBlock + Math.floor((timeMs - BLOCK_ANCHOR_MS) / BLOCK_MS));
}

export interface KnownContract {
  name: string;
  symbol: string;
  decimals: number;
  logoUri: string;
}

const LOGO_BASE = 'https://images.ctfassets.net/gcj8jwzm6086';
export const knownContracts: readonly KnownContract[] = [
  { name: 'Wrapped AVAX', symbol: 'WAVAX', decimals: 18, logoUri: `${LOGO_BASE}/wavax/logo.svg` },
  { name: 'USD Coin', symbol: 'USDC', decimals: 6, logoUri: `${LOGO_BASE}/usdc/logo.svg` },
  { name: 'TetherToken', symbol: 'USDt', decimals: 6, logoUri: `${LOGO_BASE}/usdt/logo.svg` },
  { name: 'JoeToken', symbol: 'JOE', decimals: 18, logoUri: `${LOGO_BASE}/joe/logo.svg` },
  { name: 'BENQI', symbol: 'QI', decimals: 18, logoUri: `${LOGO_BASE}/qi/logo.svg` },
  { name: 'Pangolin', symbol: 'PNG', decimals: 18, logoUri: `${LOGO_BASE}/png/logo.svg` },
  { name: 'Wrapped Ether', symbol: 'WETH.e', decimals: 18, logoUri: `${LOGO_BASE}/weth/logo.svg` },
  { name: 'Bitcoin', symbol: 'BTC.b', decimals: 8, logoUri: `${LOGO_BASE}/btcb/logo.svg` },
];

export interface KnownMethod {
  hash: string;
  name: string;
}

export const knownMethods: readonly KnownMethod[] = [
  { hash: '0xa9059cbb', name: 'transfer(address,uint256)' },
  { hash: '0x095ea7b3', name: 'approve(address,uint256)' },
  { hash: '0x23b872dd', name: 'transferFrom(address,address,uint256)' },
  { hash: '0x38ed1739', name: 'swapExactTokensForTokens(uint256,uint256,address[],address,uint256)' },
  { hash: '0x7ff36ab5', name: 'swapExactAVAXForTokens(uint256,address[],address,uint256)' },
  { hash: '0xd0e30db0', name: 'deposit()' },
  { hash: '0x2e1a7d4d', name: 'withdraw(uint256)' },
];
