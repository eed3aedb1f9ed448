import type { z } from 'zod';

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

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
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

/** One line per problem: the key, the value found there, and what would be valid. */
export function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  input: unknown,
  prefix: string[] = [],
): string[] {
  return issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys
        .map((key) => `${formatPath([...prefix, ...issue.path, key])}: unknown key (misspelt?)`)
        .join('\n  - ');
    }
    const key = formatPath([...prefix, ...issue.path]);
    return `${key} = ${show(valueAt(input, issue.path))}: ${issue.message}`;
  });
}
