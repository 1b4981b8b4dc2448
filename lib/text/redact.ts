/**
 * Token redaction for every line that leaves the process. GitLab tokens carry
 * recognizable prefixes (glrt- runner, glpat- personal, ...); we keep the prefix
 * and a hint of the start so people can tell tokens apart, and nothing more.
 */
const TOKEN_PATTERN = /\b(glrt|glpat|gldt|glptt|glcbt|glimt|glsoat|gloas|glft|glagent|GR1348941)-([A-Za-z0-9_.-]{2})[A-Za-z0-9_.-]{6,}/g;

/** "glrt-t1_abcdef..." becomes "glrt-t1…****". */
export function redactSecrets(text: string): string {
  return text.replace(TOKEN_PATTERN, (_match, prefix: string, start: string) => `${prefix}-${start}…****`);
}

/** Redacts one known secret value wherever it appears, even when it has no recognizable prefix. */
export function redactValue(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 8) return redactSecrets(text);
  return redactSecrets(text.split(secret).join(`${secret.slice(0, Math.min(7, Math.floor(secret.length / 4)))}…****`));
}
