/**
 * What a value that YAML read as a number (or true/false) should have looked like, for keys
 * that want text in a format: `idle_time: 20` wants a Go duration, `runner_version: 18.5`
 * a full version, `account_id: 012345678901` twelve digits (YAML drops the leading zero of an
 * unquoted number). The first message then says the format and "quote it", so the user does
 * not have to fix the type only to meet the format next.
 */
import type { ModelPath } from "./issues";

const GO_DURATION = 'a Go duration with its unit, such as "20m", "1h30m" or "90s"';

const FORMAT_BY_KEY: Readonly<Record<string, string>> = {
  idle_time: GO_DURATION,
  maximum_timeout: GO_DURATION,
  request_timeout: GO_DURATION,
  manager_absent_for: GO_DURATION,
  runner_version: 'a full gitlab-runner version such as "18.5.0"',
  account_id: 'the 12-digit AWS account id, leading zeros included, such as "012345678901"',
  project: 'a Google Cloud project id such as "acme-runners-1"',
};

/** A hint for a scalar of the wrong type where a string was expected, or undefined. */
export function quoteItHint(path: ModelPath, received: unknown): string | undefined {
  if (typeof received !== "number" && typeof received !== "boolean") return undefined;
  const key = [...path].reverse().find((part): part is string => typeof part === "string");
  const format = key === undefined ? undefined : FORMAT_BY_KEY[key];
  const written = typeof received === "number" && key === "account_id" ? String(received).padStart(12, "0") : String(received);
  const quote = `quote it: "${written}"; YAML reads ${written === String(received) ? "it" : "the unquoted digits"} as a ${typeof received}`;
  return format ? `${format}; ${quote}` : quote;
}
