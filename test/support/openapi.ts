/**
 * Validates response bodies against the schemas of spec/data-api.openapi.json and
 * spec/data-api-staking.openapi.json (the staking endpoints), so the simulator (and
 * anything else under test) cannot drift from the real shapes. JSON Schema 2020-12 via Ajv: the
 * component schemas become one document, `#/components/schemas/X` refs point into it, and the schema
 * of each (operation, status) is compiled once on first use.
 */
import { readFileSync } from 'node:fs';
import Ajv2020Module, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { type EndpointName, endpoints } from '../../src/upstream/endpoints.js';

interface OpenApiOperation {
  operationId: string;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, unknown> };
}

const SPEC_URL = new URL('../../spec/data-api.openapi.json', import.meta.url);
const STAKING_SPEC_URL = new URL('../../spec/data-api-staking.openapi.json', import.meta.url);
const COMPONENTS_ID = 'https://glacier-collector.local/openapi-components.json';
const read = (url: URL) => JSON.parse(readFileSync(url, 'utf8')) as OpenApiDocument;
const base = read(SPEC_URL);
const staking = read(STAKING_SPEC_URL);
/** Both documents as one: their paths, and their components (the error bodies they share are the same). */
const spec: OpenApiDocument = {
  paths: { ...base.paths, ...staking.paths },
  components: { schemas: { ...base.components.schemas, ...staking.components.schemas } },
};

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  // OpenAPI 3.0's `nullable` (the staking document's geolocation): null, or the schema.
  const { nullable, ...rest } = value as Record<string, unknown>;
  if (nullable === true) return { anyOf: [{ type: 'null' }, rewriteRefs(rest)] };
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] =
      key === '$ref' && typeof inner === 'string'
        ? inner.replace('#/components/schemas/', `${COMPONENTS_ID}#/$defs/`)
        : rewriteRefs(inner);
  }
  return out;
}

// ajv and ajv-formats are CommonJS: under NodeNext their default import is `module.exports`, whose
// `default` property is the class (resp. the plugin).
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

const ajv = new Ajv2020({ allErrors: true, strict: true });
// OpenAPI's singular `example` is an annotation, not a JSON Schema keyword.
ajv.addKeyword({
  keyword: 'example',
  schemaType: ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'],
});
// OpenAPI's `discriminator` is a hint for code generators; `oneOf` decides.
ajv.addKeyword({ keyword: 'discriminator', schemaType: 'object' });
addFormats(ajv);
ajv.addSchema({ $id: COMPONENTS_ID, $defs: rewriteRefs(spec.components.schemas) as Record<string, unknown> });

/** An operationId of the spec, an endpoint name of src/upstream/endpoints.ts, or `METHOD /path/template`. */
export type OperationRef = EndpointName | string;

function findOperation(ref: OperationRef): OpenApiOperation {
  let method: string | undefined;
  let path: string | undefined;
  if (ref in endpoints) {
    const e = endpoints[ref as EndpointName];
    method = e.method;
    path = e.path;
  } else if (/^[A-Z]+ \//.test(ref)) {
    [method, path] = ref.split(' ') as [string, string];
  }
  for (const [p, ops] of Object.entries(spec.paths)) {
    for (const [m, op] of Object.entries(ops)) {
      if (op.operationId === ref || (p === path && m.toUpperCase() === method)) return op;
    }
  }
  throw new Error(`No operation ${ref} in the OpenAPI document`);
}

const compiled = new Map<string, ValidateFunction>();

function validatorFor(ref: OperationRef, status: number): ValidateFunction {
  const key = `${ref}|${status}`;
  const cached = compiled.get(key);
  if (cached) return cached;
  const op = findOperation(ref);
  const schema = op.responses[String(status)]?.content?.['application/json']?.schema;
  if (schema === undefined)
    throw new Error(`${op.operationId} documents no JSON response for status ${status}`);
  const validate = ajv.compile(rewriteRefs(schema) as object);
  compiled.set(key, validate);
  return validate;
}

/** The schema errors of a body, as readable lines; empty when it is valid. */
export function responseErrors(ref: OperationRef, status: number, body: unknown): string[] {
  const validate = validatorFor(ref, status);
  if (validate(body)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
  );
}

/** Throws, listing every schema error, unless `body` is a valid response of `ref` with `status`. */
export function expectValidResponse(ref: OperationRef, status: number, body: unknown): void {
  const errors = responseErrors(ref, status, body);
  if (errors.length > 0) {
    throw new Error(
      `Response of ${ref} (${status}) does not match the OpenAPI schema:\n${errors.join('\n')}`,
    );
  }
}

/** The named component schema, compiled, for checks outside a response (e.g. one CSV row as a transaction). */
export function expectValidComponent(name: string, value: unknown): void {
  const validate = ajv.getSchema(`${COMPONENTS_ID}#/$defs/${name}`);
  if (!validate) throw new Error(`No component schema ${name}`);
  if (!validate(value)) {
    throw new Error(`Not a valid ${name}:\n${JSON.stringify(validate.errors, null, 2)}`);
  }
}
