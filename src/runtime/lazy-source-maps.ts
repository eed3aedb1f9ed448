/**
 * Stack traces of the built CLI name the TypeScript files (`src/…/x.ts:12:5`), with the source maps
 * read only when a stack is formatted. Node's own (`process.setSourceMapsEnabled(true)`) reads and
 * parses the map of every chunk as it loads it: a fifth of `config check`'s time, for a stack trace
 * it almost never prints. Here a frame of a bundled file (`dist/…/x.js` beside its `x.js.map`) is
 * mapped through node:module's `SourceMap` the first time a stack names it; other frames are left
 * as V8 wrote them (node_modules outside the bundle, Node's own, sources run by tsx).
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** A bundled file's map, or null when it has none; one entry per chunk loaded (a few hundred at most). */
type Maps = Map<string, { map: SourceMap; base: URL } | null>;

function mapOf(maps: Maps, file: string): { map: SourceMap; base: URL } | null {
  let found = maps.get(file);
  if (found === undefined) {
    found = null;
    if (file.endsWith('.js')) {
      const path = file.startsWith('file:') ? fileURLToPath(file) : file;
      try {
        const payload = JSON.parse(readFileSync(`${path}.map`, 'utf8'));
        found = { map: new SourceMap(payload), base: pathToFileURL(`${path}.map`) };
      } catch {
        // No map beside it (or not readable): the frame stays as it is.
      }
    }
    maps.set(file, found);
  }
  return found;
}

/** One frame as V8 prints it, its generated place replaced by the TypeScript file's. */
function mappedFrame(maps: Maps, site: NodeJS.CallSite): string {
  const text = String(site);
  const file = site.getFileName();
  const line = site.getLineNumber();
  const column = site.getColumnNumber();
  if (!file || line === null || column === null) return text;
  const found = mapOf(maps, file);
  if (!found) return text;
  const entry = found.map.findEntry(line - 1, column - 1) as Partial<{
    originalSource: string;
    originalLine: number;
    originalColumn: number;
  }>;
  if (entry.originalSource === undefined || entry.originalLine === undefined) return text;
  const source = fileURLToPath(new URL(entry.originalSource, found.base));
  const place = `${file}:${line}:${column}`;
  const original = `${source}:${entry.originalLine + 1}:${(entry.originalColumn ?? 0) + 1}`;
  return text.includes(place) ? text.replace(place, original) : `${text} [${original}]`;
}

/** Installs the formatter (the built CLI's entry, before anything else loads). */
export function installLazySourceMaps(): void {
  const maps: Maps = new Map();
  Error.prepareStackTrace = (error, sites) => {
    let header: string;
    try {
      header = Error.prototype.toString.call(error);
    } catch {
      header = '<error>';
    }
    return [header, ...sites.map((s) => `    at ${mappedFrame(maps, s)}`)].join('\n');
  };
}
