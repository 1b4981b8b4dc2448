/**
 * Model values that would turn into Terraform references. cdktf resolves any string
 * holding its token marker (`${TfToken[TOKEN.1]}`) into whatever that token stands
 * for, before the literal text of the stack is escaped, so no escaping can make such a
 * value literal: it is refused instead. Every other `${`/`%{` in a value reaches
 * Terraform escaped, as written (lib/terraform/template-literal.ts).
 */
import { describeValue, type ModelPath } from "./issues";

/** Every cdktf token marker: strings `${`, lists `#{`, maps `&{`. */
const ANY_TOKEN_MARKER = /[$#&]\{TfToken\[/;

/** True when `text` holds a cdktf token marker, which cdktf would turn into a reference. */
export function containsTokenMarker(text: string): boolean {
  return ANY_TOKEN_MARKER.test(text);
}

export interface TokenMarkerFinding {
  readonly severity: "error";
  readonly path: ModelPath;
  readonly expected: string;
  readonly received: string;
}

const EXPECTED = "text without a cdktf token marker (${TfToken[...]}, #{TfToken[...]} or &{TfToken[...]}), which would become a reference in the stack";

/** Every string in the parsed YAML (values and keys) that holds a token marker. */
export function tokenMarkerFindings(data: unknown, path: ModelPath = []): TokenMarkerFinding[] {
  if (typeof data === "string") {
    return containsTokenMarker(data) ? [{ severity: "error", path, expected: EXPECTED, received: describeValue(data) }] : [];
  }
  if (Array.isArray(data)) return data.flatMap((item, index) => tokenMarkerFindings(item, [...path, index]));
  if (data === null || typeof data !== "object") return [];
  return Object.entries(data).flatMap(([key, value]) => [
    ...(containsTokenMarker(key) ? [{ severity: "error" as const, path: [...path, key], expected: EXPECTED, received: `key ${describeValue(key)}` }] : []),
    ...tokenMarkerFindings(value, [...path, key]),
  ]);
}
