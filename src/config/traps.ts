/**
 * The config file's classic traps, turned into messages that lead to the fix:
 * - YAML reads an unquoted `0x…` address or `43114` chain id as a number (an address becomes
 *   `6.4956264143494794e+47`): say to quote it and show it as written in the file (the YAML node's
 *   source), then validate the rest with the text in its place, so every other problem is reported
 *   in the same pass;
 * - an unknown key names the closest valid key of its section;
 * - YAML reads an unquoted cron expression that starts with `*` (`schedule: * * * * *`) as an
 *   alias and fails with "Unexpected alias": say to quote it, showing the line quoted.
 */
import type { Document } from 'yaml';
import type * as z from 'zod';
import { closest } from '../runtime/closest.js';
import { formatPath, valueAt } from './errors.js';

type AnySchema = z.core.$ZodType;
type Path = readonly PropertyKey[];

function def(schema: AnySchema): z.core.$ZodTypeDef & Record<string, unknown> {
  return schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
}

/** The schemas a path can lead to (a union can lead to several), wrappers unwrapped. */
function schemasAt(schema: AnySchema, path: Path): AnySchema[] {
  const d = def(schema);
  switch (d.type) {
    case 'default':
    case 'optional':
    case 'nullable':
    case 'prefault':
    case 'readonly':
    case 'nonoptional':
      return schemasAt(d.innerType as AnySchema, path);
    case 'pipe':
      return schemasAt(d.in as AnySchema, path);
    case 'union':
      return (d.options as AnySchema[]).flatMap((o) => schemasAt(o, path));
    default:
      break;
  }
  if (path.length === 0) return [schema];
  const [head, ...rest] = path;
  if (d.type === 'array' && typeof head === 'number') return schemasAt(d.element as AnySchema, rest);
  if (d.type === 'object') {
    const next = (d.shape as Record<string, AnySchema>)[String(head)];
    return next ? schemasAt(next, rest) : [];
  }
  return [];
}

/** The keys the section at `path` accepts (of every shape a union there allows). */
export function keysAt(schema: AnySchema, path: Path): string[] {
  const keys = new Set<string>();
  for (const s of schemasAt(schema, path)) {
    const d = def(s);
    if (d.type === 'object') for (const k of Object.keys(d.shape as object)) keys.add(k);
  }
  return [...keys];
}

/** "unknown key; did you mean `schedule`?" or, with nothing close, the keys allowed there. */
export function unknownKeyProblem(schema: AnySchema, path: Path, key: string): string {
  const valid = keysAt(schema, path);
  const near = closest(key, valid);
  const where = formatPath([...path, key]);
  if (near) return `${where}: unknown key; did you mean \`${near}\`?`;
  return valid.length > 0
    ? `${where}: unknown key; valid here: ${valid.map((k) => `\`${k}\``).join(', ')}`
    : `${where}: unknown key`;
}

export interface NumberForText {
  path: PropertyKey[];
  /** The value as the file wrote it (the YAML source), else as JSON would. */
  written: string;
  problem: string;
}

/**
 * Issues of a number where text is expected, each with the value as written in the file. The
 * caller puts `written` (a string) in its place and validates again, so the rest is checked too.
 */
export function numbersForText(
  issues: readonly z.core.$ZodIssue[],
  input: unknown,
  doc: Document | undefined,
): NumberForText[] {
  const found: NumberForText[] = [];
  for (const issue of issues) {
    if (issue.code !== 'invalid_type' || issue.expected !== 'string') continue;
    const value = valueAt(input, issue.path);
    if (typeof value !== 'number') continue;
    const node = doc?.getIn(issue.path, true) as { source?: unknown } | undefined;
    const source = typeof node?.source === 'string' ? node.source : undefined;
    const written = source ?? String(value);
    const key = formatPath(issue.path);
    const read = source !== undefined && source !== String(value) ? `the number ${value}` : 'a number';
    found.push({
      path: [...issue.path],
      written,
      problem: doc
        ? `${key} = ${written}: unquoted, YAML reads it as ${read}; quote it so it stays text: "${written}"`
        : `${key} = ${written}: a number where text is expected; write it in quotes: "${written}"`,
    });
  }
  return found;
}

export function setAt(input: unknown, path: Path, value: unknown): void {
  let current = input as Record<PropertyKey, unknown>;
  for (const part of path.slice(0, -1)) current = current[part] as Record<PropertyKey, unknown>;
  current[path[path.length - 1]!] = value;
}

/** `  schedule: * * * * *  # comment`: a key whose plain value starts with `*` (a YAML alias). */
const ALIAS_VALUE = /^(\s*)(?:-\s+)?([A-Za-z_][\w-]*):\s+(\*[^#]*?)\s*(?:#.*)?$/;
const KEY_LINE = /^(\s*)(?:-\s+)?([A-Za-z_][\w-]*):/;

/** The keys above line `index` by indentation: `jobs.supply` for a `schedule:` under them. */
function parentKeys(lines: readonly string[], index: number, indent: number): string[] {
  const keys: string[] = [];
  let limit = indent;
  for (let i = index - 1; i >= 0 && limit > 0; i--) {
    const m = KEY_LINE.exec(lines[i]!);
    if (!m || m[1]!.length >= limit) continue;
    keys.unshift(m[2]!);
    limit = m[1]!.length;
  }
  return keys;
}

/**
 * Unquoted values starting with `*` (a cron expression YAML reads as an alias), one problem each:
 * "quote it", with the line as it should be. Once one error is on such a line, every such line of
 * the file is named (the parser's recovery after the first may hide the others), but a real alias
 * (`key: *anchor`, one word) is left alone. Empty when the errors are something else.
 */
export function unquotedAliases(
  text: string,
  errors: readonly { linePos?: readonly { line: number }[] | undefined }[],
): string[] {
  const lines = text.split(/\r?\n/);
  const cronLike = (line: number) => {
    const m = ALIAS_VALUE.exec(lines[line - 1] ?? '');
    return m && /\s/.test(m[3]!) ? m : undefined;
  };
  if (!errors.some((e) => e.linePos?.[0] && cronLike(e.linePos[0].line))) return [];
  const problems: string[] = [];
  lines.forEach((_, i) => {
    const m = cronLike(i + 1);
    if (!m) return;
    const [, indent, key, value] = m as unknown as [string, string, string, string];
    const path = [...parentKeys(lines, i, indent.length), key].join('.');
    problems.push(
      `${path} = ${value} (line ${i + 1}): unquoted, YAML reads a value starting with "*" as an alias; quote it so it stays text: ${key}: "${value}"`,
    );
  });
  return problems;
}
