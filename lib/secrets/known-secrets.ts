/**
 * Every secret value this process knows (GitLab tokens, the state backend's password,
 * cloud keys in the environment, runner tokens it saw), so text it passes on from
 * third-party code (the engine's output) is scrubbed by value, not only by the
 * glrt-/glpat- prefixes that redactSecrets recognizes.
 */
import { redactSecrets, redactValue } from "../text/redact";

/** Shorter values are not treated as secrets: scrubbing "true" or "1" would garble output. */
export const MIN_SECRET_LENGTH = 8;

/** Names that hold secrets by convention; a *_FILE / *_PATH / *_DIR variable holds a location, not the secret. */
const SECRET_NAME = /(TOKEN|PASSWORD|PASSWD|SECRET|PRIVATE_KEY|API_KEY|CREDENTIALS)/i;
const LOCATION_NAME = /(_FILE|_PATH|_DIR|APPLICATION_CREDENTIALS)$/i;

export class KnownSecrets {
  private readonly values = new Set<string>();

  /** @param env values of secret-looking variables are known from the start. @param names more variables that hold secrets. */
  constructor(env: NodeJS.ProcessEnv = {}, names: readonly string[] = []) {
    for (const [name, value] of Object.entries(env)) {
      if ((SECRET_NAME.test(name) && !LOCATION_NAME.test(name)) || names.includes(name)) this.add(value);
    }
  }

  add(value: string | undefined): void {
    if (value && value.length >= MIN_SECRET_LENGTH) this.values.add(value);
  }

  /** Longest first, so a secret that contains another is scrubbed whole. */
  redact(text: string): string {
    const ordered = [...this.values].sort((a, b) => b.length - a.length);
    return redactSecrets(ordered.reduce((out, secret) => redactValue(out, secret), text));
  }
}
