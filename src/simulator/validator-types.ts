/**
 * The staking resources the simulator serves, after ../shared/reference/data-api-staking.openapi.json
 * (the released shapes): validators (one node id, or a list), delegators and pending rewards.
 * `stakingType` and `autoRenew` (the SDK's next release, auto-renewed-staking.md) are optional here:
 * the released shape has neither; a validator the auto-renewed data fills carries them.
 */

export type ValidationStatus = 'active' | 'pending' | 'completed' | 'removed';

export interface Rewards {
  validationRewardAmount: string;
  delegationRewardAmount: string;
  rewardAddresses?: string[];
  rewardTxHash?: string;
}

export interface ValidatorHealthDetails {
  reachabilityPercent: number;
  benchedPChainRequestsPercent: number;
  benchedXChainRequestsPercent: number;
  benchedCChainRequestsPercent: number;
}

export interface Geolocation {
  city: string;
  country: string;
  countryCode: string;
  latitude: number;
  longitude: number;
}

interface ValidatorBase {
  txHash: string;
  nodeId: string;
  subnetId: string;
  amountStaked: string;
  delegationFee?: string;
  startTimestamp: number;
  endTimestamp: number;
  blsCredentials?: { publicKey: string; proofOfPossession: string };
  /** The SDK's next release (`fixed` | `autoRenewed`); absent in the released shape. */
  stakingType?: string;
  /** The SDK's next release, on active and completed auto-renewed validations only. */
  autoRenew?: Record<string, unknown>;
}

export interface ActiveValidatorDetails extends ValidatorBase {
  validationStatus: 'active';
  stakePercentage: number;
  delegatorCount: number;
  amountDelegated?: string;
  uptimePerformance: number;
  avalancheGoVersion?: string;
  delegationCapacity?: string;
  potentialRewards: Rewards;
  validatorHealth: ValidatorHealthDetails;
  geolocation: Geolocation | null;
}

export interface CompletedValidatorDetails extends ValidatorBase {
  validationStatus: 'completed';
  delegatorCount: number;
  amountDelegated?: string;
  rewards: Rewards;
}

export interface PendingValidatorDetails extends ValidatorBase {
  validationStatus: 'pending';
}

export interface RemovedValidatorDetails extends ValidatorBase {
  validationStatus: 'removed';
  removeTxHash: string;
  removeTimestamp: number;
}

export type ValidatorDetails =
  | ActiveValidatorDetails
  | CompletedValidatorDetails
  | PendingValidatorDetails
  | RemovedValidatorDetails;

export interface ListValidatorDetailsResponse {
  nextPageToken?: string;
  validators: ValidatorDetails[];
}

export type DelegationStatus = 'active' | 'pending' | 'completed';

interface DelegatorBase {
  txHash: string;
  nodeId: string;
  rewardAddresses: string[];
  amountDelegated: string;
  delegationFee: string;
  startTimestamp: number;
  endTimestamp: number;
}

export type DelegatorDetails =
  | (DelegatorBase & {
      delegationStatus: 'active' | 'pending';
      estimatedGrossReward: string;
      estimatedNetReward: string;
    })
  | (DelegatorBase & { delegationStatus: 'completed'; grossReward: string; netReward: string });

export interface ListDelegatorDetailsResponse {
  nextPageToken?: string;
  delegators: DelegatorDetails[];
}

export interface PendingReward {
  addresses: string[];
  txHash: string;
  amountStaked: string;
  nodeId: string;
  startTimestamp: number;
  endTimestamp: number;
  rewardType: 'VALIDATOR' | 'DELEGATOR' | 'VALIDATOR_FEE';
  progress: number;
  estimatedReward: {
    assetId: string;
    name: string;
    symbol: string;
    denomination: number;
    type: 'secp256k1';
    amount: string;
  };
}

export interface ListPendingRewardsResponse {
  nextPageToken?: string;
  pendingRewards: PendingReward[];
}
