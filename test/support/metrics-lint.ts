import type { ParsedFamily } from 'parse-prometheus-text-format';

/**
 * The naming rules of docs/metrics.md (the Prometheus naming guide, made strict): one `glacier_`
 * prefix, snake_case, base units, `_total` exactly on counters, ratios 0–1, no label that
 * Prometheus owns, at most `cap` series per family. Returns every problem found.
 */
export function lintFamilies(families: readonly ParsedFamily[], cap: number): string[] {
  const problems: string[] = [];
  const bad = (name: string, why: string) => problems.push(`${name}: ${why}`);
  const nonBaseUnits =
    /_(milli|micro|nano)?(ms|msecs?|milliseconds|microseconds|nanoseconds|minutes|hours|days|kilobytes|megabytes|gigabytes|percent|percentage|navax|wei)(_|$)/;
  for (const f of families) {
    const { name } = f;
    if (!/^glacier_[a-z][a-z0-9_]*[a-z0-9]$/.test(name) || name.includes('__'))
      bad(name, 'not glacier_ snake_case');
    if (!f.help.trim()) bad(name, 'no HELP');
    if (nonBaseUnits.test(name)) bad(name, 'not in a base unit (seconds, bytes, AVAX, ratio 0–1)');
    if ((f.type === 'COUNTER') !== name.endsWith('_total'))
      bad(name, '_total must end the counters and only them');
    if (f.type !== 'HISTOGRAM' && f.type !== 'SUMMARY' && /_(bucket|count|sum)$/.test(name)) {
      bad(name, 'a histogram suffix on a ' + f.type.toLowerCase());
    }
    if (/_timestamp/.test(name) && !name.endsWith('_timestamp_seconds'))
      bad(name, 'timestamps are _timestamp_seconds');
    if (/_(duration|time)(_|$)/.test(name) && !/_seconds$/.test(name)) bad(name, 'durations are in seconds');
    if (f.metrics.length > cap) bad(name, `${f.metrics.length} series, over the cap of ${cap}`);
    for (const m of f.metrics) {
      for (const label of Object.keys(m.labels ?? {})) {
        if (!/^[a-z][a-z0-9_]*$/.test(label)) bad(name, `label ${label} is not snake_case`);
        if (['job', 'instance', 'le', 'quantile'].includes(label))
          bad(name, `label ${label} belongs to Prometheus`);
      }
      const v = Number(m.value);
      if (name.endsWith('_ratio') && !(v >= 0 && v <= 1)) bad(name, `ratio ${m.value} outside 0–1`);
      if (name.endsWith('_info') && v !== 1) bad(name, 'an info metric is 1');
    }
  }
  return problems;
}
