import { InvalidArgumentError, Option } from 'commander';
import { historyMs } from '../config/durations.js';

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
