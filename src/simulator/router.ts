/**
 * The route table: the nine endpoints of src/upstream/endpoints.ts (paths written once, there) plus
 * the download path of finished exports, which lives outside /v1 and needs no API key.
 */
import { type EndpointName, endpointNames, endpoints } from '../upstream/endpoints.js';

export type RouteName = EndpointName | 'download';

export interface RouteMatch {
  route: RouteName;
  params: Record<string, string>;
}

interface Route {
  name: RouteName;
  method: string;
  pattern: RegExp;
  keys: string[];
}

export const DOWNLOAD_PATH = '/downloads/{operationId}/{file}';

function compile(name: RouteName, method: string, path: string): Route {
  const keys: string[] = [];
  const source = path
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const key = /^\{([^}]+)\}$/.exec(part)?.[1];
      if (key === undefined) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      keys.push(key);
      return '([^/]+)';
    })
    .join('');
  return { name, method, pattern: new RegExp(`^${source}$`), keys };
}

const routes: readonly Route[] = [
  ...endpointNames.map((name) => compile(name, endpoints[name].method, endpoints[name].path)),
  compile('download', 'GET', DOWNLOAD_PATH),
];

/** The route for a method and path, or undefined (the server answers 404 "Cannot METHOD path"). */
export function matchRoute(method: string, path: string): RouteMatch | undefined {
  for (const route of routes) {
    if (route.method !== method) continue;
    const m = route.pattern.exec(path);
    if (!m) continue;
    const params: Record<string, string> = {};
    route.keys.forEach((key, i) => {
      const raw = m[i + 1] ?? '';
      try {
        params[key] = decodeURIComponent(raw);
      } catch {
        params[key] = raw;
      }
    });
    return { route: route.name, params };
  }
  return undefined;
}
