/**
 * The part of kustomize that deploy/kubernetes/ uses, so that a test sees every object
 * `kubectl apply -k` would send without kubectl: `resources` (files and directories), `components`,
 * `configMapGenerator` (files and literals; `behavior` create, merge or replace) with the content
 * hash in the name and the references of pod templates renamed, `namespace`, `images`, and
 * `patches` in JSON 6902 form with a `target`. Anything else in a kustomization is refused, so a
 * feature added to the manifests is added here too. test/integration/kubernetes.test.ts compares
 * the result with `kubectl kustomize` where kubectl is installed.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

// biome-ignore lint/suspicious/noExplicitAny: Kubernetes objects of every kind, read field by field
export type K8sObject = Record<string, any> & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
};

interface Generated {
  /** The name before the hash suffix (what the manifests refer to). */
  name: string;
  object: K8sObject;
}

interface Build {
  objects: K8sObject[];
  generated: Generated[];
}

const KNOWN_KEYS = new Set([
  'apiVersion',
  'kind',
  'resources',
  'components',
  'configMapGenerator',
  'namespace',
  'images',
  'patches',
]);

/** What `kubectl kustomize <dir>` prints, as objects (in no particular order). */
export function kustomize(dir: string): K8sObject[] {
  const build = buildDir(dir, 'Kustomization');
  const renamed = new Map<string, string>();
  for (const g of build.generated) {
    const suffixed = `${g.name}-${configMapHash(g.object)}`;
    renamed.set(g.name, suffixed);
    g.object.metadata.name = suffixed;
  }
  for (const o of build.objects) renameConfigMapReferences(o, renamed);
  return build.objects;
}

/**
 * A kustomization builds what it lists into a new set; a component adds its objects to the set of
 * the kustomization that lists it and transforms that whole set.
 */
function buildDir(
  dir: string,
  expected: 'Kustomization' | 'Component',
  build: Build = { objects: [], generated: [] },
): Build {
  const k = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as Record<string, unknown>;
  const kind = (k.kind as string | undefined) ?? 'Kustomization';
  if (kind !== expected) throw new Error(`${dir}: a ${kind} where a ${expected} was expected`);
  for (const key of Object.keys(k)) {
    if (!KNOWN_KEYS.has(key)) throw new Error(`${dir}/kustomization.yaml: ${key} is not implemented here`);
  }
  for (const entry of (k.resources as string[] | undefined) ?? []) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      const sub = buildDir(path, 'Kustomization');
      build.objects.push(...sub.objects);
      build.generated.push(...sub.generated);
    } else build.objects.push(...readObjects(path));
  }
  for (const entry of (k.components as string[] | undefined) ?? [])
    buildDir(join(dir, entry), 'Component', build);
  for (const gen of (k.configMapGenerator as GeneratorSpec[] | undefined) ?? []) generate(build, dir, gen);
  for (const patch of (k.patches as PatchSpec[] | undefined) ?? []) applyPatch(build.objects, dir, patch);
  for (const image of (k.images as ImageSpec[] | undefined) ?? []) setImage(build.objects, image);
  const namespace = k.namespace as string | undefined;
  if (namespace) for (const o of build.objects) o.metadata.namespace = namespace;
  return build;
}

