/**
 * One scrubbing of secrets for every sink an error or upstream message reaches (`job_runs`, logs,
 * the queue's failed reason, stored operation messages, the upstream client's errors): each secret is
 * replaced by `***`.
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join('***');
  return out;
}
