import type { Family } from './exposition.js';

const NON_BASE_UNITS =
  /_(ms|msecs?|milliseconds|microseconds|nanoseconds|minutes|hours|days|kilobytes|megabytes|gigabytes|percent|percentage|navax|wei)(_|$)/;

/**
 * The naming rules of docs/metrics.md (the Prometheus naming guide, made strict), on a scrape in the
 * Prometheus text format: one `glacier_` prefix, snake_case, base units, `_total` exactly on
 * counters, ratios 0–1, no label that Prometheus owns, at most `cap` series per family. Returns
 * every problem found.
 */
export function lintFamilies(families: readonly Family[], cap: number): string[] {
  const problems: string[] = [];
  const bad = (name: string, why: string) => problems.push(`${name}: ${why}`);
  for (const f of families) {
    const { name } = f;
    if (!/^glacier_[a-z][a-z0-9_]*[a-z0-9]$/.test(name) || name.includes('__'))
      bad(name, 'not glacier_ snake_case');
    if (!f.help.trim()) bad(name, 'no HELP');
    if (!['counter', 'gauge', 'histogram'].includes(f.type)) bad(name, `type ${f.type}`);
    if (NON_BASE_UNITS.test(name)) bad(name, 'not in a base unit (seconds, bytes, AVAX, ratio 0–1)');
    if ((f.type === 'counter') !== name.endsWith('_total'))
      bad(name, '_total must end the counters and only them');
    if (f.type !== 'histogram' && /_(bucket|count|sum|info_total)$/.test(name))
      bad(name, `a reserved suffix on a ${f.type}`);
    if (name.includes('_timestamp') && !name.endsWith('_timestamp_seconds'))
      bad(name, 'timestamps are _timestamp_seconds');
    if (/_(duration|time)(_|$)/.test(name) && !name.endsWith('_seconds'))
      bad(name, 'durations are in seconds');
    const series = f.type === 'histogram' ? f.samples.filter((s) => s.name.endsWith('_count')) : f.samples;
    if (series.length > cap) bad(name, `${series.length} series, over the cap of ${cap}`);
    for (const s of f.samples) {
      if (s.name !== name && !(f.type === 'histogram' && /_(bucket|sum|count)$/.test(s.name))) {
        bad(name, `sample ${s.name} outside its family`);
      }
      for (const label of Object.keys(s.labels)) {
        if (!/^[a-z][a-z0-9_]*$/.test(label)) bad(name, `label ${label} is not snake_case`);
        const histogramLe = label === 'le' && s.name.endsWith('_bucket');
        if (['job', 'instance', 'quantile'].includes(label) || (label === 'le' && !histogramLe)) {
          bad(name, `label ${label} belongs to Prometheus`);
        }
      }
      if (name.endsWith('_ratio') && !(s.value >= 0 && s.value <= 1))
        bad(name, `ratio ${s.value} outside 0–1`);
      if (name.endsWith('_info') && s.value !== 1) bad(name, 'an info metric is 1');
    }
  }
  return problems;
}
