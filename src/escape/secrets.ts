/**
 * The one scrubbing of secrets (the API key, the database password) for everything an upstream
 * message or an error reaches: `job_runs`, the queue, the logs, `export_operations.message`.
 */

/** `text` with every occurrence of each secret replaced by `***`. Empty secrets are ignored. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join('***');
  return out;
}
