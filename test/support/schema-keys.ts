import type * as z from 'zod';

/** A key of a zod object schema, as docs name it: `jobs.rewards.addresses`, `jobs.exports.definitions[].name`. */
export interface SchemaKey {
  path: string;
  /** The schema's `.default(…)`, when it has one (not `.prefault`, which only fills a section's own defaults). */
  default?: { value: unknown };
}

type AnySchema = z.core.$ZodType;

function def(schema: AnySchema): z.core.$ZodTypeDef & Record<string, unknown> {
  return schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
}

/**
 * Every key a zod schema accepts, walked from its definition: objects' shapes, through optional,
 * default, prefault, nullable, arrays (`[]`), unions and discriminated unions (the keys of every
 * option, once), and pipes/transforms (their input). Nested keys come after their parent.
 */
export function schemaKeys(schema: AnySchema, prefix = ''): SchemaKey[] {
  const out = new Map<string, SchemaKey>();
  const visit = (s: AnySchema, path: string, dflt: SchemaKey['default']) => {
    const d = def(s);
    switch (d.type) {
      case 'default': {
        const value = (d as unknown as { defaultValue: unknown }).defaultValue;
        visit(
          d.innerType as AnySchema,
          path,
          dflt ?? { value: typeof value === 'function' ? value() : value },
        );
        return;
      }
      case 'optional':
      case 'nullable':
      case 'prefault':
      case 'readonly':
      case 'nonoptional':
        visit(d.innerType as AnySchema, path, dflt);
        return;
      case 'pipe':
        visit(d.in as AnySchema, path, dflt);
        return;
      case 'array':
        record(path, dflt);
        visit(d.element as AnySchema, `${path}[]`, undefined);
        return;
      case 'union':
        record(path, dflt);
        for (const option of d.options as AnySchema[]) visit(option, path, undefined);
        return;
      case 'object': {
        // A section (`client`, `jobs.rewards`, a window's `{ lastDays }`) is documented by its keys.
        for (const [key, value] of Object.entries(d.shape as Record<string, AnySchema>)) {
          visit(value, path ? `${path}.${key}` : key, undefined);
        }
        return;
      }
      default:
        if (path) record(path, dflt);
    }
  };
  const record = (path: string, dflt: SchemaKey['default']) => {
    // An array's element path (`sources[]`) is not a key of its own.
    if (path.endsWith('[]')) return;
    const known = out.get(path);
    if (!known) out.set(path, dflt ? { path, default: dflt } : { path });
    else if (dflt && !known.default) known.default = dflt;
  };
  visit(schema, prefix, undefined);
  return [...out.values()];
}
