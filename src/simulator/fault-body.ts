/** Body mutations of the fault injector: cut JSON, JSON of the wrong shape, unknown extra fields. */

/** The first half of a JSON text: never parseable, since a JSON value cannot end halfway. */
export function truncateJson(text: string): string {
  return text.slice(0, Math.max(1, Math.floor(text.length / 2)));
}

function wrongType(value: unknown): unknown {
  if (typeof value === 'string') return 12345;
  if (typeof value === 'number') return 'not-a-number';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return { unexpected: 'object instead of array' };
  if (value === null) return 0;
  return 'string instead of object';
}

/**
 * Valid JSON of the wrong shape: in the first list of the body (or the body itself), the first
 * field of the first item gets a value of another type, or an empty list becomes an object.
 */
export function malformBody(body: unknown): unknown {
  if (Array.isArray(body)) {
    if (body.length === 0) return wrongType(body);
    return [malformBody(body[0]), ...body.slice(1)];
  }
  if (body === null || typeof body !== 'object') return wrongType(body);
  const record = body as Record<string, unknown>;
  const keys = Object.keys(record);
  const listKey = keys.find((k) => Array.isArray(record[k]));
  const target = listKey ?? keys[0];
  if (target === undefined) return { unexpected: true };
  const replaced = listKey !== undefined ? malformBody(record[listKey]) : wrongType(record[target]);
  return { ...record, [target]: replaced };
}

/** Unknown fields added to every object at every level: the real schema grows, clients must ignore them. */
export function addExtraFields(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(addExtraFields);
  if (body === null || typeof body !== 'object') return body;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) out[key] = addExtraFields(value);
  out['simFutureField'] = 'added by the simulator (extraFields fault)';
  out['simFutureObject'] = { version: 2, tags: ['future'] };
  return out;
}
