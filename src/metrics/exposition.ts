/**
 * The text of a scrape, in the format the scraper asks for: OpenMetrics 1.0 when its `Accept`
 * names `application/openmetrics-text` at least as high as `text/plain` (Prometheus does, by
 * default), the Prometheus text format 0.0.4 otherwise.
 */
import { Counter, type OpenMetricsContentType, Registry } from 'prom-client';

export type Format = 'prometheus' | 'openmetrics';

/** A registered metric, as the registry lists them. */
type Registered = ReturnType<Registry['getMetricsAsArray']>[number];
/** Where a metric's text comes from: the registry, or its OpenMetrics view. */
type View = Pick<Registry, 'getSingleMetricAsString'>;

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

/** What the renderer asks of the scrape (src/metrics/scrape.ts). */
export interface RenderHooks {
  /** Runs the collectors, before each render. */
  collect(): Promise<void>;
  /** A metric's version while its series stay the same; undefined: rendered on every scrape. */
  version(metricName: string): number | undefined;
}

/**
 * Renders the registry as prom-client's `metrics()` does, byte for byte: each metric's text in
 * registration order, separated by a blank line (Prometheus) or a newline and closed by `# EOF`
 * (OpenMetrics). A family whose version is the one of its last render in that format is not
 * rendered again: the collected values change once a run, not once a scrape, and rendering them is
 * most of a scrape's work. prom-client 15 renders an OpenMetrics counter's family under its name
 * without `_total`, which its `metrics()` strips in place (prometheus/client_js#829): here the name
 * is stripped for the render only, then restored. Renders are serialized.
 */
export function createRenderer(
  registry: Registry,
  hooks: RenderHooks,
): (format: Format) => Promise<Exposition> {
  const kept = new Map<string, { version: number; text: string }>();
  const renderMetric = async (view: View, metric: Registered, format: Format): Promise<string> => {
    const registered = metric.name;
    if (format === 'prometheus' || !(metric instanceof Counter))
      return view.getSingleMetricAsString(registered);
    metric.name = registered.replace(/_total$/, '');
    try {
      return await view.getSingleMetricAsString(registered);
    } finally {
      metric.name = registered;
    }
  };
  const textOf = async (view: View, metric: Registered, format: Format): Promise<string> => {
    const version = hooks.version(metric.name);
    if (version === undefined) return renderMetric(view, metric, format);
    const key = `${format} ${metric.name}`;
    const last = kept.get(key);
    if (last?.version === version) return last.text;
    const text = await renderMetric(view, metric, format);
    kept.set(key, { version, text });
    return text;
  };
  const render = async (format: Format): Promise<Exposition> => {
    await hooks.collect();
    if (format === 'prometheus') {
      const texts = await Promise.all(registry.getMetricsAsArray().map((m) => textOf(registry, m, format)));
      return { contentType: Registry.PROMETHEUS_CONTENT_TYPE, body: `${texts.join('\n\n')}\n` };
    }
    // A second registry over the same metric objects, so the shared one keeps its content type.
    const view = Registry.merge([registry]) as unknown as Registry<OpenMetricsContentType>;
    view.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    const texts = await Promise.all(view.getMetricsAsArray().map((m) => textOf(view, m, format)));
    return { contentType: Registry.OPENMETRICS_CONTENT_TYPE, body: `${texts.join('\n')}\n# EOF\n` };
  };
  let queue: Promise<unknown> = Promise.resolve();
  return (format) => {
    const next = queue.then(() => render(format));
    queue = next.catch(() => undefined);
    return next;
  };
}
