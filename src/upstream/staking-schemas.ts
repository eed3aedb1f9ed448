/**
 * Schemas of the staking endpoints, after spec/data-api-staking.openapi.json (the released shapes):
 * a node's validations (`validators/{nodeId}`, a paged list) and pending rewards (`rewards:listPending`).
 *
 * A validation is one record whatever its `validationStatus`: the fields every status has are
 * required, the others optional, and those a status needs (an active one's uptime and potential
 * rewards, a completed one's rewards, a removed one's removal time) required for that status. A value
 * out of its domain (a time outside 2009..2100, a negative or non-integer stake, a percentage outside
 * 0..100) sets the record aside with the field named.
 *
 * The SDK's next release (../shared/reference/auto-renewed-staking.md) adds `stakingType` (required
 * there) and `autoRenew` (optional): both are read tolerantly here, in this one place. A missing
 * `stakingType` is `fixed`; an unknown one is kept (and seen as drift); an `autoRenew` object is kept
 * with the fields it has, its documented ones checked when present.
 */
import { z } from 'zod';
// The ACP-236 shapes (stakingType, autoRenew) live in auto-renew.ts, the one place they are parsed.
import { autoRenewSchema, stakingTypeField } from './auto-renew.js';
import { openEnum } from './enums.js';
import { BOUND, denomination, position, shaped, text, uintString, unixSeconds } from './fields.js';
import { CB58_ID, NODE_ID } from './identifiers.js';

const cb58 = shaped(CB58_ID, 'a cb58 id');
/** A subnet id: cb58 of 32 bytes, shorter when it starts with zero bytes (the Primary Network's is 37 characters). */
const subnetId = shaped(/^[1-9A-HJ-NP-Za-km-z]{32,60}$/, 'a subnet id (cb58)');
const nodeId = shaped(NODE_ID, 'a node id: "NodeID-" followed by a cb58 id');
const bech32Address = shaped(
  /^(?:[PX]-)?[a-z]{1,20}1[02-9ac-hj-np-z]{38}$/,
  'a bech32 address such as avax1…',
);
const pageToken = z
  .string()
  .max(4096, `${BOUND} expected a page token of at most 4096 characters`)
  .regex(/^[\x21-\x7e]*$/, 'expected a page token of visible ASCII characters');

/** A percentage, 0..100 (uptime, reachability, stake share). */
export const percentage = z
  .number()
  .min(0, `${BOUND} expected a percentage from 0 to 100`)
  .max(100, `${BOUND} expected a percentage from 0 to 100`);
/** A percentage sent as text (`delegationFee`: "2.0000"), 0..100, kept as sent. */
const percentageText = z
  .string()
  .regex(/^\d{1,3}(\.\d{1,18})?$/, 'expected a decimal percentage such as "2.0000"')
  .refine((v) => Number(v) <= 100, `${BOUND} expected a percentage from 0 to 100`);

export const validationStatuses = ['active', 'pending', 'completed', 'removed'] as const;

export const stakingRewardsSchema = z.looseObject({
  validationRewardAmount: uintString,
  delegationRewardAmount: uintString,
  rewardAddresses: z.array(bech32Address).max(100, `${BOUND} expected at most 100 addresses`).optional(),
  rewardTxHash: cb58.optional(),
});

const healthSchema = z.looseObject({
  reachabilityPercent: percentage,
  benchedPChainRequestsPercent: percentage,
  benchedXChainRequestsPercent: percentage,
  benchedCChainRequestsPercent: percentage,
});

const geolocationSchema = z.looseObject({
  city: text(256).optional(),
  country: text(256).optional(),
  countryCode: text(16).optional(),
  latitude: z.number().optional(),
  longitude: z.number().optional(),
});

/** What a status needs beyond the common fields (ActiveValidatorDetails, CompletedValidatorDetails…). */
const neededBy: Record<string, readonly string[]> = {
  active: ['uptimePerformance', 'potentialRewards', 'delegatorCount'],
  completed: ['rewards', 'delegatorCount'],
  removed: ['removeTimestamp'],
  pending: [],
};

export const validatorSchema = z
  .looseObject({
    txHash: cb58,
    nodeId,
    subnetId,
    amountStaked: uintString,
    delegationFee: percentageText.optional(),
    startTimestamp: unixSeconds,
    endTimestamp: unixSeconds,
    validationStatus: openEnum(validationStatuses),
    stakePercentage: percentage.optional(),
    delegatorCount: position.optional(),
    amountDelegated: uintString.optional(),
    uptimePerformance: percentage.optional(),
    avalancheGoVersion: text(256).optional(),
    delegationCapacity: uintString.optional(),
    potentialRewards: stakingRewardsSchema.optional(),
    rewards: stakingRewardsSchema.optional(),
    validatorHealth: healthSchema.optional(),
    geolocation: geolocationSchema.nullish(),
    blsCredentials: z.looseObject({ publicKey: text(512), proofOfPossession: text(512) }).optional(),
    removeTxHash: cb58.optional(),
    removeTimestamp: unixSeconds.optional(),
    /** The SDK's next release; absent means `fixed` (read tolerantly: an unknown type is kept). */
    stakingType: stakingTypeField,
    autoRenew: autoRenewSchema.optional(),
  })
  .superRefine((v, ctx) => {
    for (const field of neededBy[v.validationStatus] ?? []) {
      if ((v as Record<string, unknown>)[field] === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `required for a ${v.validationStatus} validation`,
        });
      }
    }
    if (v.endTimestamp < v.startTimestamp) {
      ctx.addIssue({
        code: 'custom',
        path: ['endTimestamp'],
        message: `${BOUND} expected an end after the start`,
      });
    }
  });
export type Validator = z.output<typeof validatorSchema>;

export const listValidatorDetailsEnvelopeSchema = z.looseObject({
  nextPageToken: pageToken.optional(),
  validators: z.array(z.unknown()),
});

export const pendingRewardSchema = z.looseObject({
  addresses: z.array(bech32Address).max(1000, `${BOUND} expected at most 1000 addresses`),
  txHash: cb58,
  amountStaked: uintString,
  nodeId,
  startTimestamp: unixSeconds,
  endTimestamp: unixSeconds,
  rewardType: openEnum(['VALIDATOR', 'DELEGATOR', 'VALIDATOR_FEE']).pipe(
    shaped(/^[A-Z][A-Z0-9_]{0,63}$/, 'a reward type: upper-case letters, digits and "_"'),
  ),
  progress: percentage,
  estimatedReward: z.looseObject({
    assetId: cb58,
    name: text(1024),
    symbol: text(256),
    denomination,
    type: openEnum(['secp256k1', 'nft']),
    amount: uintString,
  }),
  stakingType: stakingTypeField,
});
export type PendingReward = z.output<typeof pendingRewardSchema>;

export const listPendingRewardsEnvelopeSchema = z.looseObject({
  nextPageToken: pageToken.optional(),
  pendingRewards: z.array(z.unknown()),
});
