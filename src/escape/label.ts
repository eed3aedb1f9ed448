/**
 * Metric label values from upstream text (chain ids, usage-metrics group values, reward types):
 * checked before they become a label. A value the API sent can be anything: measured before, twenty
 * 1.5 MB chain ids on one page made every `/metrics` response 60 MB, and ESC and BEL passed through
 * to whatever displays the labels. A failing value is counted under one `invalid` value instead.
 */
import { hasControl } from './control.js';

/** The label value every failing value is counted under. */
export const INVALID_LABEL = 'invalid';

/** Longest label value accepted, in characters: far above any real chain id, group or type. */
export const MAX_LABEL_LENGTH = 128;

/** Why `value` may not be a label value, or undefined when it may. */
export function labelProblem(value: string): string | undefined {
  if (value.length === 0) return 'empty';
  if (value.length > MAX_LABEL_LENGTH) return `longer than ${MAX_LABEL_LENGTH} characters`;
  if (hasControl(value)) return 'holds control characters';
  return undefined;
}

/**
 * Checks a label value of a metric family: the value itself, or `invalid`. `report` is told the
 * first failing value of each family (the caller logs it once).
 */
export type LabelCheck = (family: string, value: string) => string;

export function createLabelCheck(report: (family: string, problem: string) => void): LabelCheck {
  const reported = new Set<string>();
  return (family, value) => {
    const problem = labelProblem(value);
    if (!problem) return value;
    if (!reported.has(family)) {
      reported.add(family);
      report(family, problem);
    }
    return INVALID_LABEL;
  };
}
