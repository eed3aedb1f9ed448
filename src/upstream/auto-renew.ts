/**
 * ACP-236 auto-renewed staking (the Helicon upgrade), in one place: every shape the Data API adds for
 * it (`stakingType`, the validators' `autoRenew`, `GET /v1/networks/{network}/validators/{nodeId}/cycles`)
 * comes from the *unreleased* `@avalanche-sdk/chainkit` 0.3.14, not from a published OpenAPI
 * (docs: ../../../shared/reference/auto-renewed-staking.md in the session, summarised in
 * docs/collection.md). When the release changes a name, an optionality or an enum, this file is
 * the one edit.
 *
 * Read tolerantly: the SDK makes `stakingType` required and its enums closed, but servers of today
 * send no `stakingType` (every reward is then `fixed`) and the enums may grow, so the field is
 * optional and every enum is open (an unknown value is stored as sent and seen as drift, never a
 * failed record); unknown fields are kept (loose objects). Amounts are nAVAX integer strings, times
 * unix seconds, the share a 0..100 percent.
 */
import * as z from 'zod';
import { openEnum } from './enums.js';
import {
  BOUND,
  jsonPosition,
  jsonUnixSeconds,
  position,
  shaped,
  text,
  uintString,
  unixSeconds,
} from './fields.js';

/** `StakingType`: `autoRenewed` validations run in repeating cycles. */
export const stakingTypes = ['fixed', 'autoRenewed'] as const;
export type StakingType = (typeof stakingTypes)[number];
/** What a record without `stakingType` is: every reward the released API sends. */
export const DEFAULT_STAKING_TYPE: StakingType = 'fixed';

/** `stakingType` on rewards, pending rewards and validator objects: optional, open. */
export const stakingTypeField = openEnum(stakingTypes).optional();

/** The stored value of a record's `stakingType`: as sent, `fixed` when absent. */
export function stakingTypeOf(record: { stakingType?: string | undefined }): string {
  return record.stakingType ?? DEFAULT_STAKING_TYPE;
}

/** `AutoRenewState`; only `renewing` and `exiting` are explained by the SDK's doc. */
export const autoRenewStates = ['renewing', 'exiting', 'exited', 'aborted'] as const;
/** `AutoRenewExitReason`. */
export const autoRenewExitReasons = ['graceful', 'uptime_not_met'] as const;
/** `AutoRenewedCycleOutcome`: `renewed` rolled into another cycle; `exited`, `aborted` the last one. */
export const cycleOutcomes = ['renewed', 'exited', 'aborted'] as const;
export type CycleOutcome = (typeof cycleOutcomes)[number];

const txHash = text(128);
const percent = z.preprocess(
  (v) => (typeof v === 'object' && v !== null ? Number(String(v)) : v),
  z.number().min(0, `${BOUND} expected a percent 0..100`).max(100, `${BOUND} expected a percent 0..100`),
);
const count = jsonPosition;
const bech32Address = shaped(
  /^(?:[PX]-)?[a-z]{1,20}1[02-9ac-hj-np-z]{38}$/,
  'a bech32 address such as avax1…',
);

/**
 * `AutoRenewDetails`, the `autoRenew` object of active and completed validator details (and staking
 * transactions): every documented field checked when present, none required.
 */
export const autoRenewSchema = z.looseObject({
  state: openEnum(autoRenewStates).optional(),
  nextPeriodSeconds: position.optional(),
  autoCompoundSharePercent: z
    .number()
    .min(0, `${BOUND} expected a percentage from 0 to 100`)
    .max(100, `${BOUND} expected a percentage from 0 to 100`)
    .optional(),
  compoundedWeight: uintString.optional(),
  accruedValidationRewards: uintString.optional(),
  accruedDelegateeRewards: uintString.optional(),
  validationRewardAddresses: z.array(bech32Address).max(100).optional(),
  delegationRewardAddresses: z.array(bech32Address).max(100).optional(),
  exitReason: openEnum(autoRenewExitReasons).nullish(),
  endedAtTimestamp: unixSeconds.nullish(),
});
export type AutoRenew = z.output<typeof autoRenewSchema>;

