/**
 * `url` with its password replaced by `***`, to print it (a Redis or PostgreSQL URL); undefined when
 * it is not a URL, for the caller to say so its own way. Imports nothing: the config loads it.
 */
export function maskUrlPassword(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
