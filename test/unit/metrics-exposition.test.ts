import { describe, expect, it } from 'vitest';
import { parseExposition, samples, value } from '../support/exposition.js';
import { lintFamilies } from '../support/metrics-lint.js';

const text = [
  '# HELP glacier_x_total Things, with a \\\\ and a \\n in the help.',
  '# TYPE glacier_x_total counter',
  'glacier_x_total{a="1",b="q\\"uote\\\\back\\nline"} 3',
  'glacier_x_total{a="2",} 4 1700000000000',
  '',
  '# HELP glacier_h_seconds A histogram.',
  '# TYPE glacier_h_seconds histogram',
  'glacier_h_seconds_bucket{le="0.1",endpoint="a"} 1',
  'glacier_h_seconds_bucket{le="+Inf",endpoint="a"} 2',
  'glacier_h_seconds_sum{endpoint="a"} 0.35',
  'glacier_h_seconds_count{endpoint="a"} 2',
  'glacier_h_seconds_bucket{le="+Inf",endpoint="b"} 0',
  'glacier_h_seconds_sum{endpoint="b"} 0',
  'glacier_h_seconds_count{endpoint="b"} 0',
  '# HELP glacier_level A gauge.',
  '# TYPE glacier_level gauge',
  'glacier_level NaN',
  'glacier_level{x="y"} -Inf',
].join('\n');

describe('parseExposition', () => {
  it('reads families, escaped labels, histograms with labels and special values', () => {
    const families = parseExposition(text);
    expect(families.map((f) => [f.name, f.type, f.samples.length])).toEqual([
      ['glacier_x_total', 'counter', 2],
      ['glacier_h_seconds', 'histogram', 7],
      ['glacier_level', 'gauge', 2],
    ]);
    expect(families[0]!.help).toBe('Things, with a \\ and a \n in the help.');
    expect(families[0]!.samples[0]!.labels).toEqual({ a: '1', b: 'q"uote\\back\nline' });
    expect(value(families, 'glacier_x_total', { a: '2' })).toBe(4);
    expect(value(families, 'glacier_h_seconds_count', { endpoint: 'a' })).toBe(2);
    expect(value(families, 'glacier_h_seconds_bucket', { endpoint: 'a', le: '+Inf' })).toBe(2);
    expect(samples(families, 'glacier_level')[0]?.value).toBeNaN();
    expect(value(families, 'glacier_level', { x: 'y' })).toBe(Number.NEGATIVE_INFINITY);
  });

  it('reads OpenMetrics: a counter family without _total, # EOF', () => {
    const families = parseExposition('# HELP a_b B.\n# TYPE a_b counter\na_b_total 1\n# EOF\n');
    expect(families).toEqual([
      { name: 'a_b', help: 'B.', type: 'counter', samples: [{ name: 'a_b_total', labels: {}, value: 1 }] },
    ]);
  });

  it.each([
    ['glacier_x{a=1} 1', 'label a without ="'],
    ['glacier_x{a="1" 1', 'not a sample'],
    ['glacier_x{a="1"} one', 'not a value'],
    ['glacier_x{a="1",a="2"} 1', 'label a twice'],
  ])('refuses %s', (line, why) => {
    expect(() => parseExposition(line)).toThrow(why);
  });
});

describe('lintFamilies', () => {
  const lint = (exposition: string) => lintFamilies(parseExposition(exposition), 2);
  it('passes good names', () => {
    expect(lint(text)).toEqual([]);
  });

  it.each([
    ['# HELP other_x X.\n# TYPE other_x gauge\nother_x 1', 'not glacier_ snake_case'],
    ['# HELP glacier_Big X.\n# TYPE glacier_Big gauge\nglacier_Big 1', 'not glacier_ snake_case'],
    ['# HELP glacier_x X.\n# TYPE glacier_x counter\nglacier_x 1', '_total must end the counters'],
    [
      '# HELP glacier_x_total X.\n# TYPE glacier_x_total gauge\nglacier_x_total 1',
      '_total must end the counters',
    ],
    ['# HELP glacier_lag_ms X.\n# TYPE glacier_lag_ms gauge\nglacier_lag_ms 1', 'base unit'],
    ['# HELP glacier_ok_percent X.\n# TYPE glacier_ok_percent gauge\nglacier_ok_percent 1', 'base unit'],
    ['# HELP glacier_ok_ratio X.\n# TYPE glacier_ok_ratio gauge\nglacier_ok_ratio 99', 'outside 0–1'],
    [
      '# HELP glacier_last_timestamp X.\n# TYPE glacier_last_timestamp gauge\nglacier_last_timestamp 1',
      '_timestamp_seconds',
    ],
    ['# HELP glacier_x X.\n# TYPE glacier_x gauge\nglacier_x{job="a"} 1', 'label job belongs to Prometheus'],
    [
      '# HELP glacier_x X.\n# TYPE glacier_x gauge\nglacier_x{a="1"} 1\nglacier_x{a="2"} 1\nglacier_x{a="3"} 1',
      'over the cap of 2',
    ],
    ['# TYPE glacier_x gauge\nglacier_x 1', 'no HELP'],
    ['# HELP glacier_x_count X.\n# TYPE glacier_x_count gauge\nglacier_x_count 1', 'reserved suffix'],
    [
      '# HELP glacier_build_info X.\n# TYPE glacier_build_info gauge\nglacier_build_info 2',
      'an info metric is 1',
    ],
  ])('finds the problem in %s', (exposition, problem) => {
    expect(lint(exposition).join('\n')).toContain(problem);
  });
});
