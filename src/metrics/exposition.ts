/**
 * The text of a scrape, in the format the scraper asks for: OpenMetrics 1.0 when its `Accept`
 * names `application/openmetrics-text` at least as high as `text/plain` (Prometheus does, by
 * default), the Prometheus text format 0.0.4 otherwise.
 */
import { type OpenMetricsContentType, Registry } from 'prom-client';

export type Format = 'prometheus' | 'openmetrics';

export interface Exposition {
  contentType: string;
  body: string;
}

/** The format an `Accept` header asks for (no header, or nothing known: Prometheus text). */
export function negotiate(accept: string | undefined): Format {
  if (!accept) return 'prometheus';
  let openmetrics = 0;
  let text = 0;
  for (const part of accept.split(',')) {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q)) continue;
    if (type === 'application/openmetrics-text') openmetrics = Math.max(openmetrics, q);
    else if (type === 'text/plain' || type === 'text/*' || type === '*/*') text = Math.max(text, q);
  }
  return openmetrics > 0 && openmetrics >= text ? 'openmetrics' : 'prometheus';
}

/**
 * Renders the registry. prom-client 15 renames a counter in place when it renders OpenMetrics (it
 * strips `_total` from the metric's name, prometheus/client_js#829), so renders are serialized and
 * an OpenMetrics render restores the names it changed before the next one starts.
 */
export function createRenderer(registry: Registry): (format: Format) => Promise<Exposition> {
  let queue: Promise<unknown> = Promise.resolve();
  const render = async (format: Format): Promise<Exposition> => {
    if (format === 'prometheus') {
      return { contentType: Registry.PROMETHEUS_CONTENT_TYPE, body: await registry.metrics() };
    }
    const metrics = registry.getMetricsAsArray();
    const names = metrics.map((m) => m.name);
    // A second registry over the same metric objects, so the shared one keeps its content type.
    const view = Registry.merge([registry]) as unknown as Registry<OpenMetricsContentType>;
    view.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    try {
      return { contentType: Registry.OPENMETRICS_CONTENT_TYPE, body: await view.metrics() };
    } finally {
      metrics.forEach((m, i) => {
        m.name = names[i]!;
      });
    }
  };
  return (format) => {
    const next = queue.then(() => render(format));
    queue = next.catch(() => undefined);
    return next;
  };
}
