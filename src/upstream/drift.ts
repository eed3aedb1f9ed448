/**
 * Drift: what an answer carries that the OpenAPI does not list. Unknown fields are kept (the
 * schemas are loose) and unknown values of the open enums are stored as sent; both are also seen
 * here, named by their path in the answer (`historicalRewards[].stakingType`,
 * `transactions[].method.callType=CONTRACT_DEPLOY`), so an operator learns of a change in the API
 * before a dashboard goes wrong (docs/operations.md, "The API changed").
 *
 * The walk reads the schemas through zod's public classes (objects' `shape`, arrays' `element`,
 * optionals' `unwrap()`, pipes' `in`/`out`), and the open enums' known values from a registry.
 */
import { z } from 'zod';
import { excerpt } from '../escape/excerpt.js';

export type DriftKind = 'field' | 'enumValue';

export interface DriftName {
  kind: DriftKind;
  /** The field's path, or `path=value` for an enum value; control characters shown, bounded. */
  name: string;
  /** Records (or answers) of the page that carried it. */
  count: number;
}

/** The known values of each open enum (schemas.ts `openEnum`). */
const openEnums = z.registry<{ known: readonly string[] }>();

/** A word an open enum accepts beyond its known values: letters, digits and a few separators. */
const ENUM_WORD = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;

/**
 * A string enum whose known values are typed but which accepts any other word: failing a whole
 * record because of a new `rewardType` would set data aside for nothing. An unknown value is seen
 * as drift.
 */
export function openEnum<const T extends readonly [string, ...string[]]>(known: T) {
  const schema = z
    .string()
    .regex(ENUM_WORD, 'expected a word: a letter, then letters, digits, "_", ".", ":" or "-", at most 64');
  schema.register(openEnums, { known });
  return schema as unknown as z.ZodType<T[number] | (string & {}), string>;
}

/** Names longer than this are cut: a hostile key is not stored or printed whole. */
const MAX_NAME_LENGTH = 96;

/** Collects drift while walking one answer; `seen` counts each name once per record. */
export class DriftCollector {
  private readonly names = new Map<string, DriftName>();
  private record = new Set<string>();

  /** Starts a new record: a name seen twice in one record counts once. */
  nextRecord(): void {
    this.record = new Set();
  }

  add(kind: DriftKind, name: string): void {
    const shown = excerpt(name, MAX_NAME_LENGTH);
    const key = `${kind}\n${shown}`;
    if (this.record.has(key)) return;
    this.record.add(key);
    const found = this.names.get(key);
    if (found) found.count++;
    else this.names.set(key, { kind, name: shown, count: 1 });
  }

  result(): DriftName[] {
    return [...this.names.values()];
  }
}

/** The schema under optional, nullable, default and pipe wrappers, and the open enum on the way, if any. */
function unwrap(schema: z.ZodType): { core: z.ZodType; known: readonly string[] | undefined } {
  let s: z.ZodType = schema;
  let known = openEnums.get(s)?.known;
  for (let depth = 0; depth < 16; depth++) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) {
      s = s.unwrap() as z.ZodType;
    } else if (s instanceof z.ZodPipe) {
      // An open enum piped into a narrower shape, or a preprocess into its target.
      const inner = s.in as z.ZodType;
      known ??= openEnums.get(inner)?.known;
      s = (inner instanceof z.ZodTransform ? s.out : inner) as z.ZodType;
    } else break;
    known ??= openEnums.get(s)?.known;
  }
  return { core: s, known };
}

/** What the walk needs of a schema: its known enum values, its fields, its element. */
interface Shape {
  known?: ReadonlySet<string>;
  fields?: Map<string, Shape>;
  element?: Shape;
}

/** Compiled once per schema (the walk runs on every record of every page). */
const shapes = new WeakMap<z.ZodType, Shape>();

function shapeOf(schema: z.ZodType): Shape {
  const found = shapes.get(schema);
  if (found) return found;
  const shape: Shape = {};
  // Set before the children: a schema that refers to itself is walked as far as the value goes.
  shapes.set(schema, shape);
  const { core, known } = unwrap(schema);
  if (known) shape.known = new Set(known);
  else if (core instanceof z.ZodObject) {
    shape.fields = new Map(
      Object.entries(core.shape as Record<string, z.ZodType>).map(([k, v]) => [k, shapeOf(v)]),
    );
  } else if (core instanceof z.ZodArray) shape.element = shapeOf(core.element as z.ZodType);
  return shape;
}

/** Adds to `out` every field and open-enum value of `value` that `schema` does not list. */
export function findDrift(schema: z.ZodType, value: unknown, path: string, out: DriftCollector): void {
  walk(shapeOf(schema), value, path, out);
}

function walk(shape: Shape, value: unknown, path: string, out: DriftCollector): void {
  if (value === null || value === undefined) return;
  if (shape.known) {
    if (typeof value === 'string' && !shape.known.has(value)) out.add('enumValue', `${path}=${value}`);
    return;
  }
  if (shape.fields && typeof value === 'object' && !Array.isArray(value)) {
    const fields = shape.fields;
    for (const key of Object.keys(value)) {
      const field = fields.get(key);
      const name = path ? `${path}.${key}` : key;
      if (!field) out.add('field', name);
      else if (field.known || field.fields || field.element) {
        walk(field, (value as Record<string, unknown>)[key], name, out);
      }
    }
  } else if (shape.element && Array.isArray(value)) {
    const element = shape.element;
    if (!(element.known || element.fields || element.element)) return;
    for (const item of value) walk(element, item, `${path}[]`, out);
  }
}
