/**
 * A parser of the exposition formats the collector serves (Prometheus text 0.0.4 and OpenMetrics
 * 1.0), for tests: families with their typed samples, labels unescaped, values as numbers. Written
 * here because the npm parser that exists (parse-prometheus-text-format, unmaintained since 2019)
 * drops the labels of histograms. Throws on a line it cannot read.
 */
import { request } from 'undici';

export interface Sample {
  /** The sample's own name: `x_bucket`, `x_total`... */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  help: string;
  type: string;
  samples: Sample[];
}

const SUFFIXES: Record<string, string[]> = {
  counter: ['_total', '_created'],
  histogram: ['_bucket', '_sum', '_count', '_created'],
  summary: ['_sum', '_count', '_created'],
  info: ['_info'],
};

export function parseExposition(text: string): Family[] {
  const families: Family[] = [];
  const byName = new Map<string, Family>();
  const familyOf = (name: string) => {
    let f = byName.get(name);
    if (!f) {
      f = { name, help: '', type: 'untyped', samples: [] };
      byName.set(name, f);
      families.push(f);
    }
    return f;
  };
  let current: Family | undefined;
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const fail = (why: string): never => {
      throw new Error(`line ${i + 1}: ${why}: ${JSON.stringify(line)}`);
    };
    if (line === '' || line === '# EOF') return;
    const meta = /^# (HELP|TYPE|UNIT) ([a-zA-Z_:][a-zA-Z0-9_:]*)(?: (.*))?$/.exec(line);
    if (meta) {
      const [, kind, name, rest = ''] = meta;
      current = familyOf(name!);
      if (kind === 'HELP') current.help = unescapeText(rest, false);
      if (kind === 'TYPE') current.type = rest;
      return;
    }
    if (line.startsWith('#')) return;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)(?:\s+\S+)?$/.exec(line) ?? fail('not a sample');
    const [, name, labelText, valueText] = m;
    const value = parseValue(valueText!) ?? fail('not a value');
    const owner =
      current &&
      (name === current.name || (SUFFIXES[current.type] ?? []).some((s) => name === current!.name + s))
        ? current
        : familyOf(name!);
    owner.samples.push({ name: name!, labels: labelText ? parseLabels(labelText, fail) : {}, value });
  });
  return families;
}

function parseValue(text: string): number | undefined {
  if (text === '+Inf' || text === 'Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  if (text === 'NaN' || text === 'Nan') return Number.NaN;
  const n = Number(text);
  return text.trim() === '' || Number.isNaN(n) ? undefined : n;
}

function parseLabels(text: string, fail: (why: string) => never): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 1;
  const end = text.length - 1;
  while (i < end) {
    const name = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(text.slice(i))?.[0] ?? fail('bad label name');
    i += name.length;
    if (text.slice(i, i + 2) !== '="') fail(`label ${name} without ="`);
    i += 2;
    let raw = '';
    while (i < end && text[i] !== '"') {
      if (text[i] === '\\') raw += text[i++];
      raw += text[i++];
    }
    if (text[i] !== '"') fail(`label ${name} not closed`);
    i++;
    if (name in labels) fail(`label ${name} twice`);
    labels[name] = unescapeText(raw, true);
    if (text[i] === ',') i++;
    else if (i !== end) fail('expected , between labels');
  }
  return labels;
}

function unescapeText(text: string, quotes: boolean): string {
  return text.replace(/\\(.)/g, (whole, c: string) => {
    if (c === 'n') return '\n';
    if (c === '\\') return '\\';
    if (c === '"' && quotes) return '"';
    return whole;
  });
}

export interface Scraped {
  status: number;
  contentType: string;
  body: string;
  families: Family[];
}

/** GET `url` (a /metrics endpoint) and parse what it returns. */
export async function scrape(url: string, accept?: string): Promise<Scraped> {
  const res = await request(url, { headers: accept ? { accept } : {} });
  const body = await res.body.text();
  return {
    status: res.statusCode,
    contentType: String(res.headers['content-type']),
    body,
    families: parseExposition(body),
  };
}

/** Samples named `name` (a sample name, e.g. `x_count`) whose labels include `labels`. */
export function samples(
  families: readonly Family[],
  name: string,
  labels: Record<string, string> = {},
): Sample[] {
  return families
    .flatMap((f) => f.samples)
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The one value of a sample with these labels (undefined when there is none; throws when several). */
export function value(
  families: readonly Family[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found = samples(families, name, labels);
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)}: ${found.length} samples`);
  return found[0]?.value;
}