function readObjects(path: string): K8sObject[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0]!.message}`);
      return doc.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null);
}

interface GeneratorSpec {
  name: string;
  behavior?: 'create' | 'merge' | 'replace';
  files?: string[];
  literals?: string[];
}

function generate(build: Build, dir: string, gen: GeneratorSpec): void {
  const data: Record<string, string> = {};
  for (const file of gen.files ?? []) {
    const [key, path] = file.includes('=') ? file.split('=', 2) : [basename(file), file];
    data[key!] = readFileSync(join(dir, path!), 'utf8');
  }
  for (const literal of gen.literals ?? []) {
    const eq = literal.indexOf('=');
    data[literal.slice(0, eq)] = literal.slice(eq + 1);
  }
  const behavior = gen.behavior ?? 'create';
  const existing = build.generated.find((g) => g.name === gen.name);
  if (behavior === 'create') {
    if (existing) throw new Error(`${dir}: ConfigMap ${gen.name} generated twice`);
    const object: K8sObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: gen.name }, data };
    build.objects.push(object);
    build.generated.push({ name: gen.name, object });
    return;
  }
  if (!existing) throw new Error(`${dir}: ${behavior} of ConfigMap ${gen.name}, which nothing generates`);
  existing.object.data = behavior === 'merge' ? { ...existing.object.data, ...data } : data;
}

/**
 * kustomize's name suffix: the first 10 hex digits of the SHA-256 of `{"data":…,"kind":"ConfigMap",
 * "name":""}` as Go's encoding/json writes it (keys sorted; `<`, `>`, `&`, U+2028 and U+2029
 * escaped), with 0, 1, 3, a and e replaced by g, h, k, m and t. The name is empty: kustomize's
 * hasher looks up `metadata/name` as one field name, which no object has.
 */
export function configMapHash(cm: K8sObject): string {
  const sorted = Object.fromEntries(
    Object.keys(cm.data ?? {})
      .sort()
      .map((k) => [k, cm.data[k]]),
  );
  const json = JSON.stringify({ data: sorted, kind: 'ConfigMap', name: '' }).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  const hex = createHash('sha256').update(json).digest('hex').slice(0, 10);
  const swap: Record<string, string> = { '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' };
  return [...hex].map((c) => swap[c] ?? c).join('');
}

/** The pod template of a workload, if it has one. */
export function podSpec(o: K8sObject): K8sObject['spec'] | undefined {
  return o.spec?.template?.spec;
}

function renameConfigMapReferences(o: K8sObject, renamed: Map<string, string>): void {
  const spec = podSpec(o);
  if (!spec) return;
  const rename = (ref: { name?: string } | undefined) => {
    if (ref?.name && renamed.has(ref.name)) ref.name = renamed.get(ref.name)!;
  };
  for (const v of spec.volumes ?? []) rename(v.configMap);
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    for (const e of c.envFrom ?? []) rename(e.configMapRef);
    for (const e of c.env ?? []) rename(e.valueFrom?.configMapKeyRef);
  }
}

interface ImageSpec {
  name: string;
  newName?: string;
  newTag?: string;
}

function setImage(objects: K8sObject[], image: ImageSpec): void {
  for (const o of objects) {
    const spec = podSpec(o);
    for (const c of [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])]) {
      const [name, tag] = splitImage(c.image as string);
      if (name !== image.name) continue;
      c.image = `${image.newName ?? name}${image.newTag !== undefined ? `:${image.newTag}` : tag ? `:${tag}` : ''}`;
    }
  }
}

function splitImage(image: string): [string, string | undefined] {
  const colon = image.lastIndexOf(':');
  return colon > image.lastIndexOf('/')
    ? [image.slice(0, colon), image.slice(colon + 1)]
    : [image, undefined];
}

interface PatchSpec {
  patch?: string;
  path?: string;
  target: { group?: string; version?: string; kind?: string; name?: string; labelSelector?: string };
}

interface Operation {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: unknown;
}

function applyPatch(objects: K8sObject[], dir: string, spec: PatchSpec): void {
  const text = spec.patch ?? readFileSync(join(dir, spec.path!), 'utf8');
  const ops = parse(text) as Operation[];
  if (!Array.isArray(ops)) throw new Error(`${dir}: only JSON 6902 patches (a list of operations)`);
  const targets = objects.filter((o) => selected(o, spec.target));
  if (targets.length === 0)
    throw new Error(`${dir}: a patch selects nothing: ${JSON.stringify(spec.target)}`);
  for (const o of targets) for (const op of ops) applyOperation(o, op);
}

function selected(o: K8sObject, t: PatchSpec['target']): boolean {
  const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : ['', o.apiVersion];
  if (t.group !== undefined && t.group !== group) return false;
  if (t.version !== undefined && t.version !== version) return false;
  if (t.kind !== undefined && t.kind !== o.kind) return false;
  if (t.name !== undefined && t.name !== o.metadata.name) return false;
  for (const term of t.labelSelector?.split(',') ?? []) {
    const [key, value] = term.split('=');
    if (o.metadata.labels?.[key!.trim()] !== value?.trim()) return false;
  }
  return true;
}

/** RFC 6902 add, replace and remove; `-` appends to an array. */
function applyOperation(o: K8sObject, op: Operation): void {
  const keys = op.path
    .split('/')
    .slice(1)
    .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'));
  const last = keys.pop()!;
  // biome-ignore lint/suspicious/noExplicitAny: walking a parsed object
  let parent: any = o;
  for (const key of keys) {
    parent = Array.isArray(parent) ? parent[Number(key)] : parent[key];
    if (parent === undefined) throw new Error(`${o.kind} ${o.metadata.name}: no ${op.path}`);
  }
  const value = structuredClone(op.value);
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : Number(last);
    if (op.op === 'add') parent.splice(index, 0, value);
    else if (op.op === 'replace') parent[index] = value;
    else parent.splice(index, 1);
    return;
  }
  if (op.op !== 'add' && !(last in parent)) throw new Error(`${o.kind} ${o.metadata.name}: no ${op.path}`);
  if (op.op === 'remove') delete parent[last];
  else parent[last] = value;
}