/** `AutoRenewedCycle`: one settled cycle (all 16 fields required in the SDK). */
export const autoRenewedCycleSchema = z.looseObject({
  cycleIndex: count,
  rewardTxHash: txHash,
  stakingTxHash: txHash,
  startTimestamp: jsonUnixSeconds,
  endTimestamp: jsonUnixSeconds,
  weightAtCycleStart: uintString,
  grossValidationReward: uintString,
  withdrawnValidationReward: uintString,
  compoundedValidationReward: uintString,
  grossDelegateeReward: uintString,
  withdrawnDelegateeReward: uintString,
  compoundedDelegateeReward: uintString,
  autoCompoundSharePercent: percent,
  outcome: openEnum(cycleOutcomes),
  delegatorCount: count,
  amountDelegated: uintString,
});
export type AutoRenewedCycle = z.output<typeof autoRenewedCycleSchema>;

/** `CurrentAutoRenewedCycle`: the cycle in flight, on the first page only. */
export const currentAutoRenewedCycleSchema = z.looseObject({
  cycleIndex: count,
  stakingTxHash: txHash,
  startTimestamp: jsonUnixSeconds,
  endTimestamp: jsonUnixSeconds,
  weightAtCycleStart: uintString,
  /** A forecast for the whole cycle: never added to sums over settled cycles. */
  projectedValidationReward: uintString,
  accruedDelegateeReward: uintString,
  autoCompoundSharePercent: percent,
  state: openEnum(autoRenewStates),
  delegatorCount: count,
  amountDelegated: uintString,
});
export type CurrentAutoRenewedCycle = z.output<typeof currentAutoRenewedCycleSchema>;

/** `ListAutoRenewedCyclesResponse`, its envelope first (records are checked one by one). */
export const listCyclesEnvelopeSchema = z.looseObject({
  nextPageToken: z
    .string()
    .max(4096)
    .regex(/^[\x21-\x7e]*$/, 'expected a page token of visible ASCII characters')
    .optional(),
  cycles: z.array(z.unknown()),
  currentCycle: currentAutoRenewedCycleSchema.optional(),
});
export const listCyclesResponseSchema = listCyclesEnvelopeSchema.extend({
  cycles: z.array(autoRenewedCycleSchema),
});
export type ListCyclesResponse = z.output<typeof listCyclesResponseSchema>;

/**
 * Why a settled cycle's amounts do not add up (`gross = withdrawn + compounded`, for the validation
 * reward and the delegatee commission), naming the fields; undefined when they do.
 */
export function cycleMismatch(c: AutoRenewedCycle): string | undefined {
  const problems: string[] = [];
  for (const part of ['Validation', 'Delegatee'] as const) {
    const gross = BigInt(c[`gross${part}Reward`]);
    const withdrawn = BigInt(c[`withdrawn${part}Reward`]);
    const compounded = BigInt(c[`compounded${part}Reward`]);
    if (gross !== withdrawn + compounded) {
      problems.push(
        `gross${part}Reward ${gross} ≠ withdrawn${part}Reward ${withdrawn} + compounded${part}Reward ${compounded}`,
      );
    }
  }
  return problems.length ? problems.join('; ') : undefined;
}

/**
 * A settled cycle as the collector takes it: its shape, and its amounts adding up (a cycle whose
 * `gross ≠ withdrawn + compounded` is set aside, the fields named, the rest of the page goes on).
 */
export const settledCycleSchema = autoRenewedCycleSchema.superRefine((c, ctx) => {
  for (const part of ['Validation', 'Delegatee'] as const) {
    const gross = BigInt(c[`gross${part}Reward`]);
    const withdrawn = BigInt(c[`withdrawn${part}Reward`]);
    const compounded = BigInt(c[`compounded${part}Reward`]);
    if (gross !== withdrawn + compounded) {
      ctx.addIssue({
        code: 'custom',
        path: [`gross${part}Reward`],
        message: `gross${part}Reward ${gross} ≠ withdrawn${part}Reward ${withdrawn} + compounded${part}Reward ${compounded}`,
      });
    }
  }
});
