import { InvalidArgumentError, Option } from 'commander';
import { parseDuration } from '../config/durations.js';

/**
 * `--history <days>` of `plan` and `status`: how far back the rewards history goes, for a first
 * backfill's cost and time. Whole days (`730d`); without it, since the network's launch.
 */
export function historyMs(text: string): number | undefined {
  const ms = /^\s*\d+(\.\d+)?\s*d\s*$/.test(text) ? parseDuration(text.trim()) : undefined;
  return ms !== undefined && ms > 0 ? ms : undefined;
}

export function historyOption(): Option {
  return new Option(
    '--history <days>',
    "how far back the rewards history goes, for a first backfill's cost and time, e.g. 730d (default: since the network's launch, 2020-09-21)",
  ).argParser((value: string) => {
    if (historyMs(value) === undefined) {
      throw new InvalidArgumentError(`not a number of days; use e.g. 730d (two years)`);
    }
    return value;
  });
}
