// Writes deploy/kubernetes/base/prometheusrule.yaml from deploy/prometheus/alerts.yml: the same rule
// groups, comments included, as a PrometheusRule of the Prometheus Operator. `npm run rules:kubernetes`
// after changing an alert; test/integration/kubernetes.test.ts fails until the two files agree.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ALERTS = 'deploy/prometheus/alerts.yml';
export const PROMETHEUS_RULE = 'deploy/kubernetes/base/prometheusrule.yaml';

const HEADER = `# GENERATED from ${ALERTS} by \`npm run rules:kubernetes\`: edit the alerts there, then run it.
# The Prometheus Operator loads these rules into every Prometheus whose ruleSelector matches the
# labels below (\`release: kube-prometheus-stack\`: kube-prometheus-stack's default, its Helm release
# name; see docs/operations.md, "Kubernetes"). The rules select job="glacier-collector", the name
# of the metrics Service.
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: glacier-collector
  labels:
    app.kubernetes.io/name: glacier-collector
    app.kubernetes.io/part-of: glacier-collector
    release: kube-prometheus-stack
spec:
`;

/**
 * The PrometheusRule text for the text of alerts.yml: its lines from \`groups:\` on, indented under
 * \`spec:\`. Indenting every line alike keeps block scalars and comments as they are.
 */
export function prometheusRule(alerts: string): string {
  const lines = alerts.split('\n');
  const start = lines.findIndex((line) => line.startsWith('groups:'));
  if (start < 0) throw new Error(`${ALERTS}: no top-level \`groups:\``);
  const body = lines
    .slice(start)
    .map((line) => (line === '' ? line : `  ${line}`))
    .join('\n');
  return `${HEADER}${body}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  writeFileSync(`${root}${PROMETHEUS_RULE}`, prometheusRule(readFileSync(`${root}${ALERTS}`, 'utf8')));
  console.log(`wrote ${PROMETHEUS_RULE}`);
}
