/**
 * Kubernetes objects checked against the API's own schemas, offline: kubernetes-models (the
 * OpenAPI schemas of Kubernetes) and @kubernetes-models/prometheus-operator (its CRDs) validate
 * types (4.5.1 and 4.4.4: the newest releases that support Node 20, test/unit/engines.test.ts), required fields, enums and formats. Their schemas,
 * like the API's, allow fields they do not list, where `kubectl apply` (strict field validation)
 * refuses them: so every object is also type-checked by TypeScript against the same packages'
 * interfaces, whose excess-property check names a misspelt or misplaced field.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import ts from 'typescript';
import type { K8sObject } from './kustomize.js';

interface Kind {
  /** The model's class (any constructor: each takes its own interface). */
  model: new (
    data: never,
  ) => { validate(): void };
  /** The module and interface TypeScript checks the object against. */
  module: string;
  type: string;
}

const KINDS: Record<string, Kind> = {
  'v1/ConfigMap': { model: ConfigMap, module: 'kubernetes-models/v1/ConfigMap', type: 'IConfigMap' },
  'v1/Service': { model: Service, module: 'kubernetes-models/v1/Service', type: 'IService' },
  'apps/v1/Deployment': {
    model: Deployment,
    module: 'kubernetes-models/apps/v1/Deployment',
    type: 'IDeployment',
  },
  'apps/v1/StatefulSet': {
    model: StatefulSet,
    module: 'kubernetes-models/apps/v1/StatefulSet',
    type: 'IStatefulSet',
  },
  'networking.k8s.io/v1/NetworkPolicy': {
    model: NetworkPolicy,
    module: 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy',
    type: 'INetworkPolicy',
  },
  'policy/v1/PodDisruptionBudget': {
    model: PodDisruptionBudget,
    module: 'kubernetes-models/policy/v1/PodDisruptionBudget',
    type: 'IPodDisruptionBudget',
  },
  'monitoring.coreos.com/v1/PrometheusRule': {
    model: PrometheusRule,
    module: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule',
    type: 'IPrometheusRule',
  },
  'monitoring.coreos.com/v1/ServiceMonitor': {
    model: ServiceMonitor,
    module: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor',
    type: 'IServiceMonitor',
  },
};

const label = (o: K8sObject) => `${o.kind} ${o.metadata?.name}`;

/** Every problem of every object, one line each: an empty list when all are valid. */
export function schemaProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  const checked: { object: K8sObject; kind: Kind }[] = [];
  for (const o of objects) {
    const kind = KINDS[`${o.apiVersion}/${o.kind}`];
    if (!kind) {
      problems.push(`${label(o)}: no schema here for ${o.apiVersion} ${o.kind}`);
      continue;
    }
    try {
      new kind.model(structuredClone(o) as never).validate();
    } catch (err) {
      problems.push(`${label(o)}: ${(err as Error).message}`);
    }
    checked.push({ object: o, kind });
  }
  problems.push(...unknownFields(checked));
  return problems;
}

/**
 * TypeScript's excess-property check over object literals of the interfaces: one program for all
 * objects, its diagnostics mapped back to the object they are in.
 */
function unknownFields(checked: { object: K8sObject; kind: Kind }[]): string[] {
  // A file beside this one (never written: the compiler host serves it) resolves the packages
  // from the repository's node_modules.
  const file = join(dirname(fileURLToPath(import.meta.url)), '__kubernetes_objects__.ts');
  const imports = [
    ...new Set(checked.map(({ kind }) => `import type { ${kind.type} } from '${kind.module}';`)),
  ];
  const lines = [...imports];
  const starts: number[] = [];
  checked.forEach(({ object, kind }, i) => {
    starts.push(lines.length);
    lines.push(`export const o${i}: ${kind.type} = ${JSON.stringify(object, null, 2)};`);
  });
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, version, ...rest) =>
    name === file ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, ...rest);
  host.fileExists = (name) => name === file || fileExists(name);
  host.readFile = (name) => (name === file ? source : readFile(name));
  const program = ts.createProgram([file], options, host);
  const sourceFile = program.getSourceFile(file)!;
  return ts.getPreEmitDiagnostics(program, sourceFile).map((d) => {
    const line = d.start === undefined ? 0 : sourceFile.getLineAndCharacterOfPosition(d.start).line;
    let index = starts.length - 1;
    while (index > 0 && starts[index]! > line) index--;
    const at = checked[index] ? label(checked[index]!.object) : 'imports';
    return `${at}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
}
