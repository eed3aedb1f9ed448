import type * as z from 'zod';

/** Invalid configuration: the CLI prints the message and exits with code 2. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    message: string,
    readonly problems: string[] = [message],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** `jobs.rewards.addresses[2]` from a zod path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || '(root)';
}

export function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[part];
  }
  return current;
}

function show(value: unknown): string {
  if (value === undefined) return '(missing)';
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** zod's type names as a config file's reader says them. */
const typeWords: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a section of keys',
};

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a section of keys';
  return typeWords[typeof value] ?? typeof value;
}

/**
 * One line per problem: the key, the value found there, and what would be valid. `unknownKey`
 * words an unknown key (the config file's says the closest valid one).
 */
export function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  input: unknown,
  prefix: string[] = [],
  unknownKey: (path: readonly PropertyKey[], key: string) => string = (path, key) =>
    `${formatPath([...prefix, ...path, key])}: unknown key (misspelt?)`,
): string[] {
  return issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => unknownKey(issue.path, key)).join('\n  - ');
    }
    const key = formatPath([...prefix, ...issue.path]);
    const value = valueAt(input, issue.path);
    if (issue.code === 'invalid_type') {
      // zod's own wording ("Invalid input: expected string, received undefined"), not a schema's message.
      const zodWording = issue.message.startsWith('Invalid input');
      // A key left out.
      if (value === undefined) return `${key}: missing (required${zodWording ? '' : `: ${issue.message}`})`;
      if (zodWording) {
        const expected = typeWords[issue.expected] ?? issue.expected;
        return `${key} = ${show(value)}: expected ${expected}, found ${kindOf(value)}`;
      }
    }
    return `${key} = ${show(value)}: ${issue.message}`;
  });
}
