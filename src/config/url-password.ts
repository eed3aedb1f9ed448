/**
 * A URL's secrets, masked for printing and listed for scrubbing. A password may sit in the user
 * info (`postgres://user:secret@host/db`) or in the query: libpq reads `password` and `sslpassword`
 * there, node-postgres and ioredis take any query parameter as an option (`?password=`,
 * `?sentinelPassword=`). Imports nothing: the config loads it.
 */

/**
 * A query parameter that holds a secret: its name holds "pass" (password, sslpassword, passwd,
 * sentinelPassword), but not a file's name (libpq's `passfile` is a path).
 */
export function isPasswordParameter(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.includes('pass') && !lower.endsWith('file');
}

/**
 * `url` with its password replaced by `***`, to print it (a Redis or PostgreSQL URL): the user
 * info's and every password parameter of the query; undefined when it is not a URL, for the caller
 * to say so its own way.
 */
export function maskUrlPassword(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  parsed.search = maskSearchPasswords(parsed.search);
  return parsed.toString();
}

/**
 * Text that may hold a query string (a URL the parser refused, an error quoting one): the value of
 * each password parameter replaced by `***`, the rest as it was.
 */
export function maskPasswordParameters(text: string): string {
  return text.replace(/([?&;\s])([^=&?#\s]*)=([^&#\s]*)/g, (whole, sep: string, key: string) =>
    isPasswordParameter(decodeLoosely(key)) ? `${sep}${key}=***` : whole,
  );
}

/**
 * The secrets `url` holds, for the scrub list (src/runtime/secrets.ts): the user info's password and
 * the password parameters' values, each decoded (as a driver would quote it) and as written.
 */
export function urlSecrets(url: string): string[] {
  if (!URL.canParse(url)) return [];
  const parsed = new URL(url);
  const found: string[] = [];
  if (parsed.password) found.push(parsed.password, decodeLoosely(parsed.password));
  for (const part of parsed.search.slice(1).split('&')) {
    const eq = part.indexOf('=');
    if (eq < 0 || !isPasswordParameter(decodeLoosely(part.slice(0, eq)))) continue;
    const raw = part.slice(eq + 1);
    found.push(raw, decodeLoosely(raw.replace(/\+/g, ' ')));
  }
  return [...new Set(found.filter((s) => s.length > 0))];
}

/** A URL's `search` (`?a=1&password=x`) with each password parameter's value replaced by `***`. */
export function maskSearchPasswords(search: string): string {
  if (search.length <= 1) return search;
  const parts = search
    .slice(1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      return eq >= 0 && isPasswordParameter(decodeLoosely(part.slice(0, eq)))
        ? `${part.slice(0, eq)}=***`
        : part;
    });
  return `?${parts.join('&')}`;
}

function decodeLoosely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
