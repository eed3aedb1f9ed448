import parsePrometheusTextFormat, { type ParsedFamily } from 'parse-prometheus-text-format';
import { request } from 'undici';

export type { ParsedFamily };

export interface Scraped {
  status: number;
  contentType: string;
  body: string;
  families: ParsedFamily[];
}

/** GET `url` (a /metrics endpoint) and parse the Prometheus text it returns. */
export async function scrape(url: string, accept?: string): Promise<Scraped> {
  const res = await request(url, { headers: accept ? { accept } : {} });
  const body = await res.body.text();
  return {
    status: res.statusCode,
    contentType: String(res.headers['content-type']),
    body,
    families: accept?.includes('openmetrics') ? [] : parsePrometheusTextFormat(body),
  };
}

export function family(families: readonly ParsedFamily[], name: string): ParsedFamily | undefined {
  return families.find((f) => f.name === name);
}

/** Samples of a family whose labels include `labels`. */
export function samples(
  families: readonly ParsedFamily[],
  name: string,
  labels: Record<string, string> = {},
) {
  return (family(families, name)?.metrics ?? []).filter((m) =>
    Object.entries(labels).every(([k, v]) => m.labels?.[k] === v),
  );
}

/** The one value of a family with these labels (undefined when there is none; throws when several). */
export function value(
  families: readonly ParsedFamily[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found = samples(families, name, labels);
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)}: ${found.length} samples`);
  const text = found[0]?.value;
  return text === undefined ? undefined : Number(text);
}
